"""Content keys from lean items' texts (ids cut out, keys of seen texts looked up) are exactly
the keys of their parsed values, and the cut is taken only where it is safe."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.core.diff.keys import _TEXT_DIGEST, _keys, content_key
from inspector.core.formats import load_path

# Each line a JSON Lines item of one log: ordinary ones, and the texts where cutting the
# item's own id or call_id out of the bytes would go wrong if it were done blindly.
LINES = [
    '{"type":"message","id":"m1","role":"user","content":"hi"}',
    '{"type":"message","id":"b_m1","role":"user","content":"hi"}',  # the same but its id
    '{"id":"m2","type":"message","role":"user","content":"hi"}',  # the same, members reordered
    '{"type":"message","role":"user","content":"hi"}',  # no id at all: the same key
    '{"type":"function_call","id":"fc1","call_id":"c1","name":"f","arguments":"{}",'
    '"status":"completed"}',
    '{"type":"function_call","id":"fc2","call_id":"c2","name":"f","arguments":"{}",'
    '"status":"completed"}',
    # A member of the same name deeper in the item, written like the item's own.
    '{"type":"reasoning","id":"n1","action":{"id":"n1"}}',
    '{"type":"reasoning","id":"n2","action":{"id":"n1"}}',
    '{"type":"reasoning","action":{"id":"n1"},"id":"n1"}',
    # The item's own written with a space (not cut), a nested one written compactly.
    '{"type":"reasoning","id" : "n3","action":{"id":"n3"}}',
    # A repeated id: the parse keeps the last.
    '{"type":"message","id":"d1","role":"user","content":"hi","id":"d2"}',
    # An id written with an escape, a null id, a numeric call_id, an id that is the only member.
    '{"type":"message","id":"\\u006d1","role":"user","content":"hi"}',
    '{"type":"message","id":null,"role":"user","content":"hi"}',
    '{"type":"function_call_output","call_id":7,"output":"x"}',
    '{"id":"only"}',
    # Non-ASCII ids and text, and an integer beyond 64 bits.
    '{"type":"message","id":"é1","role":"user","content":"héllo"}',
    '{"type":"message","id":"big","role":"user","content":[{"type":"input_text","n":123456789012345678901234567890}]}',
    # Whitespace inside the item and a float written two ways.
    '{"type": "message", "id": "w1", "role": "user", "content": "hi"}',
    '{"type":"reasoning","id":"f1","v":1e2}',
    '{"type":"reasoning","id":"f2","v":100.0}',
]


@pytest.fixture
def items(tmp_path: Path):
    """The lines' items, each read after an ordinary line from a log of its own (the loader
    may read a whole log the plain way for one unusual line)."""
    loaded = []
    for number, line in enumerate(LINES):
        path = tmp_path / f"log-{number}.jsonl"
        path.write_text(LINES[0] + "\n" + line + "\n", encoding="utf-8")
        loaded.append(load_path(path).items[1])
    return loaded


def test_keys_from_texts_are_the_keys_of_the_values(items) -> None:
    shared: dict[bytes, bytes] = {}
    assert _keys(items, shared) == [content_key(item.read()) for item in items]
    # Keyed twice (as the second side of a pair is), the texts seen give the same keys again.
    assert _keys(items, shared) == [content_key(item.read()) for item in items]


def test_equal_items_get_equal_keys_and_others_not(items) -> None:
    keys = _keys(items, {})
    # Only ids, their spelling, member order or whitespace differ: one key.
    assert len({keys[n] for n in (0, 1, 2, 3, 10, 11, 12, 17)}) == 1
    assert keys[4] == keys[5]  # only id and call_id differ
    assert keys[6] == keys[7] == keys[8] != keys[9]  # the nested id differs in the last
    assert keys[18] == keys[19]  # 1e2 and 100.0 parse to one float
    assert keys[6] != keys[0] != keys[15]


def test_a_cut_text_is_looked_up_only_where_the_cut_is_the_items_own(items) -> None:
    shared: dict[bytes, bytes] = {}
    _keys(items, shared)
    texts = sum(1 for k in shared if len(k) == _TEXT_DIGEST)
    keys = sum(1 for k in shared if len(k) == 16)
    # Cut and looked up: lines 0-3 (one text), 4-5 (one), 7, 15, 18 and 19. Parsed as they
    # are: an id written twice in the text (6, 8) or with an escape, a space (11, 17), a cut
    # that left the item's own id in (9: the nested one was cut; 10: a repeated id), a null
    # id, a numeric call_id, and the items read the plain way (14, 16).
    assert texts == 6
    assert keys == len(set(_keys(items, {})))
