"""Every recorded payload in ../shared/corpus goes through `gate` without a traceback."""

from __future__ import annotations

import io
import json

import pytest

from inspector.cli import run
from tests.conftest import CORPUS

FILES = (
    sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "SOURCES.md")
    if (CORPUS.is_dir())
    else []
)


@pytest.mark.skipif(not FILES, reason="../shared/corpus is not beside the repository")
def test_corpus_gates_without_tracebacks():
    statuses = {}
    for path in FILES:
        out, err = io.StringIO(), io.StringIO()
        status = run(["gate", "--format", "json", str(path)], out, err)
        assert status in (0, 1, 2), path
        assert "Traceback" not in err.getvalue(), path
        document = json.loads(out.getvalue())
        (entry,) = document["files"]
        if status == 2:
            assert "error" in entry and entry["error"]["message"], path
        else:
            assert len(entry["items"]) == len(entry.get("items", [])), path
        statuses[path.name] = status
    loaded = sum(1 for s in statuses.values() if s in (0, 1))
    assert loaded / len(statuses) >= 0.9, statuses


@pytest.mark.skipif(not FILES, reason="../shared/corpus is not beside the repository")
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # Replayed calls carry "status": null: the gate cannot know they finished.
        ("tool_call_roundtrip.req1.json", {"function_call": "status"}),
        # Unprefixed hosted-tool items are vendor-specific; no colon, so not "namespaced".
        ("web_search.resp0.json", {"web_search_call": "not_function_call"}),
        ("custom_tool.resp0.json", {"custom_tool_call": "not_function_call"}),
        ("parallel_function_calls.resp0.json", {"function_call": "ok"}),
    ],
)
def test_corpus_oddities(name, expected):
    (path,) = [p for p in FILES if p.name == name]
    out = io.StringIO()
    run(["gate", "--format", "json", str(path)], out, io.StringIO())
    items = json.loads(out.getvalue())["files"][0]["items"]
    for kind, verdict in expected.items():
        assert {i["verdict"] for i in items if i["type"] == kind} == {verdict}


@pytest.mark.skipif(not FILES, reason="../shared/corpus is not beside the repository")
def test_call_id_set_to_item_id_still_pairs():
    (path,) = [p for p in FILES if p.name == "function_call_stream.req1.json"]
    out = io.StringIO()
    run(["gate", "--format", "json", str(path)], out, io.StringIO())
    document = json.loads(out.getvalue())["files"][0]
    codes = {f["code"] for f in document["findings"]}
    assert "orphan_output" not in codes
