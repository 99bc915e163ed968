"""An OTLP trace of the file exporter's lines gated by runs on every core (commands/traces.py).

Every report is compared byte for byte with the one process's report of the same file; which
files go by runs (and which the usual way) is asserted from what `gate_trace_on_cores` gave.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
from pathlib import Path

import pytest

from inspector.cli import run
from inspector.commands import traces
from inspector.core.formats import otel
from tests.benchmarks import synthetic
from tests.conftest import SAMPLES
from tests.core.conftest import recorded

OTEL = SAMPLES / "sessions" / "otel"
_TRACE = re.compile(rb'("traceId"\s*:\s*"|"traceID"\s*:\s*")([0-9A-Za-z-]*)"')


@pytest.fixture
def by_runs(monkeypatch):
    """Every trace file gated by runs of about one line, and what each gate by runs gave
    (None: the file went the usual way)."""
    monkeypatch.setattr(traces, "POOL_MIN_BYTES", 1)
    monkeypatch.setattr(traces, "RUN_MIN_BYTES", 1)
    monkeypatch.setattr(traces, "RUNS_PER_JOB", 10_000)
    return recorded(monkeypatch, traces, "gate_trace_on_cores", traces.gate_trace_on_cores)


def _gate(*args: str) -> tuple[int, bytes, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run(["gate", "--format", "json", *args], out, err)
    return status, out.getvalue().encode("utf-8"), err.getvalue()


def _by_runs_and_alone(path: Path, made: list, *options: str) -> tuple[int, bytes, str]:
    """Gate `path` on 2 and 3 processes and in one; assert all three say the same."""
    alone = _gate(str(path), "--jobs", "1", *options)
    assert made == []  # one process never goes by runs
    for jobs in ("2", "3"):
        assert _gate(str(path), "--jobs", jobs, *options) == alone
    return alone


def _one_line_each(folder: Path, name: str, *, own_traces: bool) -> Path:
    """Every OTLP and Jaeger sample as one line of a file exporter's file (`own_traces`: each
    line's trace ids made its own, so no trace is in two lines)."""
    lines = []
    for number, sample in enumerate(sorted(OTEL.iterdir())):
        texts = sample.read_text(encoding="utf-8").splitlines()
        if sample.suffix != ".jsonl":
            texts = [json.dumps(json.loads("\n".join(texts)))]
        for k, text in enumerate(texts):
            line = text.encode("utf-8")
            if own_traces:
                tag = b"%02d%02d" % (number, k)
                line = _TRACE.sub(lambda m, tag=tag: m.group(1) + tag + m.group(2) + b'"', line)
            lines.append(line)
    path = folder / name
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_a_generated_trace_by_runs_writes_what_one_process_writes(tmp_path, by_runs):
    path = tmp_path / "otlp.jsonl"
    synthetic.write_otlp(path, 150_000)
    status, one, _ = _by_runs_and_alone(path, by_runs)
    assert len(by_runs) == 2 and all(made is not None for made in by_runs)
    # Runs were made by forked workers, not by this process.
    assert all(made.makers and os.getpid() not in made.makers for made in by_runs)
    files = json.loads(one)["files"]
    assert len(files) == len(path.read_bytes().splitlines()) > 10
    assert files[0]["findings"][0]["code"] == "several_conversations"
    assert status == 1


def test_every_sample_as_a_line_of_its_own_trace_by_runs(tmp_path, by_runs):
    # Capture off, malformed attributes, log records, Jaeger documents, agents' spans: each
    # conversation's findings (with their pointers) as one process gives them.
    path = _one_line_each(tmp_path, "samples.jsonl", own_traces=True)
    _status, one, _ = _by_runs_and_alone(path, by_runs)
    assert all(made is not None for made in by_runs)
    codes = {f["code"] for document in json.loads(one)["files"] for f in document["findings"]}
    assert {"content_not_captured", "several_conversations"} <= codes


def test_every_sample_file_is_gated_as_one_process_gates_it(tmp_path, by_runs):
    for sample in sorted(OTEL.iterdir()):
        by_runs.clear()
        _by_runs_and_alone(sample, by_runs)
        # A document goes the usual way; the file exporter's lines (two traces) by runs.
        lines = sample.suffix == ".jsonl"
        assert [made is not None for made in by_runs] == [lines, lines], sample.name


