"""Alignment of two transcripts' items: call anchors, then content, then the signature."""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from itertools import compress

from inspector.core.diff.keys import (
    _Alike,
    _arguments_key,
    _hashable,
    _output_key,
    _Side,
    _signature,
)
from inspector.core.diff.match import (
    Found,
    IndexPair,
    Leaf,
    Out,
    _by_position,
    _difflib,
    _equal_runs,
    _longest_chain,
    _patience,
    _patience_leaf,
)
from inspector.core.diff.values import CALL_TYPES, DiffMode
from inspector.core.model import Item


def _call_pairs(left: _Side, right: _Side) -> tuple[array[int], array[int]]:
    """Pair calls (and outputs) by call_id, occurrence by occurrence: the left and the right
    item of each pair, in left order.

    A call_id that occurs more often on one side (providers that number calls per response,
    call_0, call_1, …) is ambiguous: those items are left to content alignment instead.
    """
    # By type, then call_id: the right item of a call_id met once a side (the common case);
    # -1 - j once the left's has taken it, so that a second left one is seen.
    at: dict[str, dict[str, int]] = {kind: {} for kind in CALL_TYPES}
    repeated = False
    for j, kind, call_id in zip(right.calls, right.call_kinds, right.call_id_of, strict=True):
        held = at[kind]
        repeated = repeated or call_id in held
        held[call_id] = j
    lefts, rights = array("i"), array("i")
    if not repeated:
        for i, kind, call_id in zip(left.calls, left.call_kinds, left.call_id_of, strict=True):
            held = at[kind]
            partner = held.get(call_id)
            if partner is None:
                continue  # no such call_id on the right: unpaired, however often it occurs
            if partner < 0:
                repeated = True
                break
            held[call_id] = -1 - partner
            lefts.append(i)
            rights.append(partner)
        else:
            return lefts, rights
    del at
    lefts, rights = array("i"), array("i")
    found: list[tuple[int, int]] = []
    lids = dict(zip(left.calls, left.call_id_of, strict=True))
    rids = dict(zip(right.calls, right.call_id_of, strict=True))
    for kind in sorted(CALL_TYPES):
        lcalls = [i for i, t in zip(left.calls, left.call_kinds, strict=True) if t == kind]
        rcalls = [j for j, t in zip(right.calls, right.call_kinds, strict=True) if t == kind]
        found += _repeated_call_pairs(lcalls, rcalls, lids, rids)
    found.sort()
    lefts.extend(i for i, _ in found)
    rights.extend(j for _, j in found)
    return lefts, rights


def _repeated_call_pairs(
    lcalls: list[int], rcalls: list[int], lids: Mapping[int, str], rids: Mapping[int, str]
) -> list[tuple[int, int]]:
    """`_call_pairs` of one type whose call_ids repeat on a side: the k-th occurrence of a
    call_id on the left with the k-th on the right, where it occurs equally often."""
    # A call_id met once keeps its index, not a list.
    slots: dict[str, int | list[int]] = {}
    for index in rcalls:
        call_id = rids[index]
        held = slots.get(call_id)
        if held is None:
            slots[call_id] = index
        elif isinstance(held, list):
            held.append(index)
        else:
            slots[call_id] = [held, index]
    counts: dict[str, int] = {}
    for index in lcalls:
        counts[lids[index]] = counts.get(lids[index], 0) + 1
    used: dict[str, int] = {}
    pairs: list[tuple[int, int]] = []
    for index in lcalls:
        call_id = lids[index]
        held = slots.get(call_id)
        if held is None:
            continue
        if not isinstance(held, list):
            if counts[call_id] == 1:
                pairs.append((index, held))
        elif len(held) == counts[call_id]:
            taken = used.get(call_id, 0)
            pairs.append((index, held[taken]))
            used[call_id] = taken + 1
    return pairs


def _compare_anchors(left: _Side, right: _Side) -> list[tuple[int, int]]:
    """Pairs of compare mode found before content alignment: calls, then their outputs."""
    calls = _calls_by_name(left, right)
    return sorted(calls + _outputs_by_call(left, right, calls))


