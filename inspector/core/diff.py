"""Two providers' transcripts of one session side by side: aligned pairs, changes, replay decision.

Alignment (`align_items`) runs in three passes, each near-linear:

1. function_call with function_call and function_call_output with function_call_output pair
   by `call_id` (the k-th occurrence on the left with the k-th on the right, for a call_id that
   occurs equally often on both sides), so parallel calls that come back in another order pair
   by call_id, not by position;
2. the longest chain of those pairs that keeps both sides in order (a longest increasing
   subsequence) cuts the remaining items into segments between consecutive anchors;
3. each segment is aligned patience-style: common prefix and suffix, then anchors on content
   that occurs equally often on both sides (content = the item without `id` and `call_id`),
   again kept in order by a longest increasing subsequence; what is left between anchors is
   aligned on the item signature (type, role, name) the same way, and the last small gaps with
   difflib (autojunk off), on the signature and then, inside its replaced blocks, on the type
   alone (a renamed call meets the call, not a neighbouring message). Items of a block still
   replaced pair by position, so a changed type shows as one changed pair; only the surplus is
   left unmatched (only_left / only_right). Gaps over DIFFLIB_LIMIT pair by position at once.

The item `id` is ignored everywhere: providers mint their own ids, so it always differs.
`call_id` is ignored for content anchoring (a provider may mint those too) but compared, and
reported, on every pair.

Change codes (severity; "error" is exactly what blocks replay):
- `/type`: became_namespaced (error), became_non_portable (error), became_portable (warning),
  or type_changed (warning) for any other type change; one change per pair, the most specific.
  When the type changed, fields only one of the two items has follow from that and are not
  listed; fields both carry are still compared.
- call_id_changed (error); name_changed, role_changed, status_changed (warning). A role change
  has its own code rather than being folded into content_changed: the same text from `user`,
  `developer` or `system` weighs differently, and `/role` says exactly what moved.
- arguments_changed (warning): one per added, removed or changed pointer of the parsed
  arguments (`/arguments/region`), or one at `/arguments` with the raw values when either side
  does not parse; arguments_reformatted (info): same parsed value, other text.
- output_changed (warning, `/output`); content_changed (warning, per pointer inside `/content`).
- field_changed (info) for any other top-level field (reasoning `summary`, `action`, …);
  extension_field_changed (info) for a slug-prefixed field such as `openrouter:provider`.
- verdict_changed (pointer ""): error when the left verdict is ok and the right one is not,
  else warning.
- only_left / only_right (pointer "", the whole item as value): error for a function_call or
  function_call_output, else warning.
- item_changed (warning): an item that is not a JSON object differs.
"""

from __future__ import annotations

import difflib
import json
from bisect import bisect_left
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from inspector.core.gate import GateResult, Verdict, gate_transcript, item_label
from inspector.core.jsonio import parse_arguments
from inspector.core.model import (
    PORTABLE_CORE,
    ArgumentsError,
    Item,
    Severity,
    Tool,
    Transcript,
    effective_type,
    join_pointer,
    paused_gc,
)

#: Item fields that always differ between providers and are never compared.
VOLATILE_FIELDS: frozenset[str] = frozenset({"id"})
#: Item types that pair by call_id before any alignment, and whose one-sided presence blocks.
CALL_TYPES: frozenset[str] = frozenset({"function_call", "function_call_output"})
#: Largest gap (left length × right length) aligned with difflib; larger ones pair by position.
DIFFLIB_LIMIT = 40_000

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


@dataclass(frozen=True, slots=True)
class Change:
    """One difference within a pair: a code, a JSON Pointer into the item, both values."""

    code: str
    pointer: str
    left: Any
    right: Any
    severity: str

    def to_json(self) -> dict[str, Any]:
        """Return the CLI's JSON form."""
        return {
            "code": self.code,
            "pointer": self.pointer,
            "left": self.left,
            "right": self.right,
            "severity": str(self.severity),
        }


@dataclass(frozen=True, slots=True)
class Pair:
    """An item on the left, on the right, or both, and what changed between them."""

    left: int | None
    right: int | None
    changes: tuple[Change, ...]

    @property
    def changed(self) -> bool:
        """Whether any change is more than informational."""
        return any(c.severity != INFO for c in self.changes)

    @property
    def blocking(self) -> bool:
        """Whether any change blocks a replay."""
        return any(c.severity == ERROR for c in self.changes)

    @property
    def codes(self) -> frozenset[str]:
        """The change codes of this pair."""
        return frozenset(c.code for c in self.changes)

    @property
    def type_changed(self) -> bool:
        """Whether the item type differs (whatever the more specific code)."""
        return any(c.pointer == "/type" for c in self.changes)


