"""The diff: alignment, every change code, the replay decision, on real item data and samples."""

from __future__ import annotations

import json
from types import MappingProxyType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core.diff import (
    Change,
    DiffResult,
    Pair,
    align_items,
    diff_results,
    diff_transcripts,
    display_order,
    json_changes,
)
from inspector.core.diff import match as diff_module
from inspector.core.formats import load_path, load_tools
from inspector.core.gate import gate_transcript
from inspector.core.model import Item, Origin, Transcript
from inspector.core.report.diff_json import diff_document
from tests.conftest import SAMPLES

TOOLS = load_tools(SAMPLES / "tools" / "sales-tools.json")


def transcript(raws: list, path: str = "<test>") -> Transcript:
    """A transcript of raw items, with the sales tools."""
    items = tuple(Item(i, raw, Origin(path, None, f"/{i}")) for i, raw in enumerate(raws))
    return Transcript(path, "items", items, tools=MappingProxyType(dict(TOOLS)))


def diff(left: list, right: list) -> DiffResult:
    return diff_transcripts(transcript(left), transcript(right))


def pairs_of(result: DiffResult) -> list[tuple[int | None, int | None]]:
    return [(p.left, p.right) for p in result.pairs]


def codes(pair: Pair) -> list[tuple[str, str]]:
    return [(c.code, c.pointer) for c in pair.changes]


def fc(
    call_id: str,
    name: str = "get_latest_sales_report",
    arguments: str = '{"region":"apac"}',
    status: str = "completed",
    item_id: str = "fc_1",
) -> dict:
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": status,
    }


def output(call_id: str, text: str = "sales report for apac") -> dict:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


