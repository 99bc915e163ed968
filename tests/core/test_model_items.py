"""An item made from a parsed value reads its hot members and their presence bits as the
model defines them (`Item.__post_init__`), and `with_status` is that item made again."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.model import (
    HAS_STATUS,
    HAS_TYPE,
    HOT_MEMBERS,
    TYPE_NULL,
    Conversion,
    Item,
    Origin,
)

_VALUES = st.one_of(st.none(), st.text(max_size=5), st.integers(), st.booleans())
_KEYS = st.sampled_from(["type", *HOT_MEMBERS, "arguments", "content"])


def _expected(raw: dict[str, Any]) -> tuple[Any, ...]:
    """The members and bits, told here from the definitions: a member absent is None."""
    mask = 0
    if "type" in raw:
        mask = HAS_TYPE | TYPE_NULL if raw["type"] is None else HAS_TYPE
    for key, bit in HOT_MEMBERS.items():
        if key in raw:
            mask |= bit
    kind = raw.get("type")
    if kind is None:
        kind = "message" if "role" in raw else "item_reference" if "id" in raw else None
    return (kind, *(raw.get(key) for key in HOT_MEMBERS), mask)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_KEYS, _VALUES, max_size=8))
def test_an_items_hot_members_are_read_from_its_value(raw: dict[str, Any]) -> None:
    item = Item(0, raw, Origin("f", 1, ""))
    made = (item.type, *(getattr(item, key) for key in HOT_MEMBERS), item._mask)
    assert made == _expected(raw)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_KEYS, _VALUES, max_size=8).filter(lambda raw: "status" not in raw))
def test_an_item_with_a_status_added_is_the_item_made_from_that_value(
    raw: dict[str, Any],
) -> None:
    call = Item(3, raw, Origin("f", 2, "/payload"), 0)
    conversion = Conversion("codex", raw, (), "Codex")
    answered = call.with_status({**raw, "status": "completed"}, conversion)
    fresh = Item(
        3, {**raw, "status": "completed"}, Origin("f", 2, "/payload"), 0, call.envelope, conversion
    )
    assert answered == fresh and answered._mask == fresh._mask
    assert answered._mask & HAS_STATUS and answered.status == "completed"
    assert call.status is None and call.conversion is None  # the first item is left as it was