def test_lines_that_share_a_trace_go_the_usual_way(tmp_path, by_runs):
    path = _one_line_each(tmp_path, "shared.jsonl", own_traces=False)
    _by_runs_and_alone(path, by_runs)
    assert by_runs == [None, None]


def test_a_conversation_id_in_two_runs_goes_the_usual_way(tmp_path, by_runs):
    path = tmp_path / "named.jsonl"
    synthetic.write_otlp(path, 60_000)
    lines = path.read_bytes().splitlines()
    named = b'{"key":"gen_ai.conversation.id","value":{"stringValue":"conv-1"}},'
    for k in (2, 5):
        first = b'"attributes":[{"key":"gen_ai.operation'
        assert first in lines[k]
        lines[k] = lines[k].replace(first, first[:14] + named + first[14:], 1)
    path.write_bytes(b"\n".join(lines) + b"\n")
    _by_runs_and_alone(path, by_runs)
    assert by_runs == [None, None]
    ids = [d.get("conversation") for d in json.loads(_gate(str(path), "--jobs", "1")[1])["files"]]
    assert ids.count("conv-1") == 1


def test_a_broken_line_in_a_later_run_is_named_as_one_process_names_it(tmp_path, by_runs):
    path = tmp_path / "broken.jsonl"
    synthetic.write_otlp(path, 60_000)
    lines = path.read_bytes().splitlines()
    lines[6] = lines[6][:-40]
    path.write_bytes(b"\n".join(lines) + b"\n")
    status, one, _ = _by_runs_and_alone(path, by_runs)
    assert by_runs == [None, None]
    assert status == 2
    assert json.loads(one)["files"][0]["error"]["line"] == 7


def test_a_first_run_without_genai_spans_goes_the_usual_way(tmp_path, by_runs):
    path = tmp_path / "late.jsonl"
    synthetic.write_otlp(path, 60_000)
    lines = path.read_bytes().splitlines()
    plain = {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "ff", "name": "http"}]}]}]}
    path.write_bytes(b"\n".join([json.dumps(plain).encode(), *lines]) + b"\n")
    _by_runs_and_alone(path, by_runs)
    assert by_runs == [None, None]


def test_the_runs_are_the_files_lines_in_order():
    data = b'{"resourceSpans":[]}\n\n' + b'{"resourceSpans":[]}\n' * 5 + b'{"resourceSpans":[]}'
    cuts = otel.line_runs(data, 30)
    assert cuts is not None and len(cuts) > 3
    runs = list(otel.numbered(data, cuts))
    assert b"".join(data[a:b] for a, b, _ in runs) == data
    numbers = [first for _, _, first in runs]
    assert numbers == [1 + data[:a].count(b"\n") for a, _, _ in runs]
    # One document, another format, blank lines after one line: not the file exporter's lines.
    assert otel.line_runs(b'{"resourceSpans": [\n]}\n', 4) is None
    assert otel.line_runs(b'{"type": "message"}\n' * 3, 4) is None
    assert otel.line_runs(b'{"resourceSpans":[]}\n\n\n\n', 4) is None


def test_runs_of_many_short_lines_are_numbered_alike(monkeypatch):
    # Found one by one, or (past _FOUND_LINES in a run) copied and counted: the same numbers.
    data = b"".join(b'{"resourceSpans":[]}' + b" " * (k % 7) + b"\n" for k in range(60))
    cuts = otel.line_runs(data, 200)
    assert cuts is not None
    found = list(otel.numbered(data, cuts))
    monkeypatch.setattr(otel, "_FOUND_LINES", 2)
    assert list(otel.numbered(data, cuts)) == found
    assert [first for _, _, first in found] == [1 + data[:a].count(b"\n") for a, _ in cuts]


def test_a_compressed_trace_goes_the_usual_way(tmp_path, by_runs):
    plain = tmp_path / "otlp.jsonl"
    synthetic.write_otlp(plain, 60_000)
    packed = tmp_path / "otlp.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    status, one, _ = _by_runs_and_alone(packed, by_runs)
    assert by_runs == [None, None]
    assert [d["path"] for d in json.loads(one)["files"]][:1] == [str(packed)]
    assert status == _gate(str(plain), "--jobs", "1")[0]