def message(text: str, role: str = "assistant", item_id: str = "msg_1") -> dict:
    return {
        "type": "message",
        "id": item_id,
        "role": role,
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


USER = {"type": "message", "role": "user", "content": "How did APAC do in Q3?"}
WEB_SEARCH = {
    "type": "openai:web_search_call",
    "id": "ws_1",
    "status": "completed",
    "action": {"type": "search", "query": "apac news"},
}


@pytest.fixture(scope="module")
def providers() -> DiffResult:
    return diff_transcripts(
        load_path(SAMPLES / "providers" / "provider-a.json"),
        load_path(SAMPLES / "providers" / "provider-b.json"),
    )


def sample(name: str, tools: bool = False) -> DiffResult:
    folder = SAMPLES / "diff" / name
    left, right = sorted(p for p in folder.iterdir() if p.stem in ("left", "right"))
    return diff_transcripts(load_path(left), load_path(right), TOOLS if tools else None)


# --------------------------------------------------------------------------------------------
# The provider sample pair


def test_providers_alignment(providers):
    assert pairs_of(providers) == [
        (0, 0),
        (1, 1),
        (2, 2),
        (3, 3),
        (4, 4),
        (5, 5),
        (6, None),
        (7, 6),
        (8, 7),
        (9, 8),
    ]


def test_providers_search_call_became_namespaced(providers):
    pair = providers.pair_for_left(5)
    assert pair is providers.pair_for_right(5)
    assert pair.changes[0] == Change(
        "became_namespaced", "/type", "function_call", "openai:web_search_call", "error"
    )
    assert pair.type_changed and pair.changed and pair.blocking
    # Fields only a function_call has follow from the type change and are not listed.
    assert codes(pair) == [("became_namespaced", "/type"), ("verdict_changed", "")]


def test_providers_call_id_changed_pairs_by_alignment(providers):
    pair = providers.pair_for_left(7)
    assert pair.right == 6
    assert pair.changes == (Change("call_id_changed", "/call_id", "call_129", "call_999", "error"),)


def test_providers_decision(providers):
    assert not providers.replay_safe
    assert providers.reasons == (
        "#5 function_call search_web became provider-prefixed openai:web_search_call (right #5)",
        "#6 function_call_output (call_id 'call_124') exists only on the left",
        "#7 function_call get_latest_sales_report call_id changed from 'call_129' to "
        "'call_999' (right #6)",
    )


def test_providers_reformatted_summary_is_info(providers):
    pair = providers.pair_for_left(9)
    assert codes(pair) == [("arguments_reformatted", "/arguments")]
    assert not pair.changed
    assert providers.summary() == {
        "same": 4,
        "info": 2,
        "changed": 3,
        "only_left": 1,
        "only_right": 0,
    }


# --------------------------------------------------------------------------------------------
# Change codes on item data


def only_pair(left_raw, right_raw) -> Pair:
    result = diff([left_raw], [right_raw])
    (pair,) = result.pairs
    return pair


def test_type_changed_between_portable_types():
    pair = only_pair(output("call_1"), message("sales report for apac"))
    assert pair.changes[0] == Change(
        "type_changed", "/type", "function_call_output", "message", "warning"
    )


def test_became_portable():
    pair = only_pair(WEB_SEARCH, fc("call_1"))
    assert pair.changes[0].code == "became_portable"
    assert (pair.changes[0].left, pair.changes[0].right) == (
        "openai:web_search_call",
        "function_call",
    )


def test_became_non_portable_regression_sample():
    result = sample("regressions")
    pair = result.pair_for_left(3)
    assert pair.changes[0] == Change(
        "became_non_portable", "/type", "function_call", "web_search_call", "error"
    )
    assert (
        "#3 function_call search_web became web_search_call, which is outside the Open Responses "
        "core and has no provider prefix (right #3)" in result.reasons
    )


def test_prefixed_to_other_prefix_is_type_changed():
    other = {**WEB_SEARCH, "type": "acme:search_call"}
    assert only_pair(WEB_SEARCH, other).changes[0].code == "type_changed"


def test_name_role_status_output_changes_from_regressions():
    result = sample("regressions")
    assert result.pair_for_left(0).changes == (
        Change("role_changed", "/role", "developer", "system", "warning"),
    )
    assert result.pair_for_left(6).changes[0] == Change(
        "name_changed", "/name", "send_summary", "email_summary", "warning"
    )
    assert result.pair_for_left(5).changes[0] == Change(
        "status_changed", "/status", "completed", "incomplete", "warning"
    )
    assert result.pair_for_left(2).changes == (
        Change(
            "output_changed",
            "/output",
            "sales report for apac",
            "sales report for global",
            "warning",
        ),
    )


def test_arguments_changed_per_pointer():
    left = fc("call_1", "send_summary", '{"to":"dana@example.com","body":"up","cc":["a","b"]}')
    right = fc("call_1", "send_summary", '{"to":"lee@example.com","cc":["a"],"bcc/x~":true}')
    changes = [(c.code, c.pointer, c.left, c.right) for c in only_pair(left, right).changes]
    assert changes == [
        ("arguments_changed", "/arguments/to", "dana@example.com", "lee@example.com"),
        ("arguments_changed", "/arguments/body", "up", None),
        ("arguments_changed", "/arguments/cc/1", "b", None),
        ("arguments_changed", "/arguments/bcc~1x~0", None, True),
        ("verdict_changed", "", "ok", "arguments_schema"),  # body is required
    ]


def test_arguments_that_do_not_parse_give_one_raw_change():
    result = sample("regressions")
    changes = result.pair_for_left(5).changes
    assert (
        Change("arguments_changed", "/arguments", '{"region":"emea"}', '{"region":"em', "warning")
        in changes
    )
    assert [c.code for c in changes].count("arguments_changed") == 1


def test_arguments_booleans_are_not_numbers_but_numbers_compare_by_value():
    left = fc("call_1", "search_web", '{"query":"apac","max_results":1}')
    as_float = fc("call_1", "search_web", '{"query":"apac","max_results":1.0}')
    as_bool = fc("call_1", "search_web", '{"query":"apac","max_results":true}')
    assert codes(only_pair(left, as_float))[0] == ("arguments_reformatted", "/arguments")
    assert ("arguments_changed", "/arguments/max_results") in codes(only_pair(left, as_bool))


def test_arguments_reformatted_is_info_and_safe():
    result = sample("reformatted-arguments")
    assert result.replay_safe and result.reasons == ()
    first = result.pair_for_left(0)
    assert first.changes[0].code == "arguments_reformatted"
    assert first.changes[0].severity == "info"
    assert not first.changed


def test_extension_field_changed_is_info():
    result = sample("reformatted-arguments")
    assert result.pair_for_left(0).changes[1] == Change(
        "extension_field_changed", "/openrouter:provider", "OpenAI", "Provider-B", "info"
    )


def test_content_changed_per_part_and_whole():
    parts = only_pair(message("APAC grew 6.2%."), message("APAC grew 6%."))
    assert parts.changes == (
        Change("content_changed", "/content/0/text", "APAC grew 6.2%.", "APAC grew 6%.", "warning"),
    )
    as_string = {**message("x"), "content": "APAC grew 6.2%."}
    whole = only_pair(message("APAC grew 6.2%."), as_string)
    assert codes(whole) == [("content_changed", "/content")]


def test_role_change_is_its_own_code():
    pair = only_pair(USER, {**USER, "role": "developer"})
    assert pair.changes == (Change("role_changed", "/role", "user", "developer", "warning"),)


def test_field_changed_for_other_fields():
    left = {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "a"}]}
    right = {**left, "id": "rs_2", "summary": []}
    assert only_pair(left, right).changes == (
        Change("field_changed", "/summary", left["summary"], [], "info"),
    )


