"""Open Responses records: requests, responses, compaction results, item lists, items, Batch."""

from __future__ import annotations

from typing import Any

from inspector.core.formats._records import (
    CERTAIN,
    Builder,
    Detection,
    Record,
    add_items,
    describe,
)
from inspector.core.model import Origin, join_pointer

#: Item types that mark a line as an item at once (most lines of a big log).
_PLAIN_ITEM_TYPES = frozenset(
    {"function_call", "function_call_output", "reasoning", "item_reference", "compaction"}
)
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
        return 50, "items"
    if not isinstance(obj, dict):
        return None
    kind = obj.get("type")
    if (
        type(kind) is str
        and kind in _PLAIN_ITEM_TYPES
        and "stop_reason" not in obj
        and "object" not in obj
    ):
        return CERTAIN, "item"
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
    if "type" in obj or "role" in obj or "id" in obj:
        return 10, "item"
    return None


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
    group = b.group("item_list", Origin(b.path, record.line, record.base))
    add_items(b, record, record.obj["data"], ("data",), group)


def _add_array(b: Builder, record: Record) -> None:
    group = b.group("items", Origin(b.path, record.line, record.base))
    add_items(b, record, record.obj, (), group)


def _add_single_item(b: Builder, record: Record) -> None:
    # Consecutive bare items (one per JSONL line) form one group, as they form one list.
    group = b.open_item_group
    if group is None:
        group = b.group("items", Origin(b.path, record.line, record.base))
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
