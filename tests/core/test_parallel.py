"""The gate on every core (core.parallel) writes, byte for byte, what one process writes."""

from __future__ import annotations

import io
import json
import os
import random

import pytest

from inspector.cli import run
from inspector.core import parallel
from inspector.core.formats import load_path, tools_from_document
from inspector.core.gate import gate_transcript
from tests.benchmarks import synthetic


def _call(rng: random.Random, number: int) -> dict[str, object]:
    """A function call whose arguments take the strict parser's slow paths or fail it."""
    kind = rng.choice(["duplicate", "long", "broken", "big_float", "plain", "unknown"])
    arguments = {
        "duplicate": '{"query": "a", "query": "b"}',
        "long": f'{{"query": "q", "limit": {10**25 + number}}}',
        "broken": '{"query": "unterminated',
        "big_float": '{"query": "q", "limit": 1e400}',
        "plain": json.dumps({"query": f"q{number}", "limit": number % 7}),
        "unknown": "{}",
    }[kind]
    return {
        "type": "function_call",
        "id": f"fc_x{number}",
        "call_id": f"call_x{number}",
        "name": "no_such_tool" if kind == "unknown" else "search_web",
        "arguments": arguments,
        "status": "completed",
    }


def _write(path, items: int, seed: int, *, long_numbers: bool) -> None:
    """A synthetic log, with odd calls mixed in (a file with long numbers is not read lean)."""
    rng = random.Random(seed)
    lines = [json.dumps(item) for item in synthetic.items(items, seed=seed)]
    odd = [json.dumps(_call(rng, n)) for n in range(items // 10 + 1)]
    if not long_numbers:
        odd = [line for line in odd if str(10**25)[:19] not in line]
    for line in odd:
        lines.insert(rng.randrange(len(lines) + 1), line)
    # The same call again: a verdict shared between items, made by whichever process.
    lines.extend(lines[len(lines) // 3 : len(lines) // 3 + 20])
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def tools_file(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(synthetic.tools()), encoding="utf-8")
    return path


@pytest.fixture
def pool_runs(monkeypatch):
    """Every run of the pool, with the processes that made its verdicts."""
    runs: list[set[int]] = []
    original = parallel._pool_verdicts

    def spy(*args, **kwargs):
        known, workers = original(*args, **kwargs)
        runs.append(workers)
        return known, workers

    monkeypatch.setattr(parallel, "_pool_verdicts", spy)
    return runs


def _gate_json(*args: str) -> tuple[int, bytes]:
    out, err = io.StringIO(), io.StringIO()
    status = run(["gate", "--format", "json", *args], out, err)
    assert err.getvalue() == ""
    return status, out.getvalue().encode("utf-8")


@pytest.mark.parametrize(
    ("items", "long_numbers"), [(40, False), (700, True), (2500, False), (2500, True)]
)
def test_the_pool_writes_what_one_process_writes(
    tmp_path, tools_file, pool_runs, monkeypatch, items, long_numbers
):
    log = tmp_path / "log.jsonl"
    _write(log, items, seed=items, long_numbers=long_numbers)
    one = _gate_json(str(log), "--tools", str(tools_file), "--jobs", "1")
    assert pool_runs == []
    monkeypatch.setattr(parallel, "POOL_MIN_CALLS", 1)
    monkeypatch.setattr(parallel, "CHUNK", 16)  # several chunks even for a small file
    pooled = _gate_json(str(log), "--tools", str(tools_file), "--jobs", "2")
    assert pooled == one
    # The pool ran, and a worker process (not this one) made verdicts.
    (workers,) = pool_runs
    assert workers - {os.getpid()}
    document = json.loads(one[1])
    verdicts = {row["verdict"] for row in document["files"][0]["items"]}
    assert {"ok", "arguments_schema", "arguments_parse", "unknown_tool"} <= verdicts


def _answers(result):
    # An exception equals only itself: a parse error is compared by what it says and where.
    return [
        (v.verdict, v.detail, v.errors, v.tool, v.given, v.parse_error and v.parse_error.where)
        for v in result.verdicts
    ]


def test_the_pool_gives_the_gate_result_of_one_process(tmp_path, tools_file, pool_runs):
    log = tmp_path / "log.jsonl"
    _write(log, 600, seed=3, long_numbers=True)
    transcript = load_path(str(log))
    tools = tools_from_document(synthetic.tools(), str(tools_file))
    alone = gate_transcript(transcript, tools)
    pooled = parallel.gate_on_cores(transcript, tools, jobs=3, threshold=1)
    assert len(pool_runs) == 1
    assert _answers(pooled) == _answers(alone)
    assert pooled.findings == alone.findings
    # A verdict that keeps its arguments points back to its first item, as in one process.
    for mine, theirs in zip(pooled.verdicts, alone.verdicts, strict=True):
        assert (mine.source is None) == (theirs.source is None)
        if mine.source is not None:
            assert mine.source.index == theirs.source.index
            assert mine.parsed == theirs.parsed


def test_a_small_file_stays_in_this_process(tmp_path, tools_file, pool_runs):
    log = tmp_path / "log.jsonl"
    _write(log, 300, seed=5, long_numbers=False)
    _gate_json(str(log), "--tools", str(tools_file), "--jobs", "4")
    assert pool_runs == []  # far fewer distinct calls than POOL_MIN_CALLS


def test_a_schema_only_python_jsonschema_runs_keeps_the_gate_in_this_process(tmp_path, pool_runs):
    # A backtracking pattern: python-jsonschema validates, under a step budget of the whole file.
    schemas = synthetic.tools()
    schemas[0]["parameters"]["properties"]["region"] = {"pattern": "^(?=a)a+$"}
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(schemas), encoding="utf-8")
    log = tmp_path / "log.jsonl"
    _write(log, 300, seed=9, long_numbers=False)
    transcript = load_path(str(log))
    parallel.gate_on_cores(
        transcript, tools_from_document(schemas, str(tools)), jobs=2, threshold=1
    )
    assert pool_runs == []


def test_jobs_must_be_a_count(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    status = run(["gate", "--jobs", "many", str(tmp_path / "x.jsonl")], out, err)
    assert status == 2
    assert "--jobs" in err.getvalue()
    assert "every core" in err.getvalue()


def test_the_generated_logs_take_both_loaders(tmp_path):
    # A run of 19 digits anywhere sends a file the plain way; without one it is read lean.
    for long_numbers, lean in ((False, True), (True, False)):
        log = tmp_path / f"log-{long_numbers}.jsonl"
        _write(log, 300, seed=1, long_numbers=long_numbers)
        items = load_path(str(log)).items
        assert any(item.lean_source is not None for item in items) == lean