@dataclass(frozen=True, slots=True)
class DiffResult:
    """Both gate results, the aligned pairs in display order, and the replay decision."""

    left: GateResult
    right: GateResult
    pairs: tuple[Pair, ...]
    replay_safe: bool
    reasons: tuple[str, ...]
    _left_slot: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _right_slot: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        left = [-1] * len(self.left.transcript.items)
        right = [-1] * len(self.right.transcript.items)
        for number, pair in enumerate(self.pairs):
            if pair.left is not None:
                left[pair.left] = number
            if pair.right is not None:
                right[pair.right] = number
        object.__setattr__(self, "_left_slot", tuple(left))
        object.__setattr__(self, "_right_slot", tuple(right))

    def _pair_at(self, slots: tuple[int, ...], index: int) -> Pair | None:
        if not 0 <= index < len(slots) or slots[index] < 0:
            return None
        return self.pairs[slots[index]]

    def pair_for_left(self, index: int) -> Pair | None:
        """Return the pair holding left item `index` (None when out of range)."""
        return self._pair_at(self._left_slot, index)

    def pair_for_right(self, index: int) -> Pair | None:
        """Return the pair holding right item `index` (None when out of range)."""
        return self._pair_at(self._right_slot, index)

    def summary(self) -> dict[str, int]:
        """Count pairs: same, info (informational changes only), changed, only_left, only_right."""
        counts = {"same": 0, "info": 0, "changed": 0, "only_left": 0, "only_right": 0}
        for pair in self.pairs:
            if pair.right is None:
                counts["only_left"] += 1
            elif pair.left is None:
                counts["only_right"] += 1
            elif pair.changed:
                counts["changed"] += 1
            else:
                counts["info" if pair.changes else "same"] += 1
        return counts

    def to_json(self, left_path: str, right_path: str) -> dict[str, Any]:
        """Return the CLI's JSON document (paths as given)."""
        return {
            "left": left_path,
            "right": right_path,
            "pairs": [self._pair_json(pair) for pair in self.pairs],
            "replay_safe": self.replay_safe,
            "reasons": list(self.reasons),
            "summary": self.summary(),
        }

    def _pair_json(self, pair: Pair) -> dict[str, Any]:
        document: dict[str, Any] = {
            "left": pair.left,
            "right": pair.right,
            "changes": [c.to_json() for c in pair.changes],
            "changed": pair.changed,
        }
        for side, result, index in (
            ("left", self.left, pair.left),
            ("right", self.right, pair.right),
        ):
            item = result.transcript.items[index] if index is not None else None
            document[f"{side}_type"] = item.type_label if item is not None else None
            document[f"{side}_verdict"] = (
                str(result.verdicts[index].verdict) if index is not None else None
            )
        return document


# --------------------------------------------------------------------------------------------
# Alignment


def content_key(raw: Any) -> bytes:
    """Return canonical bytes of an item without `id` and `call_id` (equal items, equal keys)."""
    if isinstance(raw, dict) and ("id" in raw or "call_id" in raw):
        raw = raw.copy()  # a C-level copy and two pops beat a comprehension 3:1 here
        raw.pop("id", None)
        raw.pop("call_id", None)
    try:
        return orjson.dumps(raw, option=orjson.OPT_SORT_KEYS)
    except (orjson.JSONEncodeError, TypeError):
        # Integers beyond 64 bits need json. (orjson writes NaN as null, so the two share a
        # key; NaN is not JSON and reaches items only through the loader's lenient fallback.)
        return json.dumps(raw, sort_keys=True, default=repr).encode()


#: The alignment signature of an item: (type, role, name).
Sig = tuple[Hashable, Hashable, Hashable]
#: Indexes of a left and a right item that align; None for the missing side.
IndexPair = tuple[int | None, int | None]


def _hashable(value: Any) -> Hashable:
    return value if isinstance(value, str) or value is None else "\0" + repr(value)


