"""The changes between two aligned items, and the verdicts compare mode weighs them by."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from inspector.core.diff.keys import _is_call_type, plain_text
from inspector.core.diff.values import (
    ERROR,
    INFO,
    VOLATILE_FIELDS,
    WARNING,
    Change,
    DiffMode,
)
from inspector.core.gate import GateResult, Verdict, gate_item
from inspector.core.jsonio import parse_arguments
from inspector.core.model import (
    PORTABLE_CORE,
    ArgumentsError,
    Envelope,
    Item,
    join_pointer,
    json_kind,
)

_ABSENT: Any = object()


def _kind(value: Any) -> str:
    return "absent" if value is _ABSENT else json_kind(value)


def _present(value: Any) -> Any:
    return None if value is _ABSENT else value


def _differences(pointer: str, left: Any, right: Any) -> Iterator[tuple[str, Any, Any]]:
    """Each added, removed or changed JSON Pointer between two JSON values, in document order."""
    # An explicit stack, in document order: parsed arguments may nest deeper than recursion.
    stack: list[tuple[str, Any, Any]] = [(pointer, left, right)]
    while stack:
        here, a, b = stack.pop()
        kind = _kind(a)
        if kind != _kind(b):
            yield here, _present(a), _present(b)
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
            yield here, a, b


def json_changes(code: str, pointer: str, left: Any, right: Any, severity: str) -> list[Change]:
    """One change per added, removed or changed JSON Pointer between two JSON values.

    Numbers compare by value (1 equals 1.0, as in JSON Schema); booleans are not numbers.
    """
    return [Change(code, here, a, b, severity) for here, a, b in _differences(pointer, left, right)]


def same_json(left: Any, right: Any) -> bool:
    """Whether two JSON values are equal (numbers by value, booleans apart from numbers)."""
    # Stops at the first difference, and builds no Change: an equality test is not a change.
    return next(_differences("", left, right), None) is None


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
    package docstring); the verdicts given should then be the format-neutral ones.
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
