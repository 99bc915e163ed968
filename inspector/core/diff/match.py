"""The sequence matcher: patience anchors kept in order by a longest chain, then difflib."""

from __future__ import annotations

import difflib
from array import array
from bisect import bisect_left
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from operator import lt
from typing import Protocol

from inspector.core.diff.keys import Sig

#: Largest gap (left length × right length) aligned with difflib; larger ones pair by position.
DIFFLIB_LIMIT = 40_000
#: Indexes of a left and a right item that align; None for the missing side.
IndexPair = tuple[int | None, int | None]
#: Keys by item index: a list over all items, or a dict over the items of one gap.
Keys = Sequence[Hashable] | Mapping[int, Hashable]


class Out(Protocol):
    """Where alignment puts the pairs it finds: a list, or `Found`."""

    def append(self, pair: IndexPair, /) -> None: ...

    def extend(self, pairs: Iterable[IndexPair], /) -> None: ...


Leaf = Callable[[list[int], list[int], Out], None]


class Found:
    """Pairs as alignment finds them, two machine integers a pair (-1: no item on that side)
    rather than a tuple of two integer objects (about 110 bytes a pair)."""

    __slots__ = ("lefts", "proved", "rights")

    def __init__(self) -> None:
        self.lefts: array[int] = array("i")
        self.rights: array[int] = array("i")
        #: Stretches of positions (start, stop) whose pairs are proved to differ in nothing but
        #: the `id` and the verdict (`_Alike.same_bytes`), in order; only some aligners say.
        self.proved: list[tuple[int, int]] = []

    def __len__(self) -> int:
        return len(self.lefts)

    def append(self, pair: IndexPair, /) -> None:
        """Add one pair."""
        i, j = pair
        self.lefts.append(-1 if i is None else i)
        self.rights.append(-1 if j is None else j)

    def extend(self, pairs: Iterable[IndexPair], /) -> None:
        """Add pairs."""
        lefts, rights = self.lefts, self.rights
        for i, j in pairs:
            lefts.append(-1 if i is None else i)
            rights.append(-1 if j is None else j)

    def both(self, a: Iterable[int], b: Iterable[int]) -> None:
        """Add pairs of items on both sides: a[k] with b[k]."""
        self.lefts.extend(a)
        self.rights.extend(b)

    def pairs(self) -> list[IndexPair]:
        """The pairs as tuples (None: no item on that side)."""
        return [
            (None if i < 0 else i, None if j < 0 else j)
            for i, j in zip(self.lefts, self.rights, strict=True)
        ]


class Same(Protocol):
    """Whether a left and a right item have equal keys (`test`), told without making the keys
    where it can be; `prepare` makes the keys of items about to be counted."""

    @property
    def test(self) -> Callable[[int, int], bool]: ...

    def prepare(self, a: Iterable[int], b: Iterable[int]) -> None: ...


