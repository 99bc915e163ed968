"""The diff's stretch-at-a-time path: anchors that keep one offset are tested as a block
(`_Alike.same_bytes`), and its proved stretches skip the per-pair look. It is taken for two runs
that differ only in their ids, and it gives what the item-by-item path gives on anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core.diff import compute, diff_results, keys
from inspector.core.diff.align import _align
from inspector.core.diff.changes import pair_changes
from inspector.core.diff.keys import _Alike, _Side, content_key
from inspector.core.formats import load_path
from inspector.core.gate import gate_transcript


def _session(turns: int) -> list[dict]:
    items: list[dict] = []
    for k in range(turns):
        call = {"type": "function_call", "id": f"fc_{k}", "call_id": f"c{k}", "name": "f"}
        items += [
            {"type": "message", "role": "user", "content": f"q{k}"},
            {"type": "reasoning", "id": f"rs_{k}", "summary": []},
            {**call, "arguments": json.dumps({"k": k}), "status": "completed"},
            {"type": "function_call_output", "call_id": f"c{k}", "output": f"r{k}"},
            {"type": "message", "id": f"m{k}", "role": "assistant", "content": f"a{k}"},
        ]
    return items


def _other_ids(items: list[dict]) -> list[dict]:
    return [{**item, "id": "b_" + item["id"]} if "id" in item else dict(item) for item in items]


def _write(path: Path, items: list[dict], compact: bool = True) -> Path:
    separators = (",", ":") if compact else None
    lines = [json.dumps(item, separators=separators) for item in items]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


class _Counted:
    """Counts the calls of the diff's per-pair look and of its item-by-item test."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.pairs = self.tests = 0
        real_changes, real_alike = compute.pair_changes, keys._alike

        def changes(*args, **kwargs):
            self.pairs += 1
            return real_changes(*args, **kwargs)

        def alike(left, right, known):
            test = real_alike(left, right, known)

            def counted(i: int, j: int) -> bool:
                self.tests += 1
                return test(i, j)

            return counted

        monkeypatch.setattr(compute, "pair_changes", changes)
        monkeypatch.setattr(keys, "_alike", alike)


def test_two_runs_that_differ_only_in_their_ids_are_told_alike_a_stretch_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = _session(400)
    left = gate_transcript(load_path(_write(tmp_path / "l.jsonl", items)))
    right = gate_transcript(load_path(_write(tmp_path / "r.jsonl", _other_ids(items))))
    lside, rside = _Side.of(left.transcript.items), _Side.of(right.transcript.items)
    found = _align(lside, rside, alike=_Alike(lside, rside))
    # One block from the first anchor on: the whole is one proved stretch.
    assert found.proved == [(0, len(items))]
    counted = _Counted(monkeypatch)
    result = diff_results(left, right)
    assert result.summary()["same"] == len(items)
    # Neither the item-by-item test nor the per-pair look ran for any pair.
    assert counted.tests == counted.pairs == 0


def test_a_changed_pair_is_looked_at_alone_and_splits_its_stretch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = _session(400)
    right = _other_ids(items)
    right[502]["arguments"] = json.dumps({"k": -1})  # a call anchored by its call_id
    right[1003]["output"] = "another result"  # an output anchored by its call_id
    left_result = gate_transcript(load_path(_write(tmp_path / "l.jsonl", items)))
    right_result = gate_transcript(load_path(_write(tmp_path / "r.jsonl", right)))
    lside = _Side.of(left_result.transcript.items)
    rside = _Side.of(right_result.transcript.items)
    found = _align(lside, rside, alike=_Alike(lside, rside))
    assert found.proved == [(0, 502), (503, 1003), (1004, len(items))]
    counted = _Counted(monkeypatch)
    result = diff_results(left_result, right_result)
    assert result.pairs.with_changes() == [502, 1003]
    assert counted.pairs == 2  # only the two that changed


def test_a_spaced_id_is_proved_and_another_call_id_is_not_but_still_alike(tmp_path: Path) -> None:
    items = _session(50)
    right = _other_ids(items)
    right[7]["call_id"] = "renamed"  # the call's call_id: replay mode lists it
    # Both written with the standard library's spacing (a space after each colon).
    left_result = gate_transcript(load_path(_write(tmp_path / "l.jsonl", items, compact=False)))
    right_result = gate_transcript(load_path(_write(tmp_path / "r.jsonl", right, compact=False)))
    lside = _Side.of(left_result.transcript.items)
    rside = _Side.of(right_result.transcript.items)
    alike = _Alike(lside, rside)
    failed = alike.same_bytes(0, len(items), 0)
    # The spaced ids are met too; the renamed call_id fails the stronger test.
    assert failed == [7]
    assert alike.test(7, 7)  # the content, call_id aside, is the same
    result = diff_results(left_result, right_result)
    assert [c.code for c in result.pairs[7].changes] == ["call_id_changed"]


