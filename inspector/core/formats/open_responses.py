"""Open Responses records: requests, responses, compaction results, item lists, items, Batch."""

from __future__ import annotations

from typing import Any

from inspector.core.formats._lean import PLAIN_ITEM_TYPES
from inspector.core.formats._records import (
    CERTAIN,
    Builder,
    Detection,
    Record,
    add_items,
    describe,
    item_lines,
)
from inspector.core.formats.spec import FormatSpec
from inspector.core.model import Note, Origin, Severity, join_pointer

_REQUEST_KEYS = frozenset({"tools", "instructions", "previous_response_id", "tool_choice"})

#: Record kind → the transcript's format name.
KINDS = {
    "request": "request",
    "response": "response",
    "compaction": "compaction",
    "item_list": "item_list",
    "items": "items",
    "item": "item",
    "batch": "batch",
}


def detect(obj: Any) -> Detection | None:
    """Score a parsed value as an Open Responses record, or None."""
    if isinstance(obj, list):
        # An item array holds objects; an array of strings or numbers is something else.
        if obj and not any(isinstance(x, dict) for x in obj):
            return None
        return 50, "items"
    if not isinstance(obj, dict):
        return None
    kind = obj.get("type")
    if (
        type(kind) is str
        and kind in PLAIN_ITEM_TYPES
        and "stop_reason" not in obj
        and "object" not in obj
    ):
        return CERTAIN, "item"
    if _not_a_transcript(obj):
        return None
    marker = obj.get("object")
    if marker == "response":
        return 90, "response"
    if marker == "response.compaction":
        return 90, "compaction"
    if marker == "list" and isinstance(obj.get("data"), list):
        return 90, "item_list"
    if "custom_id" in obj and ("body" in obj or "response" in obj):
        return 80, "batch"
    if "input" in obj or ("model" in obj and _REQUEST_KEYS & obj.keys() and "type" not in obj):
        return 60, "request"
    if (
        isinstance(kind, str)
        and (kind.startswith("response.") or kind == "error")
        and ("sequence_number" in obj or "response" in obj or "item_id" in obj or "delta" in obj)
    ):
        return 55, "stream_event"
    # An object that merely has an `id` is no item_reference (a Cohere response, a manifest
    # entry): only `{"type": "item_reference", "id": …}` or an object with only `id` is one.
    if "type" in obj or "role" in obj or obj.keys() == {"id"}:
        return 10, "item"
    return None


#: `object` values of Open Responses records; items carry no `object` at all.
_OBJECTS = frozenset({"response", "response.compaction", "list"})


def _not_a_transcript(obj: dict[str, Any]) -> bool:
    """Receipts and counters the API also returns: a deletion, a token count, a conversation.

    `{"object": "response.deleted", "deleted": true}`, `{"object": "response.input_tokens"}`,
    `{"type": "message_batch_deleted"}` and the like have an `id` or a `type` but hold no
    transcript; read as items they would pass for an item_reference or an unknown item.
    """
    marker = obj.get("object")
    if isinstance(marker, str) and marker not in _OBJECTS:
        return True
    if obj.get("deleted") is True:
        return True
    kind = obj.get("type")
    return isinstance(kind, str) and kind.endswith(("_deleted", ".deleted"))


def load(b: Builder, record: Record, kind: str) -> None:
    """Add one Open Responses record of the detected kind."""
    _LOADERS[kind](b, record)


def _add_item_array(b: Builder, record: Record, key: str, group: int, rule: str) -> None:
    """Add the items of the record's `key` array; anything else there (not null) is an error."""
    value = record.obj.get(key)
    if isinstance(value, list):
        add_items(b, record, value, (key,), group)
    elif value is not None:
        raise b.fail(f"{rule}, not {describe(value)}", record)


def _add_request(b: Builder, record: Record) -> None:
    obj = record.obj
    origin = Origin(b.path, record.line, record.base)
    previous = obj.get("previous_response_id")
    group = b.group(
        "request",
        origin,
        previous_response_id=previous if isinstance(previous, str) else None,
    )
    b.add_settings(record)
    data = obj.get("input")
    if isinstance(data, str):
        # A string input is shorthand for one user message.
        b.add_item(
            {"type": "message", "role": "user", "content": data},
            Origin(b.path, record.line, join_pointer(record.base, "input")),
            group,
        )
    else:
        _add_item_array(
            b, record, "input", group, "request input must be a string or an array of items"
        )


def _add_response(b: Builder, record: Record, kind: str = "response") -> None:
    obj = record.obj
    status = obj.get("status")
    rid = obj.get("id")
    previous = obj.get("previous_response_id")
    group = b.group(
        kind,
        Origin(b.path, record.line, record.base),
        status=status if isinstance(status, str) else None,
        incomplete_details=obj.get("incomplete_details"),
        error=obj.get("error"),
        response_id=rid if isinstance(rid, str) else None,
        previous_response_id=previous if isinstance(previous, str) else None,
    )
    b.add_settings(record)
    _add_item_array(b, record, "output", group, "response output must be an array")