def _longest_chain(pairs: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Longest subsequence of (left, right) pairs, sorted by left, with increasing right."""
    rights = [right for _, right in pairs]
    if all(map(lt, rights, rights[1:])):
        return list(pairs)  # already in order on both sides (the common case)
    tails: list[int] = []  # right value ending the best chain of each length
    tail_at: list[int] = []  # index into pairs of that chain end
    back: list[int] = [-1] * len(pairs)
    for number, (_, right) in enumerate(pairs):
        length = bisect_left(tails, right)
        if length == len(tails):
            tails.append(right)
            tail_at.append(number)
        else:
            tails[length] = right
            tail_at[length] = number
        back[number] = tail_at[length - 1] if length else -1
    chain: list[tuple[int, int]] = []
    at = tail_at[-1] if tail_at else -1
    while at >= 0:
        chain.append(pairs[at])
        at = back[at]
    chain.reverse()
    return chain


def _anchors(a: Sequence[int], b: Sequence[int], ka: Keys, kb: Keys) -> list[tuple[int, int]]:
    """Positions (in a, in b) of keys occurring equally often on both sides, kept in order."""
    count_a: dict[Hashable, int] = {}
    for i in a:
        count_a[ka[i]] = count_a.get(ka[i], 0) + 1
    count_b: dict[Hashable, int] = {}
    for j in b:
        count_b[kb[j]] = count_b.get(kb[j], 0) + 1
    where_b: dict[Hashable, list[int]] = {}
    for pos, j in enumerate(b):
        key = kb[j]
        if count_a.get(key) == count_b[key]:
            where_b.setdefault(key, []).append(pos)
    if not where_b:
        return []
    seen: dict[Hashable, int] = {}
    candidates: list[tuple[int, int]] = []
    for pos, i in enumerate(a):
        positions = where_b.get(ka[i])
        if positions is not None:
            n = seen.get(ka[i], 0)
            seen[ka[i]] = n + 1
            candidates.append((pos, positions[n]))
    return _longest_chain(candidates)


def _patience(
    a: list[int],
    b: list[int],
    ka: Keys,
    kb: Keys,
    leaf: Leaf,
    out: Out,
    same: Same | None = None,
) -> None:
    """Align two index lists on keys: prefix, suffix, in-order anchors, then `leaf` on gaps.

    `same` (when given) says whether two items' keys are equal, for the prefix and suffix.
    """
    work = [(a, b)]
    while work:
        a, b = work.pop()
        start, limit = 0, min(len(a), len(b))
        if same is None:
            while start < limit and ka[a[start]] == kb[b[start]]:
                start += 1
        else:
            test = same.test
            while start < limit and test(a[start], b[start]):
                start += 1
        out.extend(zip(a[:start], b[:start], strict=True))
        end = 0
        if same is None:
            while end < limit - start and ka[a[-1 - end]] == kb[b[-1 - end]]:
                end += 1
        else:
            while end < limit - start and test(a[-1 - end], b[-1 - end]):
                end += 1
        out.extend(zip(a[len(a) - end :][::-1], b[len(b) - end :][::-1], strict=True))
        a, b = a[start : len(a) - end], b[start : len(b) - end]
        if a and b and same is not None:
            same.prepare(a, b)
        anchors = _anchors(a, b, ka, kb) if a and b else []
        if not anchors:
            leaf(a, b, out)
            continue
        last_a = last_b = 0
        for pos_a, pos_b in anchors:
            out.append((a[pos_a], b[pos_b]))
            work.append((a[last_a:pos_a], b[last_b:pos_b]))
            last_a, last_b = pos_a + 1, pos_b + 1
        work.append((a[last_a:], b[last_b:]))


def _by_position(a: Sequence[int], b: Sequence[int], out: Out) -> None:
    """Pair a replaced block by position; the surplus of the longer side stays unmatched."""
    common = min(len(a), len(b))
    out.extend(zip(a[:common], b[:common], strict=True))
    out.extend((i, None) for i in a[common:])
    out.extend((None, j) for j in b[common:])


def _patience_leaf(ka: Mapping[int, Hashable], kb: Mapping[int, Hashable], inner: Leaf) -> Leaf:
    """A leaf that aligns a gap patience-style on other keys, handing its gaps to `inner`."""

    def leaf(a: list[int], b: list[int], out: Out) -> None:
        if a and b:
            _patience(a, b, ka, kb, inner, out)

    return leaf


def _equal_runs(ka: Mapping[int, Hashable], kb: Mapping[int, Hashable]) -> Leaf:
    """A leaf that pairs only the runs difflib finds equal; the rest stays unpaired."""

    def leaf(a: list[int], b: list[int], out: Out) -> None:
        if not a or not b or len(a) * len(b) > DIFFLIB_LIMIT:
            return
        matcher = difflib.SequenceMatcher(
            None, [ka[i] for i in a], [kb[j] for j in b], autojunk=False
        )
        for block in matcher.get_matching_blocks():
            out.extend(
                zip(
                    a[block.a : block.a + block.size],
                    b[block.b : block.b + block.size],
                    strict=True,
                )
            )

    return leaf


#: Keys the last gaps are matched on in turn: the whole signature, then the type alone (so a
#: renamed call still meets the call rather than a neighbouring message).
_LEVELS: tuple[Callable[[Sig], Hashable], ...] = (lambda sig: sig, lambda sig: sig[0])


def _difflib(sa: Mapping[int, Sig], sb: Mapping[int, Sig]) -> Leaf:
    def match(a: list[int], b: list[int], level: int, out: Out) -> None:
        if level == len(_LEVELS) or not a or not b or len(a) * len(b) > DIFFLIB_LIMIT:
            _by_position(a, b, out)
            return
        key = _LEVELS[level]
        # autojunk off: in transcripts the frequent signatures are the ones that must align.
        matcher = difflib.SequenceMatcher(
            None, [key(sa[i]) for i in a], [key(sb[j]) for j in b], autojunk=False
        )
        for tag, a0, a1, b0, b1 in matcher.get_opcodes():
            if tag == "equal":
                out.extend(zip(a[a0:a1], b[b0:b1], strict=True))
            else:
                match(a[a0:a1], b[b0:b1], level + 1, out)

    def leaf(a: list[int], b: list[int], out: Out) -> None:
        match(a, b, 0, out)

    return leaf