# Items built to trip a blind comparison: nested ids, ids that are not strings, ids with
# escapes, renamed call_ids, other arguments with the same value, other spacing.
_ID = st.sampled_from(["a", "b", "fc_1", "fc_2", 'q"x', "\u00e9", "id", None, 7])
_CALL_ID = st.sampled_from(["c1", "c2", "c3"])


@st.composite
def _item(draw) -> dict:
    kind = draw(st.sampled_from(["user", "assistant", "call", "output", "web"]))
    if kind == "call":
        arguments = draw(st.sampled_from(['{"n":1}', '{"n": 1}', '{"n":1.0}', '{"n":2}']))
        item = {"type": "function_call", "call_id": draw(_CALL_ID), "name": "f"}
        item.update(arguments=arguments, status="completed")
    elif kind == "output":
        item = {"type": "function_call_output", "call_id": draw(_CALL_ID), "output": "ok"}
    elif kind == "web":
        item = {"type": "openai:web_search_call", "status": "completed"}  # not a lean item
    else:
        item = {"type": "message", "role": kind, "content": draw(st.sampled_from("xy"))}
    if draw(st.booleans()):
        item["id"] = draw(_ID)
    if draw(st.integers(0, 5)) == 0:
        item["nested"] = {"id": draw(_ID)}
    return item


@st.composite
def _edited(draw, items: list[dict]) -> list[dict]:
    """Another run of the items: other ids, and now and then an item changed, moved, dropped
    or added."""
    out = []
    for item in items:
        item = dict(item)
        if "id" in item and draw(st.booleans()):
            # Another provider's id: as long as the old one (only the bytes around it then
            # tell a change), longer, or any other value.
            was = item["id"]
            others = [str(was).upper() + "_"[: str(was).isupper()], f"b_{was}"]
            item["id"] = draw(st.sampled_from(others) | st.sampled_from(others) | _ID)
        roll = draw(st.integers(0, 6))
        if roll == 0:
            continue
        if roll == 1:
            out.append(draw(_item()))
        if roll == 2 and "nested" in item:
            item["nested"] = {"id": draw(_ID)}
        if roll == 3 and "call_id" in item:
            item["call_id"] = draw(_CALL_ID)
        if roll == 4:  # as long as before, so that only the bytes tell
            for key, values in (("arguments", ['{"n":2}', '{"n":3}']), ("content", "yz")):
                if key in item:
                    item[key] = draw(st.sampled_from(values))
        out.append(item)
    if len(out) > 1 and draw(st.booleans()):
        at = draw(st.integers(0, len(out) - 2))
        out[at], out[at + 1] = out[at + 1], out[at]
    return out


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data(), st.sampled_from(["replay", "compare"]))
def test_the_stretch_path_gives_the_pairs_and_changes_of_the_item_by_item_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data, mode: str
) -> None:
    items = data.draw(st.lists(_item(), min_size=2, max_size=16))
    edited = data.draw(_edited(items))
    compact = data.draw(st.booleans())
    left = gate_transcript(load_path(_write(tmp_path / "l.jsonl", [*items, _FILLER])))
    right = gate_transcript(load_path(_write(tmp_path / "r.jsonl", [*edited, _FILLER], compact)))
    fast = diff_results(left, right, mode=mode)
    with monkeypatch.context() as patched:
        # Every item fails the stretch test: each pair is then tested and looked at alone.
        patched.setattr(_Alike, "__init__", _item_by_item)
        slow = diff_results(left, right, mode=mode)
    assert fast.pairs == slow.pairs
    assert (fast.reasons, fast.reason_details) == (slow.reasons, slow.reason_details)


#: A last line: a file of one line is read as one JSON document, not as JSON Lines.
_FILLER = {"type": "message", "role": "user", "content": "-"}
_REAL_INIT = _Alike.__init__


def _item_by_item(self: _Alike, left: _Side, right: _Side) -> None:
    _REAL_INIT(self, left, right)
    self.same_bytes = lambda lo, hi, _offset: list(range(lo, hi))


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.tuples(_item(), st.data()), min_size=1, max_size=6))
def test_a_pair_that_passes_the_stretch_test_differs_in_nothing_but_its_id(
    tmp_path: Path, drawn
) -> None:
    items = [item for item, _ in drawn]
    others = [data.draw(_edited([item])) or [item] for item, data in drawn]
    other = [edited[0] for edited in others]
    left = load_path(_write(tmp_path / "l.jsonl", [*items, _FILLER])).items
    right = load_path(_write(tmp_path / "r.jsonl", [*other, _FILLER])).items
    alike = _Alike(_Side.of(left), _Side.of(right))
    failed = set(alike.same_bytes(0, len(left), 0))
    for i in range(len(left)):
        if i in failed:
            continue
        a, b = left[i], right[i]
        assert content_key(a.raw) == content_key(b.raw)
        assert type(a.call_id) is type(b.call_id) and a.call_id == b.call_id
        verdict = gate_transcript(load_path(tmp_path / "l.jsonl")).verdicts[i].verdict
        assert pair_changes(a, b, verdict, verdict) == ()