def test_verdict_changed_severity_follows_direction():
    worse = only_pair(fc("call_1"), fc("call_1", arguments='{"region":"global"}'))
    assert worse.changes[-1] == Change("verdict_changed", "", "ok", "arguments_schema", "error")
    better = only_pair(fc("call_1", arguments='{"region":"global"}'), fc("call_1"))
    assert better.changes[-1] == Change("verdict_changed", "", "arguments_schema", "ok", "warning")
    assert not better.blocking


def test_item_id_is_ignored():
    left = [USER, fc("call_1", item_id="fc_a"), output("call_1"), message("done", item_id="m_a")]
    right = [USER, fc("call_1", item_id="fc_b"), output("call_1"), message("done", item_id="m_b")]
    result = diff(left, right)
    assert all(p.changes == () for p in result.pairs)
    assert result.replay_safe


@pytest.mark.parametrize(
    ("extra_left", "extra_right", "code"),
    [
        ({"x:flag": True}, {"x:flag": 1}, "extension_field_changed"),
        ({"meta": {"a": [1, 2]}}, {"meta": {"a": [1, 3]}}, "field_changed"),
        ({}, {"meta": None, "x:note": "b"}, "extension_field_changed"),
        ({"status_detail": "x"}, {}, "field_changed"),
    ],
)
def test_calls_paired_by_call_id_compare_every_field(extra_left, extra_right, code):
    # Pairs found by call_id skip the content keys; their quick check must still be exact.
    pair = only_pair({**fc("call_1"), **extra_left}, {**fc("call_1"), **extra_right})
    assert [c.code for c in pair.changes] == [code]


def test_shorthand_message_equals_typed_message():
    shorthand = {"role": "user", "content": "How did APAC do in Q3?"}
    assert only_pair(shorthand, USER).changes == ()


def test_only_left_and_only_right_severity():
    result = diff([USER, message("a"), fc("call_1")], [USER])
    by_left = {p.left: p for p in result.pairs}
    assert by_left[1].changes[0].code == "only_left"
    assert by_left[1].changes[0].severity == "warning"
    assert by_left[2].changes[0] == Change("only_left", "", fc("call_1"), None, "error")
    reverse = diff([USER], [USER, output("call_7")])
    assert reverse.pairs[1].changes == (Change("only_right", "", None, output("call_7"), "error"),)


def test_non_object_items_are_compared_whole():
    pair = only_pair("not an item", "another string")
    assert codes(pair) == [("item_changed", "")]


def test_change_json_shape():
    change = Change("call_id_changed", "/call_id", "call_129", "call_999", "error")
    assert change.to_json() == {
        "code": "call_id_changed",
        "pointer": "/call_id",
        "left": "call_129",
        "right": "call_999",
        "severity": "error",
    }


def test_json_changes_survive_deep_nesting():
    deep_left: object = "a"
    deep_right: object = "b"
    for _ in range(5000):
        deep_left, deep_right = [deep_left], [deep_right]
    (change,) = json_changes("content_changed", "/content", deep_left, deep_right, "warning")
    assert change.pointer == "/content" + "/0" * 5000


# --------------------------------------------------------------------------------------------
# Replay decision: each reason


def test_reason_verdict_ok_to_not_ok():
    result = diff([fc("call_1")], [fc("call_1", arguments='{"region":"global"}')])
    assert result.reasons == (
        "#0 function_call get_latest_sales_report is ok on the left but arguments_schema on the "
        "right (right #0)",
    )


def test_reason_only_on_one_side_for_calls_and_outputs():
    result = sample("extra-call", tools=True)
    assert result.reasons == (
        "right #3 function_call search_web exists only on the right",
        "right #4 function_call_output (call_id 'call_302') exists only on the right",
    )
    assert not result.replay_safe


