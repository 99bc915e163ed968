"""Two providers' transcripts of one session side by side: aligned pairs, changes, replay decision.

Two modes (`DiffMode`) say what the right side is:

- replay (the default): the item list you plan to replay in place of the left one, the source
  article's workflow. A call_id must match; a right side that is not an Open Responses envelope
  (the gate's `*_envelope` findings) is a document-level `foreign_envelope` and blocks.
- compare: another provider's run of the same session. Providers mint their own call_ids, so
  calls align by order and name (then arguments), and outputs by the call they answer and their
  content, never by call_id; a call_id change is `call_id_renamed` (info) when the renaming is
  consistent, else `call_id_mismatch` (error). Format artefacts are not differences: message
  text written as a string or as text parts (`content_reformatted`, `output_reformatted`,
  info), and an item status that the record's format (Chat Completions, Anthropic) does not
  carry (`status_not_recorded`, info; the verdicts compared are then those of a completed call).

In both modes a different `Transcript.format` is a document-level `format_changed` (info).

Alignment (`align_items`) runs in three passes, each near-linear:

1. replay mode: function_call with function_call and function_call_output with
   function_call_output pair by `call_id` (the k-th occurrence on the left with the k-th on the
   right, for a call_id that occurs equally often on both sides), so parallel calls that come
   back in another order pair by call_id, not by position. Compare mode: function_calls pair
   by order and name (same parsed arguments first; a reordered parallel batch still pairs),
   and outputs by the call they answer and their content (`_compare_anchors`);
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
- compare mode only: call_id_renamed (info) and call_id_mismatch (error) instead of
  call_id_changed; content_reformatted, output_reformatted, status_not_recorded (info).
"""

from __future__ import annotations

import difflib
import heapq
import json
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from hashlib import blake2b
from typing import Any

import orjson

from inspector.core.gate import (
    GateResult,
    Verdict,
    decide,
    gate_item,
    gate_transcript,
    item_label,
)
from inspector.core.jsonio import parse_arguments
from inspector.core.model import (
    PORTABLE_CORE,
    ArgumentsError,
    Envelope,
    Item,
    Severity,
    Tool,
    Transcript,
    effective_type,
    join_pointer,
    json_kind,
    paused_gc,
)
from inspector.core.report import Streamed

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


class DiffMode(StrEnum):
    """What the right side is: the planned replay of the left, or another run to compare."""

    REPLAY = "replay"
    COMPARE = "compare"

    @property
    def description(self) -> str:
        """One line saying how the two sides are read."""
        if self is DiffMode.COMPARE:
            return (
                "two providers' runs of one session; calls align by order and name, "
                "call_ids may be renamed consistently"
            )
        return "RIGHT is what you plan to replay in place of LEFT; call_ids must match"


@dataclass(frozen=True, slots=True)
class DocumentChange:
    """A difference between the two documents as a whole, with the items it concerns."""

    code: str
    severity: str
    left: Any
    right: Any
    message: str
    left_items: tuple[int, ...] = ()
    right_items: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Return the CLI's JSON form."""
        return {
            "code": self.code,
            "severity": str(self.severity),
            "left": self.left,
            "right": self.right,
            "message": self.message,
            "left_items": list(self.left_items),
            "right_items": list(self.right_items),
        }


@dataclass(frozen=True, slots=True)
class Reason:
    """One reason the switch is unsafe: its change code, its text, the pair (None: document)."""

    code: str
    text: str
    pair: int | None


class Outcome(StrEnum):
    """The status line's answer: safe, safe but the right side blocks on its own, or unsafe."""

    SAFE = "safe"
    BLOCKED = "blocked"
    UNSAFE = "unsafe"

    @property
    def severity(self) -> Severity:
        """The severity a display gives this outcome (no colours in core)."""
        return {"safe": INFO, "blocked": WARNING, "unsafe": ERROR}[self.value]


@dataclass(frozen=True, slots=True)
class DiffVerdict:
    """The facts a status line needs: the decision, its reasons, what blocks on the right."""

    mode: DiffMode
    outcome: Outcome
    replay_safe: bool
    reasons: tuple[str, ...]
    #: Pairs with a change above info, and document changes above info.
    differences: int
    #: Whether nothing but informational changes (renamed ids, formats, layout) differ.
    equivalent: bool
    #: Right items whose own verdict blocks a replay (the gate's decision for the right file).
    blocked_items: int
    right_items: int
    #: Codes of the right side's error findings, in order, each once.
    blocking_findings: tuple[str, ...]
    #: Why the right file blocks by itself (`gate.decide`), empty when it does not.
    right_reasons: tuple[str, ...]
    headline: str

    def to_json(self) -> dict[str, Any]:
        """Return the CLI's JSON form."""
        return {
            "outcome": str(self.outcome),
            "severity": str(self.outcome.severity),
            "headline": self.headline,
            "differences": self.differences,
            "equivalent": self.equivalent,
            "blocked_items": self.blocked_items,
            "right_items": self.right_items,
            "blocking_findings": list(self.blocking_findings),
            "right_reasons": list(self.right_reasons),
        }


