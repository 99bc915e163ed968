"""Objects that merely have an `id` are no items: an item array holding one is refused, where it is.

An item_reference is `{"type": "item_reference", "id": …}` or an object with only `id`; a
manifest entry (`{"id": 1, "name": …}`) is neither, and no format claims it, so the file is an
"unrecognised record" (exit 2) naming the file, the line and the element's pointer, whether the
array is read plainly (text) or lean (bytes).
"""

from __future__ import annotations

import json

import pytest

from inspector.core.formats import load_bytes, load_text
from inspector.core.model import LoadError
from tests.core.test_targets_samples import gate_golden

MANIFEST = "samples/native/refused/tools-manifest.json"


def test_manifest_golden(golden):
    # An unreadable file's golden is its error document (named .error.json: it has no findings).
    status, document = gate_golden(golden, "tools-manifest.error.json", MANIFEST)
    assert status == 2
    error = document["files"][0]["error"]
    assert error["message"].startswith("unrecognised record: found an object with keys")
    assert (error["line"], error["pointer"]) == (2, "/0")


ITEMS = [
    {"type": "message", "role": "user", "content": "hi"},
    {"id": "msg_1"},
    {"type": "item_reference", "id": "msg_2"},
    {"type": None, "id": "msg_3"},
    {"role": "assistant", "content": "ok"},
]


def lines(elements: list) -> str:
    """An item array with one element per line (element k on line k + 2)."""
    return "[\n" + ",\n".join(json.dumps(e) for e in elements) + "\n]"


@pytest.mark.parametrize(
    ("text", "pointer", "line"),
    [
        (lines([*ITEMS, {"id": 7, "name": "send_email"}]), "/5", 7),
        (lines([*ITEMS, {}]), "/5", 7),
        (json.dumps({"model": "m", "input": [*ITEMS, {"id": 7, "title": "x"}]}), "/input/5", None),
        (
            json.dumps({"object": "response", "output": [{"id": 1, "x": 2}]}),
            "/output/0",
            None,
        ),
    ],
    ids=["array", "empty-object", "request-input", "response-output"],
)
def test_an_object_no_format_claims_is_refused_where_it_is(text, pointer, line):
    # Text is read plainly, bytes lean: both refuse the element and say where it is.
    for load in (lambda: load_text(text, "f.json"), lambda: load_bytes(text.encode(), "f.json")):
        with pytest.raises(LoadError, match="unrecognised record") as caught:
            load()
        where = caught.value.where
        assert (where.path, where.pointer) == ("f.json", pointer)
        if line is not None:
            assert where.line == line


def test_item_references_and_shorthands_still_load():
    for data in (json.dumps(ITEMS), json.dumps(ITEMS, indent=1)):
        for transcript in (load_text(data), load_bytes(data.encode())):
            kinds = [i.type for i in transcript.items]
            assert kinds == ["message", *["item_reference"] * 3, "message"]