def _calls_by_name(left: _Side, right: _Side) -> list[tuple[int, int]]:
    """Pair function_calls by order and name, never by call_id.

    Three keys, most specific first: (name, parsed arguments, what the call's output says),
    (name, parsed arguments), name. Each anchors in order, as content anchors do, and the gaps
    go to the next key; the last pairs the runs difflib finds equal. The order inside a
    parallel batch (a run of consecutive calls) means nothing, so each batch is first put in
    the order of its keys on both sides: a batch that came back in another order then aligns
    like any other. The output in the first key tells two identical calls of one batch apart
    when their results differ. Calls left unpaired go to the alignment of all items.
    """
    la, rb = left.typed("function_call"), right.typed("function_call")
    if not la or not rb:
        return []
    lkeys, rkeys = _call_keys(left, la), _call_keys(right, rb)
    la, rb = _batches_in_key_order(la, lkeys[0]), _batches_in_key_order(rb, rkeys[0])
    leaf = _equal_runs(lkeys[-1], rkeys[-1])
    for ka, kb in reversed(list(zip(lkeys[1:], rkeys[1:], strict=True))):
        leaf = _patience_leaf(ka, kb, leaf)
    found: list[IndexPair] = []
    _patience(la, rb, lkeys[0], rkeys[0], leaf, found)
    return [(i, j) for i, j in found if i is not None and j is not None]


def _batches_in_key_order(calls: list[int], keys: Mapping[int, Hashable]) -> list[int]:
    """The calls with each run of consecutive indexes (a parallel batch) sorted by key."""
    batch = 0
    order: list[tuple[int, str, int]] = []
    for position, index in enumerate(calls):
        if position and index != calls[position - 1] + 1:
            batch += 1
        # repr: keys mix strings, bytes and None, which do not compare with each other.
        order.append((batch, repr(keys[index]), index))
    order.sort()
    return [index for _, _, index in order]


def _call_keys(side: _Side, calls: Sequence[int]) -> list[Mapping[int, Hashable]]:
    """The keys calls pair on, most specific first (see `_calls_by_name`)."""
    says: dict[int, Hashable] = {}
    for output, call in side.answers().items():
        says.setdefault(call, _output_key(side.items[output]))
    names = {i: _hashable(side.items[i].name) for i in calls}
    arguments = {i: (names[i], _arguments_key(side.items[i].get("arguments"))) for i in calls}
    outputs = {i: (*arguments[i], says.get(i)) for i in calls}
    return [outputs, arguments, names]