@dataclass(frozen=True, slots=True)
class CodeGroup:
    """Every change, document change and reason of one code: counts and the pairs they are in."""

    code: str
    severity: str
    count: int
    pairs: tuple[int, ...]
    reasons: tuple[str, ...]
    document: bool

    def to_json(self) -> dict[str, Any]:
        """Return the CLI's JSON form."""
        return {
            "code": self.code,
            "severity": str(self.severity),
            "count": self.count,
            "pairs": list(self.pairs),
            "reasons": list(self.reasons),
            "document": self.document,
        }


_SEVERITY_RANK = {ERROR: 0, WARNING: 1, INFO: 2}


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


@dataclass(frozen=True, slots=True)
class DiffResult:
    """Both gate results, the aligned pairs in display order, and the replay decision."""

    left: GateResult
    right: GateResult
    pairs: tuple[Pair, ...]
    replay_safe: bool
    reasons: tuple[str, ...]
    mode: DiffMode = DiffMode.REPLAY
    document_changes: tuple[DocumentChange, ...] = ()
    #: The reasons with their codes and pairs (same order as `reasons`).
    reason_details: tuple[Reason, ...] = ()
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

    def pair_number(self, side: str, index: int) -> int | None:
        """Return the position in `pairs` of the pair holding an item of one side."""
        slots = self._left_slot if side == "left" else self._right_slot
        if not 0 <= index < len(slots) or slots[index] < 0:
            return None
        return slots[index]

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

    def verdict_summary(self) -> DiffVerdict:
        """The status line's facts: "Replay safe" only when neither diff nor right side blocks.

        What blocks on the right is the gate's own decision for that file (`gate.decide`), so
        the status line and `gate RIGHT` cannot disagree.
        """
        differences = sum(1 for p in self.pairs if p.changed) + sum(
            1 for d in self.document_changes if d.severity != INFO
        )
        informational = any(p.changes for p in self.pairs) or bool(self.document_changes)
        right = decide(self.right)
        findings = tuple(dict.fromkeys(f.code for f in self.right.findings if f.severity == ERROR))
        if not self.replay_safe:
            outcome = Outcome.UNSAFE
            more = f" (+{len(self.reasons) - 1} more)" if len(self.reasons) > 1 else ""
            headline = f"Replay UNSAFE: {self.reasons[0]}{more}" if self.reasons else ""
            headline = headline or "Replay UNSAFE"
        else:
            if differences:
                agree = f"{_plural(differences, 'difference')}, none blocking"
            elif informational:
                agree = "equivalent (informational changes only)"
            else:
                agree = "no differences"
            if right.blocks:
                outcome = Outcome.BLOCKED
                headline = f"{agree[0].upper()}{agree[1:]}, but {'; '.join(right.reasons)}"
            else:
                outcome = Outcome.SAFE
                headline = f"Replay safe: {agree}"
        return DiffVerdict(
            mode=self.mode,
            outcome=outcome,
            replay_safe=self.replay_safe,
            reasons=self.reasons,
            differences=differences,
            equivalent=not differences,
            blocked_items=right.blocked_items,
            right_items=right.items,
            blocking_findings=findings,
            right_reasons=right.reasons,
            headline=headline,
        )

    def changes_by_code(self) -> tuple[CodeGroup, ...]:
        """Every change, document change and reason grouped by code: errors first, then by code."""
        severity: dict[str, str] = {}
        counts: Counter[str] = Counter()
        pairs: dict[str, dict[int, None]] = {}
        document: set[str] = set()

        def note(code: str, level: str, where: Iterable[int]) -> None:
            counts[code] += 1
            known = severity.get(code)
            if known is None or _SEVERITY_RANK[Severity(level)] < _SEVERITY_RANK[Severity(known)]:
                severity[code] = level
            found = pairs.setdefault(code, {})
            for number in where:
                found.setdefault(number, None)

        for number, pair in enumerate(self.pairs):
            for change in pair.changes:
                note(change.code, change.severity, (number,))
        for change in self.document_changes:
            document.add(change.code)
            where = [
                number
                for side, items in (("left", change.left_items), ("right", change.right_items))
                for index in items
                if (number := self.pair_number(side, index)) is not None
            ]
            note(change.code, change.severity, where)
        reasons: dict[str, list[str]] = {}
        for reason in self.reason_details:
            reasons.setdefault(reason.code, []).append(reason.text)
        groups = [
            CodeGroup(
                code=code,
                severity=str(severity[code]),
                count=counts[code],
                pairs=tuple(sorted(pairs[code])),
                reasons=tuple(reasons.get(code, ())),
                document=code in document,
            )
            for code in counts
        ]
        groups.sort(key=lambda g: (_SEVERITY_RANK[Severity(g.severity)], g.code))
        return tuple(groups)

    def to_json(self, left_path: str, right_path: str, *, streamed: bool = False) -> dict[str, Any]:
        """Return the CLI's JSON document (paths as given).

        `streamed`: the pairs as a `Streamed` array, made one by one as it is written.
        """
        pairs = map(self._pair_json, self.pairs)
        return {
            "left": left_path,
            "right": right_path,
            "pairs": Streamed(pairs) if streamed else list(pairs),
            "replay_safe": self.replay_safe,
            "reasons": list(self.reasons),
            "summary": self.summary(),
            "mode": str(self.mode),
            "document_changes": [c.to_json() for c in self.document_changes],
            "verdict_summary": self.verdict_summary().to_json(),
            "changes_by_code": [g.to_json() for g in self.changes_by_code()],
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
    """Return a digest of an item's canonical JSON without `id` and `call_id` (equal items, equal
    keys)."""
    if isinstance(raw, dict) and ("id" in raw or "call_id" in raw):
        raw = raw.copy()  # a C-level copy and two pops beat a comprehension 3:1 here
        raw.pop("id", None)
        raw.pop("call_id", None)
    # One key is kept per item for the whole alignment: a 16-byte digest rather than the JSON
    # itself, whose orjson buffer keeps a 4 KB allocation whatever its length.
    return blake2b(canonical_json(raw), digest_size=16).digest()


def canonical_json(value: Any) -> bytes:
    """Return canonical bytes of a JSON value: keys sorted, no whitespace."""
    try:
        # Copied: orjson hands out its whole write buffer (4 KiB at least), and compare mode
        # keeps such keys for every call and output of both sides.
        return bytes(memoryview(orjson.dumps(value, option=orjson.OPT_SORT_KEYS)))
    except (orjson.JSONEncodeError, TypeError):
        # Integers beyond 64 bits need json. (orjson writes NaN as null, so the two share a
        # key; NaN is not JSON and reaches items only through the loader's lenient fallback.)
        return json.dumps(value, sort_keys=True, default=repr).encode()


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


def _signature(item: Item) -> Sig:
    """`signature` of an item, from the members it keeps."""
    return (_hashable(item.type), _hashable(item.role), _hashable(item.name))


def _is_call_type(kind: Any) -> bool:
    # A garbage type may be a list or an object, which cannot be hashed for the set lookup.
    return isinstance(kind, str) and kind in CALL_TYPES


@dataclass(slots=True)
class _Side:
    """What alignment needs of one transcript, computed in one pass over the items."""

    items: Sequence[Item]
    keys: list[bytes]
    call_ids: list[Any]
    calls: list[int]  # indexes of the calls and outputs that have a call_id
    # Compare mode asks these many times; replay mode never does, so they are computed lazily.
    _typed: dict[str, list[int]] | None = None
    _answers: dict[int, int] | None = None

    @classmethod
    def of(cls, items: Sequence[Item], shared: dict[bytes, bytes] | None = None) -> _Side:
        """The side of `items`; equal keys are held once across the sides given one `shared`."""
        # Each item's value is read once, for its key, and not kept: a lean item's parse
        # would otherwise be a second copy of the transcript. Most items of two runs of one
        # session are alike, so their keys are held once.
        shared = {} if shared is None else shared
        keys = [shared.setdefault(k, k) for k in (content_key(item.read()) for item in items)]
        call_ids: list[Any] = [item.call_id for item in items]
        calls = [
            index
            for index, item in enumerate(items)
            # Shorthand items (no type) are messages or references, never calls.
            if isinstance(call_ids[index], str) and _is_call_type(item.type)
        ]
        return cls(items, keys, call_ids, calls)

    def call(self, index: int) -> tuple[str, str]:
        """The type and call_id of one of `calls`."""
        return self.items[index].type, self.call_ids[index]

    def typed(self, kind: str) -> list[int]:
        """Indexes of the items whose `type` is `kind` (function_call or its output)."""
        if self._typed is None:
            found: dict[str, list[int]] = {t: [] for t in CALL_TYPES}
            for index, item in enumerate(self.items):
                item_type = item.type
                if _is_call_type(item_type):
                    found[item_type].append(index)
            self._typed = found
        return self._typed[kind]

    def answers(self) -> dict[int, int]:
        """For each function_call_output: the latest earlier function_call with its call_id."""
        if self._answers is None:
            latest: dict[str, int] = {}
            answers: dict[int, int] = {}
            calls = self.typed("function_call")
            outputs = self.typed("function_call_output")
            for index in heapq.merge(calls, outputs):
                call_id = self.call_ids[index]
                if not isinstance(call_id, str):
                    continue
                if self.items[index].type == "function_call":
                    latest[call_id] = index
                elif call_id in latest:
                    answers[index] = latest[call_id]
            self._answers = answers
        return self._answers


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
    for index in right.calls:
        slots.setdefault(right.call(index), []).append(index)
    counts: dict[tuple[str, str], int] = {}
    for index in left.calls:
        key = left.call(index)
        counts[key] = counts.get(key, 0) + 1
    used: dict[tuple[str, str], int] = {}
    pairs: list[tuple[int, int]] = []
    for index in left.calls:
        key = left.call(index)
        candidates = slots.get(key)
        if candidates is not None and len(candidates) == counts[key]:
            taken = used.get(key, 0)
            pairs.append((index, candidates[taken]))
            used[key] = taken + 1
    return pairs


#: Text part types whose `text` is the whole message in every format.
_TEXT_PARTS = frozenset({"text", "input_text", "output_text"})
#: Part fields that carry no text: ignored when empty (annotations, citations, logprobs) or
#: always (Anthropic's cache_control, a caching hint).
_EMPTY_PART_FIELDS = frozenset({"annotations", "citations", "logprobs"})


def plain_text(value: Any) -> str | None:
    """The text of content written as a string or as plain text parts; None for anything else.

    Chat Completions writes `"content": "Hi"`, Anthropic `[{"type": "text", "text": "Hi"}]` and
    Open Responses `[{"type": "output_text", "text": "Hi", "annotations": []}]`: one text.
    """
    if isinstance(value, str):
        return value
    if not isinstance(value, list) or not value:
        return None
    texts = []
    for part in value:
        if (
            not isinstance(part, dict)
            or not isinstance(part.get("type"), str)
            or part["type"] not in _TEXT_PARTS
            or not isinstance(part.get("text"), str)
        ):
            return None
        for key, field_value in part.items():
            if key in _EMPTY_PART_FIELDS and field_value not in (None, []):
                return None
            if key not in _EMPTY_PART_FIELDS and key not in ("type", "text", "cache_control"):
                return None
        texts.append(part["text"])
    return "".join(texts)


def _output_key(item: Item) -> Hashable:
    output = item.get("output")
    text = plain_text(output)
    return ("text", text) if text is not None else ("value", canonical_json(output))


def _numbers_by_value(value: Any) -> Any:
    """The value with integral floats as integers, so that 1 and 1.0 give one key."""
    # Recursion is bounded: parsed arguments nest at most as deep as the strict parser allows.
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, list):
        return [_numbers_by_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _numbers_by_value(v) for k, v in value.items()}
    return value