def signature(raw: Any) -> Sig:
    """Return the alignment signature of a raw item: (type, role, name)."""
    if not isinstance(raw, dict):
        return (_hashable(effective_type(raw)), None, None)
    return (
        _hashable(effective_type(raw)),
        _hashable(raw.get("role")),
        _hashable(raw.get("name")),
    )


def _is_call_type(kind: Any) -> bool:
    # A garbage type may be a list or an object, which cannot be hashed for the set lookup.
    return isinstance(kind, str) and kind in CALL_TYPES


@dataclass(slots=True)
class _Side:
    """What alignment needs of one transcript, computed in one pass over the items."""

    raws: list[Any]
    keys: list[bytes]
    call_ids: list[Any]
    calls: list[tuple[int, str, str]]  # (index, type, call_id) of calls and outputs

    @classmethod
    def of(cls, items: Sequence[Item]) -> _Side:
        raws = [it.raw for it in items]
        keys = [content_key(raw) for raw in raws]
        call_ids: list[Any] = [None] * len(raws)
        calls = []
        for index, raw in enumerate(raws):
            if isinstance(raw, dict) and "call_id" in raw:
                call_id = call_ids[index] = raw["call_id"]
                # Shorthand items (no type) are messages or references, never calls.
                kind = raw.get("type")
                if _is_call_type(kind) and isinstance(call_id, str):
                    calls.append((index, kind, call_id))
        return cls(raws, keys, call_ids, calls)


