"""JSON output is written as a stream, yet reads exactly as the whole document would."""

from __future__ import annotations

import io
import json

import orjson

from inspector.commands.common import write_json
from inspector.core.report import Streamed


def _written(document) -> str:
    out = io.StringIO()
    write_json(document, out)
    return out.getvalue()


def test_streamed_arrays_write_the_same_bytes_as_the_whole_document():
    rows = [{"index": i, "nested": {"a": [1, {"b": None}], "c": []}, "e": {}} for i in range(3)]
    whole = {"files": [{"path": "x", "items": rows, "empty": [], "summary": {"ok": 3}}, {}]}
    lazy = {
        "files": Streamed(
            nested=True,
            elements=iter(
                [
                    {
                        "path": "x",
                        "items": Streamed(iter(rows)),
                        "empty": Streamed(()),
                        "summary": {"ok": 3},
                    },
                    {},
                ]
            ),
        )
    }
    expected = orjson.dumps(whole, option=orjson.OPT_INDENT_2).decode() + "\n"
    assert _written(lazy) == expected
    assert _written(whole) == expected


def test_values_orjson_refuses_are_written_exactly():
    big = 123456789012345678901234567890
    text = _written({"files": Streamed(iter([{"n": big, "s": "\ud800"}]))})
    assert json.loads(text) == {"files": [{"n": big, "s": "\ud800"}]}
    text = _written({"files": Streamed(iter([{"x": Streamed([big])}]), nested=True)})
    assert json.loads(text) == {"files": [{"x": [big]}]}


def test_rows_are_produced_while_writing():
    produced = []

    def rows():
        for i in range(3):
            produced.append(i)
            yield {"i": i}

    class Probe(io.StringIO):
        def write(self, text):
            # Nothing past the first row exists when the first row is written.
            if '"i": 0' in text:
                assert produced == [0]
            return super().write(text)

    write_json({"items": Streamed(rows())}, Probe())
    assert produced == [0, 1, 2]