def _arguments_key(value: Any) -> Hashable:
    """Arguments as compared in compare mode: parsed JSON when they parse, else the raw value."""
    if isinstance(value, str):
        try:
            # A key only steers pairing (changes use the strict parser), so orjson's speed
            # wins; it refuses what it cannot read exactly (integers beyond 64 bits).
            parsed = orjson.loads(value)
        except orjson.JSONDecodeError:
            try:
                parsed = parse_arguments(value)
            except ArgumentsError:
                return ("text", value)
        try:
            if any(mark in value for mark in ".eE"):  # only then can a float be integral
                parsed = _numbers_by_value(parsed)
            return canonical_json(parsed)
        except RecursionError:
            return ("text", value)
    return ("value", canonical_json(value))


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


def _call_keys(side: _Side, calls: Sequence[int]) -> list[dict[int, Hashable]]:
    """The keys calls pair on, most specific first (see `_calls_by_name`)."""
    says: dict[int, Hashable] = {}
    for output, call in side.answers().items():
        says.setdefault(call, _output_key(side.items[output]))
    names = {i: _hashable(side.items[i].name) for i in calls}
    arguments = {i: (names[i], _arguments_key(side.items[i].get("arguments"))) for i in calls}
    outputs = {i: (*arguments[i], says.get(i)) for i in calls}
    return [outputs, arguments, names]


