"""The diff's sequence matcher on small sequences: one letter is one item's key."""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.diff import align_items, display_order
from inspector.core.diff import match as matcher
from inspector.core.diff.match import IndexPair, _anchors, _difflib, _longest_chain, _patience
from inspector.core.model import Item, Origin


def match(left: str, right: str) -> list[IndexPair]:
    """Align two strings of keys as a gap of content alignment is: patience, then difflib."""
    a, b = list(range(len(left))), list(range(len(right)))
    # A key's signature is the key itself, so difflib's two levels agree.
    sa = {i: (key, None, None) for i, key in enumerate(left)}
    sb = {j: (key, None, None) for j, key in enumerate(right)}
    out: list[IndexPair] = []
    _patience(a, b, list(left), list(right), _difflib(sa, sb), out)
    return display_order(out, len(left), len(right))


@pytest.mark.parametrize(
    ("left", "right", "pairs"),
    [
        pytest.param("abc", "abc", [(0, 0), (1, 1), (2, 2)], id="equal"),
        pytest.param("ac", "abc", [(0, 0), (None, 1), (1, 2)], id="insert"),
        pytest.param("abc", "ac", [(0, 0), (1, None), (2, 1)], id="delete"),
        # A replaced block pairs by position: a changed item is one changed pair.
        pytest.param("abc", "axc", [(0, 0), (1, 1), (2, 2)], id="replace"),
        pytest.param("abd", "axyd", [(0, 0), (1, 1), (None, 2), (2, 3)], id="replace-longer"),
        # Both orders cannot be kept: one item pairs, the moved one is on each side alone.
        pytest.param("ab", "ba", [(0, None), (1, 0), (None, 1)], id="reorder"),
        pytest.param("", "", [], id="empty"),
        pytest.param("", "ab", [(None, 0), (None, 1)], id="only-right"),
        pytest.param("ab", "", [(0, None), (1, None)], id="only-left"),
        pytest.param("aab", "ab", [(0, 0), (1, None), (2, 1)], id="repeated-key"),
        pytest.param("xaya", "xaaya", [(0, 0), (1, 1), (None, 2), (2, 3), (3, 4)], id="repeats"),
    ],
)
def test_small_sequences(left: str, right: str, pairs: list[IndexPair]) -> None:
    assert match(left, right) == pairs


@pytest.mark.parametrize(("left", "right"), [("abcab", "bcaab"), ("abcdef", "fedcba"), ("a", "")])
def test_every_item_is_in_exactly_one_pair_in_order(left: str, right: str) -> None:
    pairs = match(left, right)
    assert sorted(i for i, _ in pairs if i is not None) == list(range(len(left)))
    assert sorted(j for _, j in pairs if j is not None) == list(range(len(right)))
    both = [(i, j) for i, j in pairs if i is not None and j is not None]
    assert [j for _, j in both] == sorted(j for _, j in both)  # no crossing pairs


def test_anchors_are_keys_that_occur_equally_often_on_both_sides() -> None:
    # `a` occurs twice on the left and once on the right: ambiguous, so not an anchor.
    assert _anchors([0, 1, 2], [0, 1], "aab", "ab") == [(2, 1)]
    # Equal counts pair the k-th occurrence with the k-th; the chain keeps both sides in order.
    assert _anchors([0, 1, 2, 3], [0, 1, 2, 3], "abab", "baba") == [(1, 0), (3, 2)]
    assert _anchors([0, 1], [0, 1], "ab", "cd") == []


def test_longest_chain_keeps_both_sides_in_order() -> None:
    assert _longest_chain([(0, 2), (1, 0), (2, 1), (3, 3)]) == [(1, 0), (2, 1), (3, 3)]
    assert _longest_chain([(0, 0), (1, 1)]) == [(0, 0), (1, 1)]
    assert _longest_chain([]) == []


def test_the_type_level_meets_a_renamed_call_with_the_call() -> None:
    sa = {0: ("message", "assistant", None), 1: ("function_call", None, "get")}
    sb = {0: ("function_call", None, "put")}
    out: list[IndexPair] = []
    _difflib(sa, sb)([0, 1], [0], out)
    assert sorted(out, key=repr) == [(0, None), (1, 0)]


def test_a_gap_over_the_difflib_limit_pairs_by_position(monkeypatch) -> None:
    # No key of the 3 × 3 middle occurs equally often on both sides: no anchor, difflib decides.
    monkeypatch.setattr(matcher, "DIFFLIB_LIMIT", 9)
    assert match("qaabz", "qbbaz") == [
        (0, 0),
        (None, 1),
        (None, 2),
        (1, 3),
        (2, None),
        (3, None),
        (4, 4),
    ]
    # Over the limit the same gap pairs by position; prefix and suffix still match first.
    monkeypatch.setattr(matcher, "DIFFLIB_LIMIT", 8)
    assert match("qaabz", "qbbaz") == [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)]


