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