def _patience_leaf(ka: Mapping[int, Hashable], kb: Mapping[int, Hashable], inner: Leaf) -> Leaf:
    """A leaf that aligns a gap patience-style on other keys, handing its gaps to `inner`."""

    def leaf(a: list[int], b: list[int], out: list[IndexPair]) -> None:
        if a and b:
            _patience(a, b, ka, kb, inner, out)

    return leaf


def _equal_runs(ka: Mapping[int, Hashable], kb: Mapping[int, Hashable]) -> Leaf:
    """A leaf that pairs only the runs difflib finds equal; the rest stays unpaired."""

    def leaf(a: list[int], b: list[int], out: list[IndexPair]) -> None:
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

    rest = []
    for i in lo:
        j = answer(i, True)
        if j is None:
            rest.append(i)
        else:
            take(i, j)
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
        if i not in taken and (j := answer(i, False)) is not None:
            take(i, j)
            taken.add(i)
    # Last, a right output that answers no call (it comes before its call, say) still meets
    # the output of the call its call_id names, so the mismatch is told about that pair.
    orphans: dict[str, list[int]] = {}
    for j in reversed(ro):
        call_id = right.call_ids[j]
        if j not in used and j not in right_answers and isinstance(call_id, str):
            orphans.setdefault(call_id, []).append(j)
    for i in rest:
        call = partner.get(left_answers.get(i, -1))
        call_id = right.call_ids[call] if call is not None else None
        waiting = orphans.get(call_id) if isinstance(call_id, str) else None
        if waiting and i not in taken:
            take(i, waiting.pop())
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
        sa = {i: _signature(left.items[i]) for i in a}
        sb = {j: _signature(right.items[j]) for j in b}
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