def _conversations_of(path: Path) -> dict[str, list[otel.Inference]]:
    data = path.read_bytes()
    return otel.run_conversations(data, (0, len(data), 1), str(path))[0]


def test_a_generated_traces_reports_are_filled_into_templates(tmp_path, by_runs):
    # Every option that changes a report: the templates are made with it, and --tools both
    # overrides a transcript's schema (a tool_override finding) and adds a tool.
    path = tmp_path / "otlp.jsonl"
    synthetic.write_otlp(path, 400_000)
    conversations = len(path.read_bytes().splitlines())
    tools = tmp_path / "tools.json"
    listed = [
        {"type": "function", "name": "get_weather", "parameters": {"type": "object"}},
        {"type": "function", "name": "extra_tool", "parameters": {"type": "object"}},
    ]
    tools.write_text(json.dumps(listed), encoding="utf-8")
    for options in ((), ("--strict",), ("--fail-on", "status"), ("--tools", str(tools))):
        by_runs.clear()
        _by_runs_and_alone(path, by_runs, *options)
        assert len(by_runs) == 2 and all(made is not None for made in by_runs)
        # Every conversation but each process's first of a shape filled in (a few dozen
        # shapes: the calls' names and verdicts).
        assert all(conversations // 3 < made.filled < conversations for made in by_runs)


def test_ids_that_json_or_a_message_would_escape_are_written_the_usual_way(tmp_path, by_runs):
    path = tmp_path / "quoted.jsonl"
    synthetic.write_otlp(path, 400_000)
    lines = path.read_bytes().splitlines()
    # Every other conversation's call id holds a quote, non-ASCII or a backslash.
    marks = [b"'", "é".encode(), b"\\\\\\\\"]
    for k in range(0, len(lines), 2):
        lines[k] = lines[k].replace(b'id\\": \\"call_', b'id\\": \\"call' + marks[k % 3], 2)
    path.write_bytes(b"\n".join(lines) + b"\n")
    _status, one, _ = _by_runs_and_alone(path, by_runs)
    ids = [i["call_id"] for d in json.loads(one)["files"] for i in d["items"] if i["call_id"]]
    assert any("'" in i for i in ids) and any("é" in i for i in ids)
    assert any("\\" in i for i in ids)
    assert all(0 < made.filled < len(lines) // 2 + 2 for made in by_runs)


def test_a_template_is_kept_only_when_it_fills_to_the_conversations_own_report(tmp_path):
    path = tmp_path / "otlp.jsonl"
    synthetic.write_otlp(path, 400_000)
    grouped = _conversations_of(path)

    def lengths(name: str, transcript) -> tuple[dict, bool]:
        # A report that depends on how long an id is, not only on the id: no template fits.
        return {"ids": [len(str(i.call_id)) for i in transcript.items]}, False

    def plain(name: str, transcript) -> tuple[dict, bool]:
        return {"ids": [i.call_id for i in transcript.items], "c": transcript.conversation}, True

    for report, kept in ((lengths, False), (plain, True)):
        shapes = traces._Shapes(str(path), report, 2, ({}, 1.0))
        written = [shapes.document(cid, inferences) for cid, inferences in grouped.items()]
        assert written == [shapes._usual(cid, inferences) for cid, inferences in grouped.items()]
        assert shapes.templates and all((t is not None) is kept for t in shapes.templates.values())
        assert (shapes.filled > len(grouped) // 3) is kept


def test_a_call_python_jsonschema_checks_is_judged_for_each_conversation(tmp_path):
    path = tmp_path / "otlp.jsonl"
    synthetic.write_otlp(path, 10_000)
    shapes = traces._Shapes(str(path), lambda name, transcript: ({}, False), 2, ({}, 1.0))
    listed = [
        {"type": "function", "name": "old", "parameters": {"$schema": DRAFT_3, "type": "object"}},
        {"type": "function", "name": "new", "parameters": {"type": "object"}},
    ]
    definitions = json.dumps(listed)
    call = {"type": "function_call", "status": "completed", "call_id": "c", "arguments": "{}"}
    # Its verdict depends on the budget the conversation's calls share: not shared.
    assert shapes._verdict(definitions, {**call, "name": "old"}) is None
    verdict = shapes._verdict(definitions, {**call, "name": "new"})
    assert verdict is not None and verdict[0] == "ok"


DRAFT_3 = "http://json-schema.org/draft-03/schema#"


def test_each_shared_verdict_is_judged_on_a_file_budget_of_its_own(tmp_path, monkeypatch):
    from inspector.core import schema

    path = tmp_path / "otlp.jsonl"
    synthetic.write_otlp(path, 10_000)
    shapes = traces._Shapes(str(path), lambda name, transcript: ({}, False), 2, ({}, 1.0))
    ticks = iter(range(1_000, 10**9))
    monkeypatch.setattr(schema, "budget_clock", lambda: float(next(ticks)))
    seen: list[tuple[int, float, int, float, int]] = []
    judge = shapes._gate_item

    def spy(raw, toolset, *, budget):
        spending = schema.current_file_budget()
        assert spending is not None
        seen.append(
            (id(spending), spending.started, spending.used, spending.seconds, spending.steps)
        )
        try:
            return judge(raw, toolset, budget=budget)
        finally:
            spending.used = schema.FILE_STEPS + 1  # spent: a later call must not see it

    shapes._gate_item = spy
    definitions = json.dumps([{"type": "function", "name": "f", "parameters": {"type": "object"}}])
    calls = [
        {"type": "function_call", "status": "completed", "call_id": "c", "name": "f"}
        | {"arguments": json.dumps({"n": n})}
        for n in range(3)
    ]
    with shapes.judging():
        inside = [shapes._verdict(definitions, call) for call in calls[:2]]
    outside = shapes._verdict(definitions, calls[2])
    assert [verdict and verdict[0] for verdict in (*inside, outside)] == ["ok"] * 3
    # In the run's context one budget, made afresh before each call as FileBudget() makes one;
    # outside it, a new one.
    assert seen[0][0] == seen[1][0] != seen[2][0]
    started = [entry[1] for entry in seen]
    assert started == sorted(set(started))
    assert all(entry[2:] == (0, schema.DEFAULT_FILE_BUDGET, schema.FILE_STEPS) for entry in seen)


def test_the_renamed_copy_leaves_the_conversation_as_it_was(tmp_path):
    path = tmp_path / "otlp.jsonl"
    synthetic.write_otlp(path, 10_000)
    inferences = next(iter(_conversations_of(path).values()))
    # A structured content attribute too (a JSON value, not text).
    inferences[0].attrs[otel.OUTPUT] = json.loads(inferences[0].attrs[otel.OUTPUT])
    before = repr(inferences)
    copies = otel.renamed(inferences, lambda i: "x" + i, lambda r: r, lambda n: 99)
    assert repr(inferences) == before
    output = copies[0].attrs[otel.OUTPUT]
    assert output[0]["parts"][0]["id"].startswith("xcall_") and copies[0].line == 99
    assert json.loads(copies[1].attrs[otel.INPUT])[1]["parts"][0]["id"].startswith("xcall_")


def test_real_spans_repeated_in_other_traces_are_filled_into_templates(tmp_path, by_runs):
    # Every sample's lines three times, each copy its own traces (those that name their
    # conversation once: a conversation id in two runs goes the usual way): the conversations
    # real instrumentations wrote that have a shape (chat spans beside tool spans, Jaeger's
    # tags) are written from their first copy's template, as one process writes them.
    once = _one_line_each(tmp_path, "once.jsonl", own_traces=True).read_bytes().splitlines()
    lines = list(once)
    for copy in range(1, 3):
        tag = b"%02d" % copy
        lines += [
            _TRACE.sub(lambda m, tag=tag: m.group(1) + tag + m.group(2) + b'"', line)
            for line in once
            if b"gen_ai.conversation.id" not in line
        ]
    path = tmp_path / "thrice.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    _by_runs_and_alone(path, by_runs)
    assert all(made is not None and made.filled >= 3 for made in by_runs)


class _Sliced(bytes):
    """A file's bytes that record the size of every slice taken of them."""

    taken: list[int]

    def __getitem__(self, key):  # type: ignore[override]
        if isinstance(key, slice):
            self.taken.append(len(range(*key.indices(len(self)))))
        return super().__getitem__(key)


def test_a_runs_lines_are_read_one_by_one_not_copied_whole(tmp_path):
    # A run copied out whole before its lines are cut would fault its pages in a second time.
    path = tmp_path / "otlp.jsonl"
    synthetic.write_otlp(path, 80_000)
    plain = path.read_bytes()
    cuts = otel.line_runs(plain, 30_000)
    assert cuts is not None and len(cuts) > 1
    data = _Sliced(plain)
    data.taken = []
    for start, stop, first in otel.numbered(plain, cuts):
        copied = otel.run_conversations(plain[start:stop], (0, stop - start, first), str(path))
        assert otel.run_conversations(data, (start, stop, first), str(path)) == copied
    longest = max(len(line) for line in plain.split(b"\n"))
    assert data.taken and max(data.taken) <= longest


def test_lines_of_a_range_are_its_split_lines():
    from inspector.core.formats._sessions import lines_of

    data = b"a\nbb\n\nccc\nd"
    for start in range(len(data) + 1):
        for stop in range(start, len(data) + 1):
            assert list(lines_of(data, start, stop)) == data[start:stop].split(b"\n")


def test_a_runs_documents_are_written_without_being_joined(tmp_path, monkeypatch):
    # Joined, a megabyte of pieces would be copied into a fresh buffer at every flush.
    monkeypatch.setattr(traces, "_FLUSH", 10)
    joined: list[int] = []
    monkeypatch.setattr(traces.os, "pwritev", _counting_pwritev(joined))
    with open(tmp_path / "run", "w+b") as handle:
        out = traces._Out(handle.fileno())
        pieces = [b"abc", b"de", b"fghij", b"k" * 12, b"", b"lm"]
        for piece in pieces:
            out.add(piece)
        out.flush()
        assert out.size == sum(map(len, pieces))
        assert os.pread(handle.fileno(), 100, 0) == b"".join(pieces)
    assert joined == [3, 1, 2]  # the pieces held at each flush, given as they are


def test_a_short_write_writes_the_rest(tmp_path, monkeypatch):
    real = os.pwritev

    def short(fd, buffers, offset):
        return real(fd, [b"".join(buffers)[:2]], offset)

    monkeypatch.setattr(traces.os, "pwritev", short)
    with open(tmp_path / "run", "w+b") as handle:
        out = traces._Out(handle.fileno())
        out.add(b"hello")
        out.add(b" world")
        out.flush()
        assert os.pread(handle.fileno(), 100, 0) == b"hello world"
        assert out.size == 11


def _counting_pwritev(seen: list[int]):
    real = os.pwritev

    def pwritev(fd, buffers, offset):
        seen.append(len(buffers))
        return real(fd, buffers, offset)

    return pwritev


def test_a_runs_documents_are_read_back_in_blocks_of_whole_characters(tmp_path, monkeypatch):
    monkeypatch.setattr(traces, "_BLOCK", 7)
    text = "é€𝄞 plain ascii, then ü and 漢字 again\n".encode() * 3
    with open(tmp_path / "run", "w+b") as handle:
        handle.write(text + b"not this")
        handle.flush()
        blocks = list(traces._blocks(handle.fileno(), len(text)))
    assert b"".join(blocks) == text
    assert len(blocks) > len(text) // 8
    assert all(len(block) <= 7 for block in blocks)
    for block in blocks:
        block.decode("utf-8")  # each whole UTF-8


def test_the_verdicts_kept_hold_one_copy_of_each_tool_definitions(tmp_path):
    # Each conversation parses its own copy of its tool definitions: kept in the verdicts'
    # keys, one copy a conversation would stay alive, the heap growing run after run.
    path = tmp_path / "otlp.jsonl"
    synthetic.write_otlp(path, 60_000)
    grouped = _conversations_of(path)
    parsed = {
        id(d) for inferences in grouped.values() if (d := _definitions(inferences)) is not None
    }
    shapes = traces._Shapes(str(path), lambda name, transcript: ({}, False), 2, ({}, 1.0))
    with shapes.judging():
        for cid, inferences in grouped.items():
            shapes.document(cid, inferences)
    kept = [key[0] for key in shapes.verdicts if key[0] is not None]
    assert len(parsed) > len(set(kept)) > 0  # many copies parsed …
    assert len({id(d) for d in kept}) == len(set(kept))  # … one of each kept


def _definitions(inferences: list[otel.Inference]) -> str | None:
    direct = otel.direct_conversation(inferences)
    return None if direct is None else direct.definitions
