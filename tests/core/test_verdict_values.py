"""Verdicts and schema issues are frozen values: equal by content, hashable, immutable.

They are msgspec structs (made in C); these are the properties the dataclasses they replace had.
Findings stay dataclasses (tests/codes_seen.py wraps their __init__ to see every code made).
"""

from __future__ import annotations

import pickle

import pytest

from inspector.core.gate import Finding, ItemVerdict, Severity, Verdict
from inspector.core.model import Item
from inspector.core.schema import SchemaIssue


def _item(index: int) -> Item:
    raw = {"type": "function_call", "name": "f", "arguments": "{}", "call_id": f"c{index}"}
    return Item(index, raw, None)


def test_a_verdict_is_equal_whatever_item_it_reads_its_arguments_from() -> None:
    one = ItemVerdict(Verdict.OK, "fine", tool="f", source=_item(0))
    other = ItemVerdict(Verdict.OK, "fine", tool="f", source=_item(1))
    assert one == other
    assert hash(one) == hash(other)
    assert one != ItemVerdict(Verdict.OK, "fine", tool="g", source=_item(0))
    assert one != ItemVerdict(Verdict.STATUS, "fine", tool="f")
    assert one.parsed == {}


def test_a_verdict_repr_leaves_out_its_arguments_and_their_item() -> None:
    verdict = ItemVerdict(Verdict.OK, "fine", tool="f", given={"secret": 1}, source=_item(0))
    text = repr(verdict)
    assert text.startswith("ItemVerdict(verdict=<Verdict.OK: 'ok'>, detail='fine', errors=()")
    assert "secret" not in text and "source" not in text and "given" not in text


@pytest.mark.parametrize(
    "value",
    [
        ItemVerdict(Verdict.ARGUMENTS_SCHEMA, "bad", (SchemaIssue("/a", "/p", "type", "no"),)),
        SchemaIssue("/a", "/properties/a/type", "type", "not a string"),
    ],
)
def test_values_are_frozen_hashable_and_pickled_whole(value: object) -> None:
    first = type(value).__struct_fields__[0]
    with pytest.raises(AttributeError):
        setattr(value, first, "other")
    assert {value: 1}[value] == 1
    assert pickle.loads(pickle.dumps(value)) == value


def test_a_finding_equals_only_a_finding_of_its_own_class() -> None:
    finding = Finding("orphan_output", Severity.ERROR, (1,), "m")
    assert finding == Finding("orphan_output", Severity.ERROR, (1,), "m")
    assert finding != ("orphan_output", Severity.ERROR, (1,), "m")
    assert finding.to_json()["items"] == [1]
