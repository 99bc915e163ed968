"""Content keys: the fast path over lean items agrees with the key of each item's parsed value,
and a held item's value is never changed by making its key."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.diff.keys import _CANONICAL, _Side, content_key
from inspector.core.formats import load_path

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
) | st.floats(allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_canonical_texts_are_equal_exactly_when_orjsons_are(value):
    # Keys only compare: two values share msgspec's text exactly when they share orjson's
    # (the key of earlier rounds), although floats are spelled otherwise (1e16, 1e+16).
    try:
        expected = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return  # a lone surrogate: the fallback text decides
    text = _CANONICAL.encode(value)
    assert orjson.dumps(orjson.loads(text), option=orjson.OPT_SORT_KEYS) == expected
    assert _CANONICAL.encode(orjson.loads(expected)) == text


def _lines() -> list[str]:
    base = [
        {"type": "message", "id": "m1", "role": "user", "content": "hi"},
        {"role": "user", "content": "hi", "type": "message", "id": "m2"},  # other key order
        {"type": "function_call", "id": "f1", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call", "id": "f2", "call_id": "c2", "name": "f", "arguments": "{}"},
        {"type": "function_call", "id": "f3", "call_id": "c3", "name": "g", "arguments": "{}"},
        {"type": "message", "id": "m3", "role": "user", "content": "h\u00e9 \u2028 \ud83d\ude00"},
        {"type": "message", "id": "m4", "role": "user", "content": [1, 1.0, True, None]},
        {"type": "message", "id": "m5", "role": "user", "content": [1.0, 1, True, None]},
        {"type": "reasoning", "id": "r1", "summary": [{"type": "summary_text", "text": "x"}]},
    ]
    lines = [json.dumps(item) for item in base]
    # The same items written otherwise: spaces, escapes.
    lines += [json.dumps(item, indent=None, separators=(", ", " : ")) for item in base]
    lines += [json.dumps(item, ensure_ascii=True) for item in base]
    return lines


def test_lean_keys_agree_with_the_keys_of_the_parsed_values(tmp_path: Path):
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(_lines()) + "\n", encoding="utf-8")
    items = load_path(path).items
    assert all(item.lean_source is not None for item in items)
    side = _Side.of(items)
    digests = [content_key(item.raw) for item in items]
    for i in range(len(items)):
        for j in range(len(items)):
            assert (side.keys[i] == side.keys[j]) == (digests[i] == digests[j]), (i, j)
    # Alike apart from ids: the rewritten copies and the reordered message share a key.
    assert side.keys[0] == side.keys[1] == side.keys[9] == side.keys[18]
    assert side.keys[2] == side.keys[3] != side.keys[4]
    assert side.keys[6] != side.keys[7]  # 1, 1.0 and true are three values


def test_keys_of_held_values_leave_them_whole(tmp_path: Path):
    path = tmp_path / "items.json"
    path.write_text(json.dumps([json.loads(line) for line in _lines()[:5]]), encoding="utf-8")
    items = load_path(path).items
    before = [json.dumps(item.raw, sort_keys=True) for item in items]
    shared: dict[bytes, int] = {}
    left, right = _Side.of(items, shared), _Side.of(items, shared)
    assert list(left.keys) == list(right.keys)
    assert [json.dumps(item.raw, sort_keys=True) for item in items] == before


def test_a_diff_holds_a_pair_object_only_for_pairs_with_changes(tmp_path: Path):
    import gc

    from inspector.core.diff import Pair, Pairs, diff_results
    from inspector.core.gate import gate_transcript

    items = [{"type": "message", "role": "user", "content": f"m{i}"} for i in range(3000)]
    right = [*items[:1000], {"type": "message", "role": "user", "content": "new"}, *items[1000:]]
    paths = []
    for name, rows in (("a.jsonl", items), ("b.jsonl", right)):
        paths.append(tmp_path / name)
        paths[-1].write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    left_result, right_result = (gate_transcript(load_path(p)) for p in paths)
    gc.unfreeze()  # the loads froze what they made (model.paused_gc): count it all
    before = sum(isinstance(o, Pair) for o in gc.get_objects())
    result = diff_results(left_result, right_result)
    gc.unfreeze()
    held = sum(isinstance(o, Pair) for o in gc.get_objects()) - before
    assert isinstance(result.pairs, Pairs) and len(result.pairs) == 3001
    assert result.summary() == {
        "same": 3000,
        "info": 0,
        "changed": 0,
        "only_left": 0,
        "only_right": 1,
    }
    assert held == 1  # the right-only message; the 3,000 alike pairs are two integers each
    assert result.pairs[1000] == Pair(None, 1000, result.pairs[1000].changes)
    assert result.pairs[5] == Pair(5, 5, ()) and result.pair_for_right(1001) == Pair(1000, 1001, ())


def _write_jsonl(path: Path, lines: list[str]) -> list:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    items = load_path(path).items
    assert all(item.lean_source is not None for item in items)
    return list(items)


# Texts built to fool a blind text comparison: nested members and member names that end in
# "id", the top-level id written with an escape or a space, repeated members, ids that are
# not strings, the same value under another name.
_ID = st.sampled_from(["a", "b", "fc_1", "b_fc_1", 'q"x', "\u00e9", "id", "call_id"])
_MEMBER = st.sampled_from(
    [
        '"id":{id}',
        '"call_id":{id}',
        '"nested":{{"id":{id}}}',
        '"x\\"id":{id}',
        '"\\u0069d":{id}',
        '"id" :{id}',
        '"id": {id}',
        '"nested":{{"id": {id}}}',
        '"name":{id}',
        '"id":7',
        '"id":null',
        '"list":[{{"call_id":{id}}}]',
    ]
)


@st.composite
def _texts(draw) -> tuple[str, str]:
    """A left and a right item text of the same members, each member's value drawn per side
    (the same or another id), in the same order."""
    members = [('"type":"message"', None, None), ('"role":"user"', None, None)]
    # Mostly the two sides' own ids, so that a member elsewhere holds the very text replaced.
    first, second = draw(_ID), draw(_ID)
    values = st.sampled_from([(first, second), (first, first), (second, second), (second, first)])
    for _ in range(draw(st.integers(0, 4))):
        left, right = draw(values | st.tuples(_ID, _ID))
        members.insert(draw(st.integers(0, len(members))), (draw(_MEMBER), left, right))

    def text(side: int) -> str:
        parts = [t if a is None else t.format(id=json.dumps((a, b)[side])) for t, a, b in members]
        return "{" + ",".join(parts) + "}"

    return text(0), text(1)


@settings(max_examples=300, deadline=None)
@given(st.lists(_texts(), min_size=1, max_size=6))
def test_items_told_alike_by_their_text_have_equal_keys(tmp_path_factory, texts):
    from inspector.core.diff.keys import _same_text
    from inspector.core.diff.keys import _text as text_of

    folder = tmp_path_factory.mktemp("alike")
    # Two lines at least: a file of one line is read as one JSON document.
    filler = '{"type":"message","role":"user","content":"-"}'
    litems = _write_jsonl(folder / "l.jsonl", [*(a for a, _ in texts), filler])
    ritems = _write_jsonl(folder / "r.jsonl", [*(b for _, b in texts), filler])
    for a in litems:
        for b in ritems:
            if _same_text(text_of(a), text_of(b), a, b):
                assert content_key(a.raw) == content_key(b.raw), (a.raw, b.raw)


def test_texts_that_differ_only_in_their_ids_are_told_alike_without_keys(tmp_path: Path):
    from inspector.core.diff.keys import _Alike

    def line(n: int, side: str) -> str:
        item = {"type": "function_call", "id": f"{side}{n}", "call_id": f"c{n}", "name": "f"}
        item = {**item, "arguments": json.dumps({"n": n}), "status": "completed"}
        return json.dumps(item, separators=(",", ":") if n % 2 else None)

    # The standard library's spacing on one half, compact on the other.
    litems = _write_jsonl(tmp_path / "l.jsonl", [line(n, "fc_") for n in range(50)])
    ritems = _write_jsonl(tmp_path / "r.jsonl", [line(n, "b_fc_") for n in range(50)])
    shared: dict[bytes, int] = {}
    left, right = _Side.of(litems, shared), _Side.of(ritems, shared)
    alike = _Alike(left, right)
    assert all(alike.test(n, n) for n in range(50))
    assert left.keys.made() == right.keys.made() == 0  # the bytes said it
    assert not alike.test(0, 1)  # other arguments: the keys decide, and differ
    assert left.keys.made() == right.keys.made() == 1


def test_alignment_makes_keys_only_for_the_stretch_that_changed(tmp_path: Path):
    from inspector.core.diff import align_items
    from inspector.core.diff.align import _align

    messages = [{"type": "message", "role": "user", "content": f"m{n}"} for n in range(3000)]
    reworded = [*messages[:1500], {**messages[1500], "content": "other"}, *messages[1501:]]
    litems = _write_jsonl(tmp_path / "l.jsonl", [json.dumps(m) for m in messages])
    ritems = _write_jsonl(tmp_path / "r.jsonl", [json.dumps(m) for m in reworded])
    shared: dict[bytes, int] = {}
    left, right = _Side.of(litems, shared), _Side.of(ritems, shared)
    pairs = _align(left, right).pairs()
    assert pairs == [(n, n) for n in range(3000)]  # the reworded message pairs by position
    assert left.keys.made() == right.keys.made() == 1
    assert pairs == align_items(litems, ritems)


def test_a_diff_makes_no_object_an_item_while_it_runs(tmp_path: Path):
    import gc
    import tracemalloc

    from inspector.core.diff import diff_results
    from inspector.core.gate import gate_transcript

    items: list[dict] = []
    for k in range(5000):
        call = {"type": "function_call", "id": f"fc_{k}", "call_id": f"c{k}", "name": "f"}
        items += [
            {"type": "message", "role": "user", "content": f"q{k}"},
            {**call, "arguments": json.dumps({"k": k}), "status": "completed"},
            {"type": "function_call_output", "call_id": f"c{k}", "output": f"r{k}"},
            {"type": "message", "id": f"m{k}", "role": "assistant", "content": f"a{k}"},
        ]
    right = [{**item, "id": "b_" + item["id"]} if "id" in item else dict(item) for item in items]
    right[4000]["content"] = "reworded"
    paths = []
    for name, rows in (("a.jsonl", items), ("b.jsonl", right)):
        paths.append(tmp_path / name)
        paths[-1].write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    left_result, right_result = (gate_transcript(load_path(p)) for p in paths)
    from inspector.core.decision import decide_pair

    gc.collect()
    tracemalloc.start()
    try:
        result = diff_results(left_result, right_result)
        held, peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        decide_pair(result)
        result.summary()
        _, decided = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.summary()["changed"] == 1
    # Machine integers and bytes an item (keys, pairs, marks), no tuple or key object an item
    # or pair: about 60 bytes an item at the peak (150 with a digest a key and a tuple a pair).
    assert peak < 100 * (len(items) + len(right))
    # The decision and the counts read the pairs' arrays: no list of integers a pair (two
    # took about 72 bytes a pair; what remains is the sides' own answers, about 13 an item).
    assert decided - held < 20 * (len(items) + len(right))


_CALLS = st.lists(
    st.tuples(st.sampled_from(["function_call", "function_call_output"]), st.sampled_from("abcd")),
    max_size=8,
)


@settings(max_examples=300, deadline=None)
@given(_CALLS, _CALLS)
def test_call_ids_met_once_pair_as_the_occurrence_count_pairs_them(left, right):
    from inspector.core.diff.align import _call_pairs, _repeated_call_pairs
    from inspector.core.model import Item

    def side(calls: list[tuple[str, str]]) -> _Side:
        # A message between the calls, so that item and call indexes differ.
        raws = [
            r
            for kind, call_id in calls
            for r in ({"role": "user"}, {"type": kind, "call_id": call_id})
        ]
        return _Side.of([Item(n, raw, None) for n, raw in enumerate(raws)])

    a, b = side(left), side(right)
    lids, rids = (
        dict(zip(a.calls, a.call_id_of, strict=True)),
        dict(zip(b.calls, b.call_id_of, strict=True)),
    )
    expected = []
    for kind in ("function_call", "function_call_output"):
        lcalls = [i for i, t in zip(a.calls, a.call_kinds, strict=True) if t == kind]
        rcalls = [j for j, t in zip(b.calls, b.call_kinds, strict=True) if t == kind]
        expected += _repeated_call_pairs(lcalls, rcalls, lids, rids)
    lefts, rights = _call_pairs(a, b)
    assert list(zip(lefts, rights, strict=True)) == sorted(expected)