def _longest_chain(pairs: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Longest subsequence of (left, right) pairs, sorted by left, with increasing right."""
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


def _call_pairs(left: _Side, right: _Side) -> list[tuple[int, int]]:
    """Pair calls (and outputs) by call_id, occurrence by occurrence.

    A call_id that occurs more often on one side (providers that number calls per response,
    call_0, call_1, …) is ambiguous: those items are left to content alignment instead.
    """
    slots: dict[tuple[str, str], list[int]] = {}
    for index, kind, call_id in right.calls:
        slots.setdefault((kind, call_id), []).append(index)
    counts: dict[tuple[str, str], int] = {}
    for _, kind, call_id in left.calls:
        counts[kind, call_id] = counts.get((kind, call_id), 0) + 1
    used: dict[tuple[str, str], int] = {}
    pairs: list[tuple[int, int]] = []
    for index, kind, call_id in left.calls:
        key = (kind, call_id)
        candidates = slots.get(key)
        if candidates is not None and len(candidates) == counts[key]:
            taken = used.get(key, 0)
            pairs.append((index, candidates[taken]))
            used[key] = taken + 1
    return pairs


#: Keys by item index: a list over all items, or a dict over the items of one gap.
Keys = Sequence[Hashable] | Mapping[int, Hashable]
Leaf = Callable[[list[int], list[int], list[IndexPair]], None]


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
    out: list[IndexPair],
) -> None:
    """Align two index lists on keys: prefix, suffix, in-order anchors, then `leaf` on gaps."""
    work = [(a, b)]
    while work:
        a, b = work.pop()
        start, limit = 0, min(len(a), len(b))
        while start < limit and ka[a[start]] == kb[b[start]]:
            out.append((a[start], b[start]))
            start += 1
        end = 0
        while end < limit - start and ka[a[-1 - end]] == kb[b[-1 - end]]:
            out.append((a[-1 - end], b[-1 - end]))
            end += 1
        a, b = a[start : len(a) - end], b[start : len(b) - end]
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


def _by_position(a: Sequence[int], b: Sequence[int], out: list[IndexPair]) -> None:
    """Pair a replaced block by position; the surplus of the longer side stays unmatched."""
    common = min(len(a), len(b))
    out.extend(zip(a[:common], b[:common], strict=True))
    out.extend((i, None) for i in a[common:])
    out.extend((None, j) for j in b[common:])


def _by_signature(left: _Side, right: _Side) -> Leaf:
    """The leaf of content alignment: align a gap on signatures, then difflib, then position."""

    def leaf(a: list[int], b: list[int], out: list[IndexPair]) -> None:
        if not a or not b:
            _by_position(a, b, out)
            return
        # Signatures are computed only for the few items that reach a gap.
        sa = {i: signature(left.raws[i]) for i in a}
        sb = {j: signature(right.raws[j]) for j in b}
        _patience(a, b, sa, sb, _difflib(sa, sb), out)

    return leaf


#: Keys the last gaps are matched on in turn: the whole signature, then the type alone (so a
#: renamed call still meets the call rather than a neighbouring message).
_LEVELS: tuple[Callable[[Sig], Hashable], ...] = (lambda sig: sig, lambda sig: sig[0])


def _difflib(sa: Mapping[int, Sig], sb: Mapping[int, Sig]) -> Leaf:
    def match(a: list[int], b: list[int], level: int, out: list[IndexPair]) -> None:
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

    def leaf(a: list[int], b: list[int], out: list[IndexPair]) -> None:
        match(a, b, 0, out)

    return leaf


def align_items(left: Sequence[Item], right: Sequence[Item]) -> list[IndexPair]:
    """Pair the items of two transcripts (see the module docstring); display order, each once."""
    return _align(_Side.of(left), _Side.of(right))


def _align(left: _Side, right: _Side) -> list[IndexPair]:
    call_pairs = _call_pairs(left, right)
    out: list[IndexPair] = list(call_pairs)
    paired_left = {i for i, _ in call_pairs}
    paired_right = {j for _, j in call_pairs}
    leaf = _by_signature(left, right)
    n_left, n_right = len(left.raws), len(right.raws)
    # The in-order call_id anchors cut both sides into segments aligned independently.
    last_left = last_right = 0
    for stop_left, stop_right in [*_longest_chain(call_pairs), (n_left, n_right)]:
        if stop_left > last_left or stop_right > last_right:
            a = [i for i in range(last_left, stop_left) if i not in paired_left]
            b = [j for j in range(last_right, stop_right) if j not in paired_right]
            _patience(a, b, left.keys, right.keys, leaf, out)
        last_left, last_right = stop_left + 1, stop_right + 1
    return display_order(out, n_left, n_right)


def display_order(pairs: Sequence[IndexPair], n_left: int, n_right: int) -> list[IndexPair]:
    """Sort pairs into merged order: by left index; a right-only item goes after the left-only
    run that follows the pair of its nearest paired predecessor on the right."""
    left_of_right = [-1] * n_right
    paired_lefts = [False] * n_left
    for i, j in pairs:
        if i is not None and j is not None:
            left_of_right[j] = i
            paired_lefts[i] = True
    # next_paired[i]: the smallest paired left index >= i (n_left when none).
    next_paired = [n_left] * (n_left + 1)
    for i in range(n_left - 1, -1, -1):
        next_paired[i] = i if paired_lefts[i] else next_paired[i + 1]
    place_right = [0] * n_right
    anchor = -1
    for j in range(n_right):
        if left_of_right[j] >= 0:
            anchor = left_of_right[j]
        else:
            place_right[j] = next_paired[anchor + 1]

    def key(pair: IndexPair) -> tuple[int, int, int]:
        i, j = pair
        if i is not None:
            return (i, 1, 0)
        assert j is not None
        return (place_right[j], 0, j)

    return sorted(pairs, key=key)


# --------------------------------------------------------------------------------------------
# Changes


_ABSENT: Any = object()


def _kind(value: Any) -> str:
    if value is _ABSENT:
        return "absent"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return type(value).__name__


def _present(value: Any) -> Any:
    return None if value is _ABSENT else value


def json_changes(code: str, pointer: str, left: Any, right: Any, severity: str) -> list[Change]:
    """One change per added, removed or changed JSON Pointer between two JSON values.

    Numbers compare by value (1 equals 1.0, as in JSON Schema); booleans are not numbers.
    """
    out: list[Change] = []
    # An explicit stack, in document order: parsed arguments may nest deeper than recursion.
    stack: list[tuple[str, Any, Any]] = [(pointer, left, right)]
    while stack:
        here, a, b = stack.pop()
        kind = _kind(a)
        if kind != _kind(b):
            out.append(Change(code, here, _present(a), _present(b), severity))
        elif kind == "object":
            children = [(join_pointer(here, k), v, b.get(k, _ABSENT)) for k, v in a.items()]
            children += [(join_pointer(here, k), _ABSENT, v) for k, v in b.items() if k not in a]
            stack.extend(reversed(children))
        elif kind == "array":
            size = max(len(a), len(b))
            children = [
                (
                    join_pointer(here, n),
                    a[n] if n < len(a) else _ABSENT,
                    b[n] if n < len(b) else _ABSENT,
                )
                for n in range(size)
            ]
            stack.extend(reversed(children))
        elif a != b:
            out.append(Change(code, here, a, b, severity))
    return out


def same_json(left: Any, right: Any) -> bool:
    """Whether two JSON values are equal (numbers by value, booleans apart from numbers)."""
    return not json_changes("", "", left, right, INFO)


def type_change(left: Any, right: Any) -> Change:
    """Classify a change of item type: namespaced, portable, non-portable or plain."""
    left_prefixed = isinstance(left, str) and ":" in left
    right_prefixed = isinstance(right, str) and ":" in right
    if isinstance(left, str) and not left_prefixed and right_prefixed:
        code, severity = "became_namespaced", ERROR
    elif left_prefixed and isinstance(right, str) and not right_prefixed:
        code, severity = "became_portable", WARNING
    elif (
        isinstance(left, str)
        and left in PORTABLE_CORE
        and isinstance(right, str)
        and not right_prefixed
        and right not in PORTABLE_CORE
    ):
        code, severity = "became_non_portable", ERROR
    else:
        code, severity = "type_changed", WARNING
    return Change(code, "/type", left, right, severity)


def arguments_changes(left: Any, right: Any) -> list[Change]:
    """Changes between two `arguments` values: per parsed pointer, reformatted, or raw."""
    if isinstance(left, str) and isinstance(right, str):
        if left == right:
            return []
        try:
            parsed_left, parsed_right = parse_arguments(left), parse_arguments(right)
        except ArgumentsError:
            return [Change("arguments_changed", "/arguments", left, right, WARNING)]
        changes = json_changes(
            "arguments_changed", "/arguments", parsed_left, parsed_right, WARNING
        )
        return changes or [Change("arguments_reformatted", "/arguments", left, right, INFO)]
    if same_json(left, right):
        return []
    return [Change("arguments_changed", "/arguments", left, right, WARNING)]


#: Top-level fields with their own change code, compared in this order after the type.
_FIELD_CODES = (
    ("call_id", "call_id_changed", ERROR),
    ("name", "name_changed", WARNING),
    ("role", "role_changed", WARNING),
    ("status", "status_changed", WARNING),
)
_OWN_CODE = frozenset({"type", "arguments", "output", "content"} | {f for f, _, _ in _FIELD_CODES})


def pair_changes(
    left: Item, right: Item, left_verdict: Verdict, right_verdict: Verdict
) -> tuple[Change, ...]:
    """Every change between two aligned items, `id` ignored.

    When the type differs, fields present on only one side follow from the type change and
    are not listed; fields both items carry are still compared.
    """
    out: list[Change] = []
    same_type = same_json(left.type, right.type)
    if not same_type:
        out.append(type_change(left.type, right.type))
    lraw = left.raw if isinstance(left.raw, dict) else {}
    rraw = right.raw if isinstance(right.raw, dict) else {}
    not_objects = lraw is not left.raw or rraw is not right.raw
    if same_type and not_objects and not same_json(left.raw, right.raw):
        out.append(Change("item_changed", "", left.raw, right.raw, WARNING))

    def compared(key: str) -> bool:
        if same_type:
            return key in lraw or key in rraw
        return key in lraw and key in rraw

    for key, code, severity in _FIELD_CODES:
        if compared(key) and not same_json(lraw.get(key), rraw.get(key)):
            out.append(Change(code, "/" + key, lraw.get(key), rraw.get(key), severity))
    if compared("arguments"):
        out.extend(arguments_changes(lraw.get("arguments"), rraw.get("arguments")))
    if compared("output") and not same_json(lraw.get("output"), rraw.get("output")):
        out.append(
            Change("output_changed", "/output", lraw.get("output"), rraw.get("output"), WARNING)
        )
    if compared("content"):
        out.extend(
            json_changes(
                "content_changed", "/content", lraw.get("content"), rraw.get("content"), WARNING
            )
        )
    keys = [*lraw, *(k for k in rraw if k not in lraw)]
    for key in keys:
        if key in _OWN_CODE or key in VOLATILE_FIELDS or not compared(key):
            continue
        a, b = lraw.get(key), rraw.get(key)
        if same_json(a, b):  # absent and null alike, as for the fields above
            continue
        code = "extension_field_changed" if ":" in key else "field_changed"
        out.append(Change(code, join_pointer("", key), a, b, INFO))
    if left_verdict != right_verdict:
        severity = ERROR if left_verdict == Verdict.OK else WARNING
        out.append(Change("verdict_changed", "", str(left_verdict), str(right_verdict), severity))
    return tuple(out)


def one_side_change(item: Item, side: str) -> Change:
    """The change for an item with no partner: only_left or only_right."""
    severity = ERROR if _is_call_type(item.type) else WARNING
    if side == "left":
        return Change("only_left", "", item.raw, None, severity)
    return Change("only_right", "", None, item.raw, severity)


# --------------------------------------------------------------------------------------------
# Replay decision


def _label(item: Item, side: str = "") -> str:
    text = item_label(item)
    if item.type == "function_call_output" and item.call_id is not None:
        text += f" (call_id {item.call_id!r})"
    return f"{side}{text}"


_TYPE_REASONS = {"became_namespaced", "became_non_portable"}


def _reasons(pair: Pair, left: Sequence[Item], right: Sequence[Item]) -> Iterator[str]:
    if pair.left is None or pair.right is None:
        for change in pair.changes:
            if change.severity != ERROR:
                continue
            if change.code == "only_left" and pair.left is not None:
                yield f"{_label(left[pair.left])} exists only on the left"
            elif change.code == "only_right" and pair.right is not None:
                yield f"{_label(right[pair.right], 'right ')} exists only on the right"
        return
    label = _label(left[pair.left])
    where = f"(right #{pair.right})"
    for change in pair.changes:
        if change.severity != ERROR:
            continue
        if change.code == "became_namespaced":
            yield f"{label} became provider-prefixed {right[pair.right].type_label} {where}"
        elif change.code == "became_non_portable":
            yield (
                f"{label} became {right[pair.right].type_label}, which is outside the Open "
                f"Responses core and has no provider prefix {where}"
            )
        elif change.code == "call_id_changed":
            yield f"{label} call_id changed from {change.left!r} to {change.right!r} {where}"
        elif change.code == "verdict_changed" and not (pair.codes & _TYPE_REASONS):
            # After a type change the verdict change is its consequence, already a reason.
            yield f"{label} is {change.left} on the left but {change.right} on the right {where}"


def diff_results(left: GateResult, right: GateResult) -> DiffResult:
    """Align two gated transcripts, list the changes of every pair and decide on replay."""
    with paused_gc():
        return _diff_results(left, right)


def _diff_results(left: GateResult, right: GateResult) -> DiffResult:
    litems, ritems = left.transcript.items, right.transcript.items
    lside, rside = _Side.of(litems), _Side.of(ritems)
    lkeys, rkeys = lside.keys, rside.keys
    lverdicts = [v.verdict for v in left.verdicts]
    rverdicts = [v.verdict for v in right.verdicts]
    pairs: list[Pair] = []
    for i, j in _align(lside, rside):
        if j is None:
            assert i is not None
            pairs.append(Pair(i, None, (one_side_change(litems[i], "left"),)))
        elif i is None:
            pairs.append(Pair(None, j, (one_side_change(ritems[j], "right"),)))
        else:
            lcall, rcall = lside.call_ids[i], rside.call_ids[j]
            if (
                lkeys[i] == rkeys[j]
                and type(lcall) is type(rcall)
                and lcall == rcall
                and lverdicts[i] == rverdicts[j]
            ):
                # The common case, decided on bytes: nothing but the id differs.
                pairs.append(Pair(i, j, ()))
            else:
                changes = pair_changes(litems[i], ritems[j], lverdicts[i], rverdicts[j])
                pairs.append(Pair(i, j, changes))
    reasons = tuple(
        r
        for pair in pairs
        if pair.changes and pair.blocking
        for r in _reasons(pair, litems, ritems)
    )
    return DiffResult(left, right, tuple(pairs), not reasons, reasons)


def diff_transcripts(
    left: Transcript, right: Transcript, extra_tools: Mapping[str, Tool] | None = None
) -> DiffResult:
    """Gate both transcripts (with the same extra tools) and diff the results."""
    return diff_results(gate_transcript(left, extra_tools), gate_transcript(right, extra_tools))


__all__ = [
    "CALL_TYPES",
    "VOLATILE_FIELDS",
    "Change",
    "DiffResult",
    "Pair",
    "align_items",
    "arguments_changes",
    "content_key",
    "diff_results",
    "diff_transcripts",
    "display_order",
    "json_changes",
    "one_side_change",
    "pair_changes",
    "same_json",
    "signature",
    "type_change",
]