def test_message_on_one_side_does_not_block():
    result = diff([USER, message("Done.")], [USER])
    assert result.pairs[1].changed and result.replay_safe


def test_call_id_changed_blocks_even_when_consistent():
    result = diff([fc("call_1"), output("call_1")], [fc("call_9"), output("call_9")])
    assert [c.code for p in result.pairs for c in p.changes] == ["call_id_changed"] * 2
    assert len(result.reasons) == 2 and not result.replay_safe


# --------------------------------------------------------------------------------------------
# Alignment properties


def test_parallel_calls_pair_by_call_id_not_position():
    result = sample("reordered-parallel")
    assert pairs_of(result) == [(0, 0), (1, 2), (2, 1), (3, 4), (4, 3), (5, 5)]
    assert all(p.changes == () for p in result.pairs)
    assert result.replay_safe


def test_replaced_block_pairs_by_position():
    left = [
        USER,
        fc("call_1"),
        fc("call_2", "search_web", '{"query":"apac"}'),
        output("call_3"),
        message("done"),
    ]
    right = [USER, WEB_SEARCH, {**WEB_SEARCH, "id": "ws_2"}, message("done")]
    result = diff(left, right)
    assert pairs_of(result) == [(0, 0), (1, 1), (2, 2), (3, None), (4, 3)]
    assert result.pair_for_left(1).changes[0].code == "became_namespaced"


def test_renamed_call_meets_the_call_not_a_message():
    left = [USER, fc("call_1", "get_weather", "{}"), message("done")]
    right = [
        USER,
        message("Let me look that up."),
        fc("call_2", "lookup_order", "{}"),
        message("done"),
    ]
    result = diff(left, right)
    assert pairs_of(result) == [(0, 0), (None, 1), (1, 2), (2, 3)]
    assert codes(result.pair_for_left(1))[:2] == [
        ("call_id_changed", "/call_id"),
        ("name_changed", "/name"),
    ]


def test_repeated_history_pairs_occurrence_by_occurrence():
    # JSONL logs resend the history in every request: the same call_id recurs on both sides.
    turn = [USER, fc("call_1"), output("call_1")]
    left = turn + turn + [message("done")]
    right = turn + turn + [message("done")]
    assert pairs_of(diff(left, right)) == [(i, i) for i in range(7)]


def test_call_ids_numbered_per_response_do_not_mispair():
    # Some providers number calls per response (call_0 in every turn); when one side has an
    # extra turn's call, pairing the k-th call_0 with the k-th would cross turns.
    search = fc("call_0", "search_web", '{"query":"apac news"}')
    second = {"type": "message", "role": "user", "content": "And the news?"}
    left = [USER, fc("call_0"), output("call_0"), second, search, output("call_0", "news")]
    right = [USER, message("I cannot fetch reports."), second, search, output("call_0", "news")]
    result = diff(left, right)
    assert pairs_of(result) == [(0, 0), (1, 1), (2, None), (3, 2), (4, 3), (5, 4)]
    assert result.pair_for_left(4).changes == ()


def test_alignment_is_deterministic(providers):
    again = diff_transcripts(
        load_path(SAMPLES / "providers" / "provider-a.json"),
        load_path(SAMPLES / "providers" / "provider-b.json"),
    )
    assert again.pairs == providers.pairs and again.reasons == providers.reasons


def test_display_order_puts_right_only_after_left_only_run():
    shuffled = [(2, 2), (None, 1), (1, None), (0, 0), (None, 3)]
    assert display_order(shuffled, 3, 4) == [(0, 0), (1, None), (None, 1), (2, 2), (None, 3)]


def test_pair_lookup(providers):
    assert providers.pair_for_left(6).right is None
    assert providers.pair_for_left(99) is None and providers.pair_for_right(-1) is None
    # A pair without changes is made when asked for (Pairs holds two integers a pair), so it
    # is an equal value, not the same object; a pair with changes is held whole.
    for pair in providers.pairs:
        if pair.left is not None:
            assert providers.pair_for_left(pair.left) == pair
        if pair.right is not None:
            assert providers.pair_for_right(pair.right) == pair
        if pair.changes and pair.left is not None:
            assert providers.pair_for_left(pair.left) is pair