def align_items(
    left: Sequence[Item], right: Sequence[Item], *, mode: DiffMode | str = DiffMode.REPLAY
) -> list[IndexPair]:
    """Pair the items of two transcripts (see the module docstring); display order, each once."""
    shared: dict[bytes, bytes] = {}
    return _align(_Side.of(left, shared), _Side.of(right, shared), DiffMode(mode))


def _align(left: _Side, right: _Side, mode: DiffMode = DiffMode.REPLAY) -> list[IndexPair]:
    if mode is DiffMode.COMPARE:
        call_pairs = _compare_anchors(left, right)
    else:
        call_pairs = _call_pairs(left, right)
    out: list[IndexPair] = list(call_pairs)
    paired_left = {i for i, _ in call_pairs}
    paired_right = {j for _, j in call_pairs}
    leaf = _by_signature(left, right)
    n_left, n_right = len(left.items), len(right.items)
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
    return "absent" if value is _ABSENT else json_kind(value)


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


def _status_not_recorded(item: Item) -> bool:
    """Whether an item has no status because its record's format carries none."""
    return (
        item.envelope != Envelope.OPEN_RESPONSES
        and _is_object(item)
        and item.get("status", _ABSENT) is _ABSENT
    )


_ABSENT: Any = object()


def _is_object(item: Item) -> bool:
    """Whether the item's value is a JSON object (a lean item's always is)."""
    return item.lean_source is not None or isinstance(item.raw, dict)


def _text_or_changes(
    code: str, pointer: str, left: Any, right: Any, compare: bool, per_pointer: bool
) -> list[Change]:
    """Changes of a text-bearing field; in compare mode the same text in another shape is info."""
    if same_json(left, right):
        return []
    if compare:
        text = plain_text(left)
        if text is not None and text == plain_text(right):
            reformatted = code.replace("_changed", "_reformatted")
            return [Change(reformatted, pointer, left, right, INFO)]
    if per_pointer:
        return json_changes(code, pointer, left, right, WARNING)
    return [Change(code, pointer, left, right, WARNING)]


