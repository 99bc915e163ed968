"""The changes between two aligned items, and the verdicts compare mode weighs them by."""

from __future__ import annotations

import re
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
from inspector.core.gate import GateResult, ToolSet, Verdict, gate_item
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
#: Provider-prefixed types that hold a model's thinking (`anthropic:thinking`, `google:thought…`).
_THINKING = re.compile(r"thinking|thought|reasoning")


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
#: The instruction roles: Open Responses' `developer` is Chat Completions' and Anthropic's `system`.
_INSTRUCTIONS = ("system", "developer")


def _instructions(left: Any, right: Any) -> bool:
    """Whether both roles are instruction roles (values from files: any JSON, compared by ==)."""
    return left in _INSTRUCTIONS and right in _INSTRUCTIONS


_OWN_CODE = frozenset({"type", "arguments", "output", "content"} | {f for f, _, _ in _FIELD_CODES})


def _status_not_recorded(item: Item, history: frozenset[int] = frozenset()) -> bool:
    """Whether an item has no status because its record's format carries none, or because it
    is a call sent back as history with its answer (`history`: the gate's status_not_recorded)."""
    if item.envelope == Envelope.OPEN_RESPONSES and item.index not in history:
        return False
    return _is_object(item) and item.get("status", _ABSENT) is _ABSENT


def _is_object(item: Item) -> bool:
    """Whether the item's value is a JSON object (a lean item's always is)."""
    return item.lean_source is not None or isinstance(item.raw, dict)


#: The one-key objects a provider requires around a tool result, unwrapped before comparing.
#: Gemini's FunctionResponse.response "is a JSON object"; callers put the result under "output"
#: or "result" (and a failure under "error"): https://ai.google.dev/api/caching#FunctionResponse
RESULT_WRAPPERS: frozenset[str] = frozenset({"output", "result"})


def _result_value(value: Any) -> Any:
    """A tool result as a value: parsed when it is JSON text, out of a required one-key wrapper."""
    if isinstance(value, str):
        try:
            value = parse_arguments(value)
        except ArgumentsError:
            return value
    text = plain_text(value)
    if text is not None and not isinstance(value, str):
        return _result_value(text)
    if isinstance(value, dict) and len(value) == 1 and next(iter(value)) in RESULT_WRAPPERS:
        return _result_value(next(iter(value.values())))
    return value


def _same_result(left: Any, right: Any) -> bool:
    """Whether two tool results say the same, whatever their text, parts or wrapper."""
    return same_json(_result_value(left), _result_value(right))


def _text_or_changes(
    code: str, pointer: str, left: Any, right: Any, compare: bool, per_pointer: bool
) -> list[Change]:
    """Changes of a text-bearing field; in compare mode the same text in another shape is info.

    Compare mode judges the structural record: a tool result that differs is an error (the
    runs diverged), a message worded otherwise is information (two models never write the
    same words).
    """
    if same_json(left, right):
        return []
    severity = WARNING
    if compare:
        text = plain_text(left)
        same = text is not None and text == plain_text(right)
        if same or (code == "output_changed" and _same_result(left, right)):
            reformatted = code.replace("_changed", "_reformatted")
            return [Change(reformatted, pointer, left, right, INFO)]
        severity = ERROR if code == "output_changed" else INFO
    if per_pointer:
        return json_changes(code, pointer, left, right, severity)
    return [Change(code, pointer, left, right, severity)]


def pair_changes(
    left: Item,
    right: Item,
    left_verdict: Verdict,
    right_verdict: Verdict,
    *,
    mode: DiffMode | str = DiffMode.REPLAY,
    history: tuple[frozenset[int], frozenset[int]] = (frozenset(), frozenset()),
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

    unrecorded = compare and (
        _status_not_recorded(left, history[0]) or _status_not_recorded(right, history[1])
    )
    for key, code, severity in _FIELD_CODES:
        if not compared(key) or (compare and key == "call_id"):
            continue
        if same_json(lraw.get(key), rraw.get(key)):
            continue
        if key == "status" and unrecorded:
            code, severity = "status_not_recorded", INFO
        elif compare and key == "name":
            severity = ERROR  # another tool called: the runs diverged
        elif compare and key == "role" and _instructions(lraw.get(key), rraw.get(key)):
            severity = INFO  # the instruction role each API names its own way
        elif compare and key == "status" and not _is_call_type(left.type):
            severity = INFO  # a message's or reasoning's status is how it was written down
        out.append(Change(code, "/" + key, lraw.get(key), rraw.get(key), severity))
    if compared("arguments"):
        found = arguments_changes(lraw.get("arguments"), rraw.get("arguments"))
        if compare:  # other arguments: the runs diverged
            found = [
                Change(c.code, c.pointer, c.left, c.right, ERROR) if c.severity == WARNING else c
                for c in found
            ]
        out.extend(found)
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


def is_filler(item: Item) -> bool:
    """Whether an item says nothing another run must also say: reasoning or thinking, an empty
    native block, an assistant's message (compare mode lists them one-sided as information)."""
    kind = item.type
    if not isinstance(kind, str):
        return False
    if kind == "reasoning" or (":" in kind and _THINKING.search(kind)):
        return True
    if kind == "message" and _is_object(item):
        # An assistant's words are the model's wording, not the structural record.
        content = item.get("content")
        empty = content in (None, "", []) or plain_text(content) == ""
        return empty or item.get("role") == "assistant"
    return False


def one_side_change(item: Item, side: str, mode: DiffMode | str = DiffMode.REPLAY) -> Change:
    """The change for an item with no partner: only_left or only_right.

    A call or output on one side only is an error; in compare mode reasoning, thinking and empty
    blocks present in one run only are information, any other item a warning.
    """
    severity = ERROR if _is_call_type(item.type) else WARNING
    if severity == WARNING and DiffMode(mode) is DiffMode.COMPARE and is_filler(item):
        severity = INFO
    if side == "left":
        return Change("only_left", "", item.raw, None, severity)
    return Change("only_right", "", None, item.raw, severity)


def _format_neutral_verdicts(
    result: GateResult, tools: ToolSet | None = None, history: frozenset[int] = frozenset()
) -> list[Verdict]:
    """The verdicts compare mode weighs: a call whose status is not recorded (by its format, or
    as answered history) judged as completed, and with `tools` (those known on either side) a
    call whose schema only the other file holds judged against it."""
    verdicts = [v.verdict for v in result.verdicts]
    memo: dict[tuple[str, str], Verdict] = {}
    toolset = tools if tools is not None else result.toolset
    for item in result.transcript.items:
        verdict = verdicts[item.index]
        unrecorded = verdict == Verdict.STATUS and _status_not_recorded(item, history)
        unknown = verdict == Verdict.UNKNOWN_TOOL and toolset is not result.toolset
        if not (unrecorded or unknown):
            continue
        raw = item.raw
        name, arguments = raw.get("name"), raw.get("arguments")
        key = (name, arguments) if isinstance(name, str) and isinstance(arguments, str) else None
        found = memo.get(key) if key is not None else None
        if found is None:
            found = gate_item({**raw, "status": "completed"}, toolset).verdict
            if key is not None:
                memo[key] = found
        verdicts[item.index] = found
    return verdicts