def test_display_order_puts_a_right_only_item_after_the_left_only_run() -> None:
    pairs = [(3, 2), (None, 1), (2, None), (0, 0), (1, None)]
    assert display_order(pairs, 4, 3) == [(0, 0), (1, None), (2, None), (None, 1), (3, 2)]


def items(*raws: dict) -> list[Item]:
    return [Item(i, raw, Origin("<test>", None, f"/{i}")) for i, raw in enumerate(raws)]


def text(value: str) -> dict:
    return {"type": "message", "role": "user", "content": value}


def call(call_id: str, name: str = "get") -> dict:
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": "{}"}


def test_items_align_on_content_ignoring_id() -> None:
    left = items({**text("a"), "id": "m1"}, text("b"), text("c"))
    right = items({**text("a"), "id": "m9"}, text("c"))
    assert align_items(left, right) == [(0, 0), (1, None), (2, 1)]


def test_replay_mode_pairs_reordered_parallel_calls_by_call_id() -> None:
    left, right = items(call("c1"), call("c2")), items(call("c2"), call("c1"))
    assert align_items(left, right) == [(0, 1), (1, 0)]


def test_compare_mode_pairs_calls_by_name_whatever_their_call_ids() -> None:
    left = items(call("c1", "get"), call("c2", "put"))
    right = items(call("x7", "put"), call("x8", "get"))
    # One parallel batch: its order means nothing, so both calls pair by name.
    assert align_items(left, right, mode="compare") == [(0, 1), (1, 0)]
    # Replay mode: no call_id matches, so content decides and only one call can keep its order.
    assert align_items(left, right) == [(0, None), (1, 0), (None, 1)]


def _sorted_order(pairs, n_left, n_right):
    """The display order by its definition: one sort on (place, right-only first, index)."""
    left_of_right = {j: i for i, j in pairs if i is not None and j is not None}
    paired_lefts = sorted(left_of_right.values())
    keys = []
    for i, j in pairs:
        if i is not None:
            keys.append((i, 1, 0))
            continue
        before = [k for k in left_of_right if k < j]  # paired right items before this one
        anchor = left_of_right[max(before)] if before else -1
        place = next((p for p in paired_lefts if p >= anchor + 1), n_left)
        keys.append((place, 0, j))
    return [pair for _, pair in sorted(zip(keys, pairs, strict=True))]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_display_order_is_the_sort_on_place_and_index(data) -> None:
    n_left, n_right = data.draw(st.integers(0, 8)), data.draw(st.integers(0, 8))
    lefts = data.draw(st.permutations(range(n_left)))
    rights = data.draw(st.permutations(range(n_right)))
    paired = data.draw(st.integers(0, min(n_left, n_right)))
    pairs = list(zip(lefts[:paired], rights[:paired], strict=True))
    pairs += [(i, None) for i in lefts[paired:]] + [(None, j) for j in rights[paired:]]
    pairs = data.draw(st.permutations(pairs))
    assert display_order(pairs, n_left, n_right) == _sorted_order(pairs, n_left, n_right)


_ITEM = st.one_of(
    st.sampled_from("abc").map(text),
    st.sampled_from("xyz").map(lambda v: {**text(v), "role": "assistant"}),
    st.tuples(st.sampled_from("123"), st.sampled_from(["get", "put"])).map(
        lambda c: call("c" + c[0], c[1])
    ),
    st.sampled_from("123").map(
        lambda c: {"type": "function_call_output", "call_id": "c" + c, "output": "ok"}
    ),
    st.just({"type": "openai:web_search_call", "status": "completed"}),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_ITEM, max_size=14),
    st.lists(_ITEM, max_size=14),
    st.sampled_from(["replay", "compare"]),
)
def test_anchors_in_order_give_the_pairs_of_the_general_path(left_raws, right_raws, mode) -> None:
    # Anchors in order on both sides: each segment is aligned and put in display order alone,
    # with no sort of the whole; the pairs must be those the general path sorts into order.
    from inspector.core.diff.align import (
        _any_order,
        _by_signature,
        _call_pairs,
        _compare_anchors,
        _in_order,
    )
    from inspector.core.diff.keys import _Alike, _Side

    shared: dict[bytes, int] = {}
    left, right = _Side.of(items(*left_raws), shared), _Side.of(items(*right_raws), shared)
    if mode == "compare":
        anchors = _compare_anchors(left, right)
        lefts, rights = [i for i, _ in anchors], [j for _, j in anchors]
    else:
        lefts, rights = _call_pairs(left, right)
    if sorted(rights) != list(rights) or len(set(rights)) != len(rights):
        return  # crossing anchors: only the general path aligns them
    leaf = _by_signature(left, right)
    arrays = (array("i", lefts), array("i", rights))
    fast = _in_order(left, right, *arrays, leaf, _Alike(left, right)).pairs()
    assert fast == _any_order(left, right, *arrays, leaf, _Alike(left, right)).pairs()