def pair_changes(
    left: Item,
    right: Item,
    left_verdict: Verdict,
    right_verdict: Verdict,
    *,
    mode: DiffMode | str = DiffMode.REPLAY,
) -> tuple[Change, ...]:
    """Every change between two aligned items, `id` ignored.

    When the type differs, fields present on only one side follow from the type change and
    are not listed; fields both items carry are still compared. In compare mode the call_id is
    left to the consistency check of the whole diff and format artefacts are info (see the
    module docstring); the verdicts given should then be the format-neutral ones.
    """
    compare = DiffMode(mode) is DiffMode.COMPARE
    out: list[Change] = []
    same_type = same_json(left.type, right.type)
    if not same_type:
        out.append(type_change(left.type, right.type))
    lvalue, rvalue = left.raw, right.raw
    lraw = lvalue if isinstance(lvalue, dict) else {}
    rraw = rvalue if isinstance(rvalue, dict) else {}
    not_objects = lraw is not lvalue or rraw is not rvalue
    if same_type and not_objects and not same_json(lvalue, rvalue):
        out.append(Change("item_changed", "", lvalue, rvalue, WARNING))

    def compared(key: str) -> bool:
        if same_type:
            return key in lraw or key in rraw
        return key in lraw and key in rraw

    unrecorded = compare and (_status_not_recorded(left) or _status_not_recorded(right))
    for key, code, severity in _FIELD_CODES:
        if not compared(key) or (compare and key == "call_id"):
            continue
        if same_json(lraw.get(key), rraw.get(key)):
            continue
        if key == "status" and unrecorded:
            code, severity = "status_not_recorded", INFO
        out.append(Change(code, "/" + key, lraw.get(key), rraw.get(key), severity))
    if compared("arguments"):
        out.extend(arguments_changes(lraw.get("arguments"), rraw.get("arguments")))
    for key, per_pointer in (("output", False), ("content", True)):
        if compared(key):
            out.extend(
                _text_or_changes(
                    f"{key}_changed", "/" + key, lraw.get(key), rraw.get(key), compare, per_pointer
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


def _reasons(
    pair: Pair, left: Sequence[Item], right: Sequence[Item], note: str | None = None
) -> Iterator[tuple[str, str]]:
    """(code, text) of every blocking change of a pair; `note` explains a call_id_mismatch."""
    if pair.left is None or pair.right is None:
        for change in pair.changes:
            if change.severity != ERROR:
                continue
            if change.code == "only_left" and pair.left is not None:
                yield change.code, f"{_label(left[pair.left])} exists only on the left"
            elif change.code == "only_right" and pair.right is not None:
                yield change.code, f"{_label(right[pair.right], 'right ')} exists only on the right"
        return
    label = _label(left[pair.left])
    where = f"(right #{pair.right})"
    for change in pair.changes:
        if change.severity != ERROR:
            continue
        code = change.code
        if code == "became_namespaced":
            yield code, f"{label} became provider-prefixed {right[pair.right].type_label} {where}"
        elif code == "became_non_portable":
            yield (
                code,
                (
                    f"{label} became {right[pair.right].type_label}, which is outside the Open "
                    f"Responses core and has no provider prefix {where}"
                ),
            )
        elif code == "call_id_changed":
            yield code, f"{label} call_id changed from {change.left!r} to {change.right!r} {where}"
        elif code == "call_id_mismatch":
            yield code, note or f"{label} call_id {change.left!r} does not match {where}"
        elif code == "verdict_changed" and not (pair.codes & _TYPE_REASONS):
            # After a type change the verdict change is its consequence, already a reason.
            yield (
                code,
                f"{label} is {change.left} on the left but {change.right} on the right {where}",
            )


# --------------------------------------------------------------------------------------------
# Compare mode: call_id consistency and format-neutral verdicts


class _CallIds:
    """Compare mode's check that call_ids were renamed consistently.

    Consistent means one-to-one over the pairs (a left call_id becomes one right call_id, on
    calls and outputs alike), and every output pair answers a pair of calls (each output
    follows its own side's call, and those two calls are paired). The output that disagrees
    carries call_id_mismatch with a reason naming both calls; a call whose renaming another
    pair contradicts carries it too, with a reason naming that pair.
    """

    def __init__(
        self,
        index_pairs: Sequence[IndexPair],
        left: _Side,
        right: _Side,
        litems: Sequence[Item],
        ritems: Sequence[Item],
    ) -> None:
        self.left, self.right, self.litems, self.ritems = left, right, litems, ritems
        self.right_of = {i: j for i, j in index_pairs if i is not None and j is not None}
        self.left_of = {j: i for i, j in self.right_of.items()}
        self.left_answers = left.answers()
        self.right_answers = right.answers()
        self.left_outputs = frozenset(left.typed("function_call_output"))
        self.right_outputs = frozenset(right.typed("function_call_output"))
        # left call_id -> right call_id -> first left item, and the reverse, over calls and
        # outputs alike: a call whose output went to another call is not renamed one-to-one.
        self.forward: dict[str, dict[str, int]] = {}
        self.backward: dict[str, dict[str, int]] = {}
        for i, j in self.right_of.items():
            if self._output(i, j) is False:
                continue
            lcall, rcall = left.call_ids[i], right.call_ids[j]
            if isinstance(lcall, str) and isinstance(rcall, str):
                self.forward.setdefault(lcall, {}).setdefault(rcall, i)
                self.backward.setdefault(rcall, {}).setdefault(lcall, i)

    def _output(self, i: int, j: int) -> bool | None:
        """True when both items are outputs, False when one is, None when neither is."""
        left_out = i in self.left_outputs
        right_out = j in self.right_outputs
        if left_out and right_out:
            return True
        return False if left_out or right_out else None

    def change(self, i: int, j: int) -> tuple[Change, str | None] | None:
        """The call_id change of a pair (None when there is none) and, for a mismatch, why."""
        litem, ritem = self.litems[i], self.ritems[j]
        if not _is_object(litem) or not _is_object(ritem):
            return None
        lcall, rcall = litem.get("call_id", _ABSENT), ritem.get("call_id", _ABSENT)
        on_left, on_right = lcall is not _ABSENT, rcall is not _ABSENT
        if not (on_left or on_right):
            return None
        if not (on_left and on_right) and not same_json(litem.type, ritem.type):
            return None  # as for every field: one-sided after a type change follows from it
        lcall, rcall = litem.call_id, ritem.call_id
        both_outputs = self._output(i, j)
        if both_outputs:
            problem = self._output_problem(i, j, lcall, rcall)
        elif same_json(lcall, rcall):
            return None
        elif both_outputs is False:
            problem = (
                f"{_label(self.litems[i])} pairs with right {_label(self.ritems[j])}: a call "
                "and an output are not a renaming of each other"
            )
        else:
            problem = self._renaming_problem(i, j, lcall, rcall)
        if problem is not None:
            return Change("call_id_mismatch", "/call_id", lcall, rcall, ERROR), problem
        if same_json(lcall, rcall):
            return None
        return Change("call_id_renamed", "/call_id", lcall, rcall, INFO), None

    def _output_problem(self, i: int, j: int, lcall: Any, rcall: Any) -> str | None:
        left_call = self.left_answers.get(i)
        right_call = self.right_answers.get(j)
        if left_call is not None and right_call is not None:
            if self.right_of.get(left_call) == right_call:
                return None
        elif left_call is None and right_call is None and same_json(lcall, rcall):
            return None
        label = _label(self.litems[i])
        there = f"its counterpart right #{j} (call_id {rcall!r})"
        if left_call is not None and right_call is not None:
            partner = self.left_of.get(right_call)
            tail = (
                f", the counterpart of #{partner}"
                if partner is not None
                else ", which has no counterpart on the left"
            )
            return (
                f"{label} answers {item_label(self.litems[left_call])}, but {there} answers "
                f"right {item_label(self.ritems[right_call])}{tail}"
            )
        if left_call is None and right_call is None:
            return (
                f"{label} follows no function_call on either side and {there} has another "
                "call_id: the renaming cannot be checked"
            )
        if right_call is None:
            assert left_call is not None
            return (
                f"{label} answers {item_label(self.litems[left_call])}, but {there} follows no "
                "function_call with that call_id on the right"
            )
        return (
            f"{label} follows no function_call with that call_id on the left, but {there} "
            f"answers right {item_label(self.ritems[right_call])}"
        )

    def _renaming_problem(self, i: int, j: int, lcall: Any, rcall: Any) -> str | None:
        label = f"{_label(self.litems[i])} call_id {lcall!r} became {rcall!r} (right #{j})"
        if not isinstance(lcall, str) or not isinstance(rcall, str):
            return f"{label}: a call_id that is not a string cannot be answered"
        for other, at in self.forward[lcall].items():
            if other != rcall:
                return (
                    f"{label}, but at #{at} ({self.litems[at].type_label}) the same call_id "
                    f"became {other!r} (right #{self.right_of[at]})"
                )
        for other, at in self.backward[rcall].items():
            if other != lcall:
                return (
                    f"{label}, but {rcall!r} also stands for {other!r} at #{at} "
                    f"({self.litems[at].type_label}, right #{self.right_of[at]})"
                )
        return None


def _format_neutral_verdicts(result: GateResult) -> list[Verdict]:
    """The verdicts, with a call the format records no status for judged as completed."""
    verdicts = [v.verdict for v in result.verdicts]
    memo: dict[tuple[str, str], Verdict] = {}
    for item in result.transcript.items:
        if verdicts[item.index] != Verdict.STATUS or not _status_not_recorded(item):
            continue
        raw = item.raw
        name, arguments = raw.get("name"), raw.get("arguments")
        key = (name, arguments) if isinstance(name, str) and isinstance(arguments, str) else None
        verdict = memo.get(key) if key is not None else None
        if verdict is None:
            verdict = gate_item({**raw, "status": "completed"}, result.toolset).verdict
            if key is not None:
                memo[key] = verdict
        verdicts[item.index] = verdict
    return verdicts


# --------------------------------------------------------------------------------------------
# Document changes and the whole diff


def _format_name(transcript: Transcript) -> str:
    """The format, with the envelopes of its records when the name does not say them."""
    envelopes = " + ".join(dict.fromkeys(str(g.envelope) for g in transcript.groups))
    envelopes = envelopes or str(Envelope.OPEN_RESPONSES)
    return (
        transcript.format
        if transcript.format == envelopes
        else f"{transcript.format} ({envelopes})"
    )


def document_changes(
    left: GateResult, right: GateResult, mode: DiffMode | str = DiffMode.REPLAY
) -> list[DocumentChange]:
    """Differences of the documents as a whole: their format and, in replay mode, the envelope.

    A right side the gate reports as another API's envelope (its `*_envelope` findings, code
    `<envelope>_envelope`) cannot be replayed as Open Responses: `foreign_envelope`, an error.
    """
    out: list[DocumentChange] = []
    left_format, right_format = left.transcript.format, right.transcript.format
    if left_format != right_format:
        message = (
            f"the format changed from {_format_name(left.transcript)} to "
            f"{_format_name(right.transcript)}"
        )
        out.append(DocumentChange("format_changed", INFO, left_format, right_format, message))
    if DiffMode(mode) is DiffMode.REPLAY:
        envelopes: dict[str, list[Any]] = {}
        for finding in right.findings:
            if finding.code.endswith("_envelope"):
                envelopes.setdefault(finding.code, []).append(finding)
        for code, findings in envelopes.items():
            more = f" (+{_plural(len(findings) - 1, 'more record')})" if len(findings) > 1 else ""
            out.append(
                DocumentChange(
                    "foreign_envelope",
                    ERROR,
                    None,
                    code.removesuffix("_envelope"),
                    f"right side: {findings[0].message}{more}",
                    right_items=tuple(sorted({i for f in findings for i in f.items})),
                )
            )
    return out


def diff_results(
    left: GateResult, right: GateResult, *, mode: DiffMode | str = DiffMode.REPLAY
) -> DiffResult:
    """Align two gated transcripts, list the changes of every pair and decide on replay."""
    mode = DiffMode(mode)
    with paused_gc():
        return _diff_results(left, right, mode)


def _diff_results(left: GateResult, right: GateResult, mode: DiffMode) -> DiffResult:
    compare = mode is DiffMode.COMPARE
    litems, ritems = left.transcript.items, right.transcript.items
    shared: dict[bytes, bytes] = {}
    lside, rside = _Side.of(litems, shared), _Side.of(ritems, shared)
    del shared
    lkeys, rkeys = lside.keys, rside.keys
    if compare:
        lverdicts, rverdicts = _format_neutral_verdicts(left), _format_neutral_verdicts(right)
    else:
        lverdicts = [v.verdict for v in left.verdicts]
        rverdicts = [v.verdict for v in right.verdicts]
    index_pairs = _align(lside, rside, mode)
    call_ids = _CallIds(index_pairs, lside, rside, litems, ritems) if compare else None
    pairs: list[Pair] = []
    notes: dict[int, str] = {}
    for i, j in index_pairs:
        if j is None:
            assert i is not None
            pairs.append(Pair(i, None, (one_side_change(litems[i], "left"),)))
            continue
        if i is None:
            pairs.append(Pair(None, j, (one_side_change(ritems[j], "right"),)))
            continue
        lcall, rcall = lside.call_ids[i], rside.call_ids[j]
        if (
            lkeys[i] == rkeys[j]
            and (compare or (type(lcall) is type(rcall) and lcall == rcall))
            and lverdicts[i] == rverdicts[j]
        ):
            # The common case, decided on bytes: nothing but the id (and in compare mode the
            # call_id, checked below) differs.
            changes: tuple[Change, ...] = ()
        else:
            changes = pair_changes(litems[i], ritems[j], lverdicts[i], rverdicts[j], mode=mode)
        if call_ids is not None and (found := call_ids.change(i, j)) is not None:
            change, note = found
            at = 1 if changes and changes[0].pointer == "/type" else 0
            changes = (*changes[:at], change, *changes[at:])
            if note is not None:
                notes[len(pairs)] = note
        pairs.append(Pair(i, j, changes))
    documents = document_changes(left, right, mode)
    details = [Reason(d.code, d.message, None) for d in documents if d.severity == ERROR] + [
        Reason(code, text, number)
        for number, pair in enumerate(pairs)
        if pair.changes and pair.blocking
        for code, text in _reasons(pair, litems, ritems, notes.get(number))
    ]
    reasons = tuple(r.text for r in details)
    return DiffResult(
        left,
        right,
        tuple(pairs),
        not reasons,
        reasons,
        mode=mode,
        document_changes=tuple(documents),
        reason_details=tuple(details),
    )


def diff_transcripts(
    left: Transcript,
    right: Transcript,
    extra_tools: Mapping[str, Tool] | None = None,
    *,
    mode: DiffMode | str = DiffMode.REPLAY,
) -> DiffResult:
    """Gate both transcripts (with the same extra tools) and diff the results."""
    return diff_results(
        gate_transcript(left, extra_tools), gate_transcript(right, extra_tools), mode=mode
    )


__all__ = [
    "CALL_TYPES",
    "VOLATILE_FIELDS",
    "Change",
    "CodeGroup",
    "DiffMode",
    "DiffResult",
    "DiffVerdict",
    "DocumentChange",
    "Outcome",
    "Pair",
    "Reason",
    "align_items",
    "arguments_changes",
    "canonical_json",
    "content_key",
    "diff_results",
    "diff_transcripts",
    "display_order",
    "document_changes",
    "json_changes",
    "one_side_change",
    "pair_changes",
    "plain_text",
    "same_json",
    "signature",
    "type_change",
]