def _outputs_by_call(
    left: _Side, right: _Side, calls: Sequence[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Pair function_call_outputs in compare mode, by the calls they answer (not by call_id).

    In turn: the output of the paired call when the two outputs say the same; among outputs
    of paired calls, content that occurs equally often on both sides (k-th with k-th: the
    content is the evidence, and when it disagrees with the calls that is call_id_mismatch);
    then the output of the paired call whatever it says. The rest is left to alignment.
    """
    lo, ro = left.typed("function_call_output"), right.typed("function_call_output")
    if not lo or not ro:
        return []
    partner = dict(calls)
    paired_right = set(partner.values())
    left_answers, right_answers = left.answers(), right.answers()
    lkey = {i: _output_key(left.items[i]) for i in lo}
    rkey = {j: _output_key(right.items[j]) for j in ro}
    outputs_of: dict[int, list[int]] = {}
    for j in ro:
        call = right_answers.get(j)
        if call is not None:
            outputs_of.setdefault(call, []).append(j)
    used: set[int] = set()
    pairs: list[tuple[int, int]] = []

    def answer(i: int, same_content: bool) -> int | None:
        call = left_answers.get(i)
        target = partner.get(call) if call is not None else None
        for j in outputs_of.get(target, ()) if target is not None else ():
            if j not in used and (not same_content or rkey[j] == lkey[i]):
                return j
        return None

    def take(i: int, j: int) -> None:
        used.add(j)
        pairs.append((i, j))

    rest: list[int] = []
    for i in lo:
        found = answer(i, True)
        if found is None:
            rest.append(i)
        else:
            take(i, found)
    # Only outputs of paired calls: an output whose call has no partner has nothing to
    # disagree with, and pairing it by content across the transcript would only mislead.
    moved_left = [i for i in rest if partner.get(left_answers.get(i, -1)) is not None]
    moved_right = [j for j in ro if j not in used and right_answers.get(j) in paired_right]
    left_counts = Counter(lkey[i] for i in moved_left)
    right_counts = Counter(rkey[j] for j in moved_right)
    slots: dict[Hashable, list[int]] = {}
    for j in reversed(moved_right):
        if left_counts[rkey[j]] == right_counts[rkey[j]]:
            slots.setdefault(rkey[j], []).append(j)
    for i in moved_left:
        waiting = slots.get(lkey[i])
        if waiting:
            take(i, waiting.pop())
    taken = {i for i, _ in pairs}
    for i in rest:
        if i not in taken and (found := answer(i, False)) is not None:
            take(i, found)
            taken.add(i)
    # Last, a right output that answers no call (it comes before its call, say) still meets
    # the output of the call its call_id names, so the mismatch is told about that pair.
    orphans: dict[str, list[int]] = {}
    for j in reversed(ro):
        call_id = right.call_id(j)
        if j not in used and j not in right_answers and isinstance(call_id, str):
            orphans.setdefault(call_id, []).append(j)
    for i in rest:
        call = partner.get(left_answers.get(i, -1))
        call_id = right.call_id(call) if call is not None else None
        waiting = orphans.get(call_id) if isinstance(call_id, str) else None
        if waiting and i not in taken:
            take(i, waiting.pop())
    return pairs


def _by_signature(left: _Side, right: _Side) -> Leaf:
    """The leaf of content alignment: align a gap on signatures, then difflib, then position."""

    def leaf(a: list[int], b: list[int], out: Out) -> None:
        if not a or not b:
            _by_position(a, b, out)
            return
        # Signatures are computed only for the few items that reach a gap.
        sa = {i: _signature(left.items[i]) for i in a}
        sb = {j: _signature(right.items[j]) for j in b}
        _patience(a, b, sa, sb, _difflib(sa, sb), out)

    return leaf


def align_items(
    left: Sequence[Item], right: Sequence[Item], *, mode: DiffMode | str = DiffMode.REPLAY
) -> list[IndexPair]:
    """Pair the items of two transcripts (see the package docstring); display order, each once."""
    shared: dict[bytes, int] = {}
    return _align(_Side.of(left, shared), _Side.of(right, shared), DiffMode(mode)).pairs()


def _align(
    left: _Side, right: _Side, mode: DiffMode = DiffMode.REPLAY, alike: _Alike | None = None
) -> Found:
    """`align_items` of two sides, in display order; `alike` (made here when not given) tells
    items alike."""
    alike = _Alike(left, right) if alike is None else alike
    if mode is DiffMode.COMPARE:
        anchors = _compare_anchors(left, right)
        call_lefts = array("i", [i for i, _ in anchors])
        call_rights = array("i", [j for _, j in anchors])
        del anchors
    else:
        call_lefts, call_rights = _call_pairs(left, right)
    leaf = _by_signature(left, right)
    unequal = _unequal(call_lefts, call_rights, len(left.items), len(right.items))
    if unequal is not None:
        return _in_order(left, right, call_lefts, call_rights, leaf, alike, unequal)
    return _any_order(left, right, call_lefts, call_rights, leaf, alike)


def _unequal(lefts: array[int], rights: array[int], n_left: int, n_right: int) -> list[int] | None:
    """The segments (see `_in_order`) longer on one side than on the other, by the number of
    the anchor that ends them (the last, len(lefts), ends at the end of both sides); None
    when the anchors are not in order on both sides.

    One pass, with no integer made twice: `map` over the arrays made four objects an anchor.
    """
    unequal: list[int] = []
    last_left = last_right = -1
    for k, (i, j) in enumerate(zip(lefts, rights, strict=True)):
        if i <= last_left or j <= last_right:
            return None
        if i - last_left != j - last_right:
            unequal.append(k)
        last_left, last_right = i, j
    if n_left - last_left != n_right - last_right:
        unequal.append(len(lefts))
    return unequal


def _any_order(
    left: _Side,
    right: _Side,
    call_lefts: array[int],
    call_rights: array[int],
    leaf: Leaf,
    alike: _Alike,
) -> Found:
    """`_align` of any call anchors (sorted by left item): the longest chain of them in order on
    both sides cuts the sides into segments, whose pairs are then sorted into display order."""
    n_left, n_right = len(left.items), len(right.items)
    out = Found()
    out.both(call_lefts, call_rights)
    # A byte an item, not a set of integers.
    paired_left, paired_right = bytearray(n_left), bytearray(n_right)
    for i in call_lefts:
        paired_left[i] = 1
    for j in call_rights:
        paired_right[j] = 1
    test = alike.test
    chain = _longest_chain(list(zip(call_lefts, call_rights, strict=True)))
    # The in-order call_id anchors cut both sides into segments aligned independently.
    last_left = last_right = 0
    for stop_left, stop_right in chain_and_end(chain, n_left, n_right):
        if stop_left > last_left or stop_right > last_right:
            a = [i for i in range(last_left, stop_left) if not paired_left[i]]
            b = [j for j in range(last_right, stop_right) if not paired_right[j]]
            if len(a) == len(b) and all(map(test, a, b)):
                out.both(a, b)  # alike item for item: what _patience finds
            else:
                _patience(a, b, left.keys, right.keys, leaf, out, alike)
        last_left, last_right = stop_left + 1, stop_right + 1
    return _display_order(out, n_left, n_right)


def _in_order(
    left: _Side,
    right: _Side,
    call_lefts: array[int],
    call_rights: array[int],
    leaf: Leaf,
    alike: _Alike,
    unequal: list[int] | None = None,
) -> Found:
    """`_align` when the call anchors are in order on both sides (the common case): each
    segment between two anchors holds no other paired item, so its pairs are found and put in
    display order on their own, and the whole is those, anchor by anchor, with no sort.

    That is the display order of all the pairs: a right-only item of a segment follows a pair of
    that segment or the anchor before it, so its place is in the segment or at its end, just
    before the next anchor (see `_display_order`).

    Where consecutive anchors keep one offset (right index − left index), the segments between
    them are as long on both sides: such a block, anchors and all, is tested in one call
    (`_Alike.same_bytes`), and laid out as two ranges when its items are alike item for item.
    Its stretches that pass that test are `Found.proved`: their pairs need no other look.
    `unequal` is `_unequal` of the anchors (found here when not given).
    """
    shown = Found()
    n_left, n_right = len(left.items), len(right.items)
    # The anchors, then the end of both sides; segment k ends at end k.
    ends_left, ends_right = call_lefts + array("i", [n_left]), call_rights + array("i", [n_right])
    # Segment k is as long on both sides when end k keeps the offset (right index − left
    # index) of the end before it (of the start, 0, for the first): the others start blocks.
    if unequal is None:
        unequal = _unequal(call_lefts, call_rights, n_left, n_right)
        assert unequal is not None, "the anchors are not in order"
    ends = len(ends_left)
    cursor = offset = 0  # where the next block starts on the left, and its offset
    for k in [*unequal, ends]:
        # The block: left items cursor.. up to segment k's start (right: each + offset).
        block_end = ends_left[k - 1] + 1 if 0 < k < ends else (0 if k == 0 else n_left)
        _block(left, right, shown, ends_left, cursor, block_end, offset, leaf, alike)
        if k == ends:
            break
        # Segment k, longer on one side: aligned on its own, then its anchor starts the next block.
        last_left = ends_left[k - 1] + 1 if k else 0
        last_right = ends_right[k - 1] + 1 if k else 0
        _segment(
            left, right, shown, last_left, ends_left[k], last_right, ends_right[k], leaf, alike
        )
        cursor, offset = ends_left[k], ends_right[k] - ends_left[k]
    return shown


def _block(
    left: _Side,
    right: _Side,
    shown: Found,
    ends_left: array[int],
    lo: int,
    hi: int,
    offset: int,
    leaf: Leaf,
    alike: _Alike,
) -> None:
    """Add the pairs of left items lo..hi-1 (anchors and the segments between them, each as
    long on both sides: right item i + offset is left item i's counterpart) to `shown`.

    A segment whose items are not alike item for item is aligned on its own, as `_patience`
    aligns any segment; the rest pair item for item.
    """
    if lo >= hi:
        return
    failed = alike.same_bytes(lo, hi, offset)
    test = alike.test
    # The segments (by the index of the anchor that ends them) with an item that is not alike.
    unlike: dict[int, None] = {}
    for i in failed:
        k = bisect_left(ends_left, i)
        if ends_left[k] != i and not test(i, i + offset):
            unlike[k] = None
    cursor = lo
    iota = alike.iota
    for k in unlike:
        start = ends_left[k - 1] + 1 if k else 0
        _plain(shown, cursor, start, offset, failed, iota)
        stop = ends_left[k]
        _segment(left, right, shown, start, stop, start + offset, stop + offset, leaf, alike)
        cursor = stop
    _plain(shown, cursor, hi, offset, failed, iota)


def _segment(
    left: _Side,
    right: _Side,
    shown: Found,
    left_start: int,
    left_stop: int,
    right_start: int,
    right_stop: int,
    leaf: Leaf,
    alike: _Alike,
) -> None:
    """Align one segment (these left and right items, between two anchors) on its own and add
    its pairs to `shown` in display order."""
    found = Found()
    a, b = list(range(left_start, left_stop)), list(range(right_start, right_stop))
    _patience(a, b, left.keys, right.keys, leaf, found, alike)
    _extend_shown(shown, found, left_start, right_start, len(a), len(b))


def _plain(
    shown: Found, lo: int, hi: int, offset: int, failed: list[int], iota: array[int]
) -> None:
    """Pair left items lo..hi-1 with right items lo + offset..: their stretches with no item of
    `failed` are proved (see `Found.proved`). `iota` is `_Alike.iota`."""
    if lo >= hi:
        return
    at = len(shown.lefts)
    shown.lefts.extend(iota[lo:hi])
    shown.rights.extend(iota[lo + offset : hi + offset])
    for i in failed[bisect_left(failed, lo) : bisect_left(failed, hi)]:
        if i > lo:
            shown.proved.append((at, at + i - lo))
        at += i + 1 - lo
        lo = i + 1
    if hi > lo:
        shown.proved.append((at, at + hi - lo))


def _extend_shown(
    shown: Found, found: Found, left_start: int, right_start: int, n_left: int, n_right: int
) -> None:
    """Add a segment's pairs to `shown` in display order (the segment's items start at these
    indexes, and it has these many on each side)."""
    local = Found()
    local.lefts.extend(i - left_start if i >= 0 else -1 for i in found.lefts)
    local.rights.extend(j - right_start if j >= 0 else -1 for j in found.rights)
    ordered = _display_order(local, n_left, n_right)
    shown.lefts.extend(i + left_start if i >= 0 else -1 for i in ordered.lefts)
    shown.rights.extend(j + right_start if j >= 0 else -1 for j in ordered.rights)


def chain_and_end(
    chain: Iterable[tuple[int, int]], n_left: int, n_right: int
) -> Iterator[tuple[int, int]]:
    """The anchors of a chain, then the end of both sides."""
    yield from chain
    yield n_left, n_right


def display_order(pairs: Sequence[IndexPair], n_left: int, n_right: int) -> list[IndexPair]:
    """Sort pairs (each item in one at most) into merged order: by left index; a right-only
    item goes after the left-only run that follows the pair of its nearest paired predecessor
    on the right, right-only items of one place by right index."""
    found = Found()
    found.extend(pairs)
    return _display_order(found, n_left, n_right).pairs()


def _display_order(found: Found, n_left: int, n_right: int) -> Found:
    """`display_order` of found pairs, in one pass a side rather than a sort."""
    right_of_left = array("i", [-1]) * n_left
    left_of_right = array("i", [-1]) * n_right
    has_left = bytearray(n_left)
    right_only: list[int] = []
    for i, j in zip(found.lefts, found.rights, strict=True):
        if i < 0:
            right_only.append(j)
            continue
        has_left[i] = 1
        if j >= 0:
            right_of_left[i] = j
            left_of_right[j] = i
    # Read once: its arrays go now rather than with the caller's last reference.
    del found.lefts[:], found.rights[:]
    # Each right-only item's place: the left index it is shown before (n_left: at the end),
    # the first paired left item after the pair of its nearest paired predecessor.
    placed: dict[int, list[int]] = {}
    if right_only:
        paired_lefts = array("i", compress(range(n_left), map((-1).__lt__, right_of_left)))
        paired_rights = array("i", compress(range(n_right), map((-1).__lt__, left_of_right)))
        for j in sorted(right_only):
            before = bisect_left(paired_rights, j) - 1
            anchor = left_of_right[paired_rights[before]] if before >= 0 else -1
            after = bisect_left(paired_lefts, anchor + 1)
            place = paired_lefts[after] if after < len(paired_lefts) else n_left
            placed.setdefault(place, []).append(j)
    out = Found()
    lefts, rights = out.lefts, out.rights
    start = 0
    places = sorted(placed)
    if not places or places[-1] != n_left:
        places.append(n_left)
    for place in places:
        # The left items up to the place, each in its pair, then the right-only ones there.
        shown = has_left[start:place]
        lefts.extend(compress(range(start, place), shown))
        rights.extend(compress(right_of_left[start:place], shown))
        if place in placed:
            lefts.extend(array("i", [-1]) * len(placed[place]))
            rights.extend(placed[place])
        start = place
    return out