def test_many_equal_signatures_align_by_content():
    # 4,000 user messages share one signature; with an insertion, a change and a deletion in
    # the middle, the runs must anchor on content rather than fall to one big positional match.
    left = [{"role": "user", "content": f"question {n}"} for n in range(4000)]
    inserted = {"role": "user", "content": "an inserted question"}
    changed = {"role": "user", "content": "question 2000, rephrased"}
    right = [*left[:1000], inserted, *left[1000:2000], changed, *left[2001:3000], *left[3001:]]
    pairs = align_items(transcript(left).items, transcript(right).items)
    expected = [(i, i) for i in range(1000)] + [(None, 1000)]
    expected += [(i, i + 1) for i in range(1000, 3000)] + [(3000, None)]
    expected += [(i, i) for i in range(3001, 4000)]
    assert pairs == expected


def test_large_gap_beyond_difflib_limit_pairs_by_position(monkeypatch):
    monkeypatch.setattr(diff_module, "DIFFLIB_LIMIT", 4)
    left = [message(f"a{n}") for n in range(3)] + [fc("call_x")]
    right = [{**WEB_SEARCH, "id": f"ws_{n}"} for n in range(4)]
    assert pairs_of(diff(left, right)) == [(0, 0), (1, 1), (2, 2), (3, 3)]


# --------------------------------------------------------------------------------------------
# Properties

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

texts = st.sampled_from(["apac", "emea", "hi", "done", '{"region":"apac"}', "{"])
raw_items = st.one_of(
    st.builds(
        fc,
        st.sampled_from(["call_1", "call_2", "call_3"]),
        st.sampled_from(["get_latest_sales_report", "search_web"]),
        texts,
    ),
    st.builds(output, st.sampled_from(["call_1", "call_2", "call_4"]), texts),
    st.builds(message, texts, st.sampled_from(["user", "assistant"])),
    st.just(WEB_SEARCH),
    st.just({"type": "reasoning", "summary": []}),
    st.just({"type": ["not", "a", "type"], "call_id": "call_1"}),
)


@SETTINGS
@given(st.lists(raw_items, max_size=25))
def test_self_diff_has_no_changes(raws):
    # The other provider minted other ids; nothing else differs.
    renamed = [
        {**r, "id": f"b_{n}"} if isinstance(r, dict) and "id" in r else r
        for n, r in enumerate(raws)
    ]
    result = diff(raws, renamed)
    assert pairs_of(result) == [(i, i) for i in range(len(raws))]
    assert all(p.changes == () for p in result.pairs)
    assert result.replay_safe and result.reasons == ()


@SETTINGS
@given(st.lists(raw_items, max_size=25), st.lists(raw_items, max_size=25))
def test_every_item_is_in_exactly_one_pair(left, right):
    result = diff(left, right)
    lefts = [p.left for p in result.pairs if p.left is not None]
    rights = [p.right for p in result.pairs if p.right is not None]
    assert sorted(lefts) == list(range(len(left)))
    assert sorted(rights) == list(range(len(right)))
    assert lefts == sorted(lefts)  # display order follows the left side
    assert all(p.changes for p in result.pairs if p.left is None or p.right is None)
    assert result.replay_safe == (result.reasons == ())
    assert diff(left, right).pairs == result.pairs
    json.dumps(diff_document(result, "a", "b"))


def test_diff_results_accepts_gated_results():
    left, right = transcript([USER, fc("call_1")]), transcript([USER, fc("call_1")])
    result = diff_results(gate_transcript(left), gate_transcript(right))
    assert result.left.transcript is left and result.replay_safe


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_each_items_pair_is_found_whatever_the_order_of_the_pairs(data):
    # The positions are copied a run at a time when each item is met once and in order (the
    # left side, and the right one unless pairs cross); any other order is looked up one by one.
    from array import array

    from inspector.core.diff.result import _slots

    count = data.draw(st.integers(0, 12))
    shown = data.draw(st.permutations(range(count)))
    if data.draw(st.booleans()):
        shown = sorted(shown)
    # Mostly every item; sometimes one is in no pair.
    del shown[: data.draw(st.sampled_from([0, 0, 0, 1]))]
    held = list(shown)
    for _ in range(data.draw(st.integers(0, 4))):
        held.insert(data.draw(st.integers(0, len(held))), -1)
    expected = array("i", [-1]) * count
    for number, index in enumerate(held):
        if index >= 0:
            expected[index] = number
    assert _slots(array("i", held), count) == expected