def _add_item_list(b: Builder, record: Record) -> None:
    """An OpenAI list (`/responses/{id}/input_items`, conversation items), in conversation order.

    Those endpoints list newest first unless asked otherwise (`order`, default "desc":
    https://platform.openai.com/docs/api-reference/responses/input-items and
    .../conversations/list-items). The order is read from the list itself when it says: an
    `order` field kept by the recorder, `first_id`/`last_id` that name the other ends (the data
    was reversed after listing), or calls and outputs that come in one order; else the API's
    default is assumed. Either way the transcript says which order it took.
    """
    origin = Origin(b.path, record.line, record.base)
    group = b.group("item_list", origin)
    data = record.obj["data"]
    newest_first, why = _list_order(record.obj, data)
    lines = item_lines(record, ("data",), len(data))
    pointer = join_pointer(record.base, "data")
    positions = range(len(data) - 1, -1, -1) if newest_first else range(len(data))
    for i in positions:
        b.add_item(data[i], Origin(b.path, lines[i], join_pointer(pointer, i)), group)
    if len(data) > 1:
        taken = "newest first; shown reversed, oldest first" if newest_first else "oldest first"
        b.note(
            group,
            Note("list_order", Severity.INFO, f"{origin.describe()}: list read as {taken} ({why})"),
        )


def _list_order(obj: dict[str, Any], data: list[Any]) -> tuple[bool, str]:
    """Whether a list's data is newest first, and what says so."""
    order = obj.get("order")
    if order in ("asc", "desc"):
        return order == "desc", f"its order field is {order!r}"
    ids = [x.get("id") if isinstance(x, dict) else None for x in data]
    first, last = obj.get("first_id"), obj.get("last_id")
    # Listed data starts at first_id; a list whose first_id is its last element was reversed.
    reversed_listing = isinstance(first, str) and first != last and len(data) > 1
    if reversed_listing and first == ids[-1] and last == ids[0]:
        return False, "first_id names the last element: reversed from the newest-first listing"
    said = _pairs_say(data)
    if said is not None:
        return said, (
            "its outputs come before their calls" if said else "its calls come before their outputs"
        )
    return True, "the API's default order; nothing in the list says otherwise"


def _pairs_say(data: list[Any]) -> bool | None:
    """Whether calls and their outputs say newest first (True), oldest first (False), or neither."""
    calls: dict[Any, int] = {}
    outputs: dict[Any, int] = {}
    for position, raw in enumerate(data):
        if isinstance(raw, dict) and isinstance(raw.get("call_id"), str):
            kind = raw.get("type")
            if kind == "function_call" or (isinstance(kind, str) and kind.endswith("_call")):
                calls.setdefault(raw["call_id"], position)
            elif isinstance(kind, str) and kind.endswith("_call_output"):
                outputs.setdefault(raw["call_id"], position)
    before = sum(1 for c, p in outputs.items() if c in calls and p < calls[c])
    after = sum(1 for c, p in outputs.items() if c in calls and p > calls[c])
    if before == after:
        return None
    return before > after


def _add_array(b: Builder, record: Record) -> None:
    group = b.group("items", Origin(b.path, record.line, record.base))
    add_items(b, record, record.obj, (), group)


def item_group(b: Builder, line: int | None, base: str) -> int:
    """The group a bare item (a JSONL line) joins: consecutive bare items form one, as a list."""
    group = b.open_item_group
    if group is None:
        group = b.group("items", Origin(b.path, line, base))
    return group


def _add_single_item(b: Builder, record: Record) -> None:
    group = item_group(b, record.line, record.base)
    b.add_item(record.obj, Origin(b.path, record.line, record.base), group)
    b.open_item_group = group


def _add_batch(b: Builder, record: Record) -> None:
    obj = record.obj
    if isinstance(obj.get("body"), dict):
        b.add_record(b, Record(obj["body"], record.line, join_pointer(record.base, "body")))
        return
    response = obj.get("response")
    if isinstance(response, dict) and isinstance(response.get("body"), dict):
        pointer = join_pointer(record.base, "response", "body")
        b.add_record(b, Record(response["body"], record.line, pointer))
        return
    if obj.get("error") is not None:
        b.group("error", Origin(b.path, record.line, record.base), error=obj["error"])
        return
    raise b.fail("batch line has neither a request body nor a response body", record)


_LOADERS = {
    "request": _add_request,
    "response": _add_response,
    "compaction": lambda b, r: _add_response(b, r, "compaction"),
    "item_list": _add_item_list,
    "items": _add_array,
    "item": _add_single_item,
    "batch": _add_batch,
}


FORMAT = FormatSpec(
    name="open_responses",
    label="Open Responses",
    kinds=KINDS,
    detect=detect,
    load=load,
    accepts=(
        "an Open Responses request (with input), a response (object: response), an input-items "
        "list (object: list), an item, an array of items, JSONL of those, OpenAI Batch lines, a "
        "recorded SSE stream"
    ),
)
