"""Hostile inputs through the CLI and core: each has a defined, tested outcome."""

from __future__ import annotations

import hashlib
import io
import json
import os
import resource
import subprocess
import sys
import threading
from pathlib import Path
from xml.etree import ElementTree

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.cli import run
from inspector.commands.common import Style, safe_text, write_json
from inspector.commands.gate import render_text
from inspector.core import schema as schema_module
from inspector.core.display import SHOWN_DIGITS, digit_count, shorten_digits, show_int
from inspector.core.formats import load_bytes, load_text
from inspector.core.gate import gate_transcript
from inspector.core.jsonio import parse_arguments
from inspector.core.model import ArgumentsError, LoadError
from inspector.core.report import gate_document
from inspector.core.report.html import render_html
from inspector.core.report.junit import render_junit
from inspector.core.report.markdown import render_markdown
from inspector.core.report.model import ReportInput, ReportSide, decide
from inspector.core.report.redact import Redactor
from inspector.core.schema import compile_schema, validate
from tests.core.test_report_redact import python_script

REPO = Path(__file__).resolve().parents[2]
#: The address-space cap every subprocess here runs under (the issue's 4 GB).
MEMORY_CAP = 4 << 30
#: CPU seconds a subprocess may use: far above what a bounded case needs, far below what the
#: unbounded (quadratic, exponential, backtracking) version of each case would take.
CPU_CAP = 60


def _address_space() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


@pytest.fixture(autouse=True, scope="module")
def _four_gb_for_every_case():
    """Every case here, in this process too, allocates within the issue's 4 GB.

    The cap counts from what the test process already holds (other modules' imports), and is
    lifted again after the module; the subprocesses set their own.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = _address_space() + MEMORY_CAP
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    yield
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def gate(*args):
    out, err = io.StringIO(), io.StringIO()
    status = run(["gate", *args], out, err)
    return status, out.getvalue(), err.getvalue()


def call(arguments, name="t"):
    return {
        "type": "function_call",
        "name": name,
        "call_id": "c1",
        "status": "completed",
        "arguments": arguments,
    }


def test_deeply_nested_arguments_are_a_parse_verdict():
    with pytest.raises(ArgumentsError, match="nested too deeply"):
        parse_arguments("[" * 100_000 + "]" * 100_000)


def test_deeply_nested_file_is_a_clear_error(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text('{"input": ' + "[" * 100_000 + "]" * 100_000 + "}")
    status, _, err = gate(str(deep))
    assert status == 2
    assert "nested" in err and str(deep) in err


def test_large_single_string_loads_whole():
    big = "x" * 20_000_000
    transcript = load_text(json.dumps([{"type": "message", "role": "user", "content": big}]))
    assert len(transcript.items[0].raw["content"]) == 20_000_000


@pytest.mark.slow
def test_200_mb_single_string_loads_whole():
    big = "y" * 200_000_000
    transcript = load_text(json.dumps([{"type": "message", "role": "user", "content": big}]))
    assert len(transcript.items[0].raw["content"]) == 200_000_000


def test_lone_surrogates_in_text_and_json_output(tmp_path):
    path = tmp_path / "surrogates.json"
    path.write_text(
        '[{"type": "function_call", "name": "t\\ud800", "call_id": "c\\udfff",'
        ' "status": "completed", "arguments": "{\\"a\\": \\"\\\\ud83d\\"}"}]'
    )
    status, out, _ = gate(str(path))
    assert status == 1
    assert "t\\ud800" in out and "c\\udfff" in out
    status, out, _ = gate(str(path), "--format", "json")
    item = json.loads(out)["files"][0]["items"][0]
    assert item["name"] == "t\ud800"


def test_catastrophic_pattern_is_reported_by_the_cli(tmp_path):
    items = tmp_path / "items.json"
    items.write_text(json.dumps([call(json.dumps({"s": "a" * 3000 + "!"}))]))
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"t": {"properties": {"s": {"pattern": "^(a|aa)+(?!b)$"}}}}))
    status, out, _ = gate(
        str(items), "--tools", str(tools), "--item-budget", "0.2", "--format", "json"
    )
    assert status == 1
    item = json.loads(out)["files"][0]["items"][0]
    assert item["verdict"] == "arguments_schema"
    assert item["errors"][0]["keyword"] == "budget"
    assert "backtrack limit" in item["detail"] and "'^(a|aa)+(?!b)$'" in item["detail"]


def test_bad_item_budget_is_usage_error():
    assert gate("x.json", "--item-budget", "-1")[0] == 2
    assert gate("x.json", "--item-budget", "soon")[0] == 2


def test_ansi_escape_in_finding_messages_is_escaped(tmp_path):
    path = tmp_path / "ansi.json"
    path.write_text(json.dumps({"error": {"message": "\x1b[31mred\x1b[0m alert\x07", "type": "x"}}))
    status, out, _ = gate(str(path))
    assert status == 1
    assert "\x1b" not in out and "\\x1b[31mred" in out


def test_gate_never_modifies_its_inputs(samples, tmp_path):
    files = [
        samples / "providers" / "provider-a.json",
        samples / "logs" / "agent-session.jsonl",
        samples / "article" / "region-schema.tools.json",
    ]
    before = [hashlib.sha256(p.read_bytes()).hexdigest() for p in files]
    gate(str(files[0]), str(files[1]), "--tools", str(files[2]), "--format", "json")
    after = [hashlib.sha256(p.read_bytes()).hexdigest() for p in files]
    assert before == after


@pytest.mark.parametrize(
    "text",
    [
        '{"input": [1, 2, 3]}',
        '{"object": "response", "output": "nope"}',
        '{"input": {"type": "message"}}',
        "[[[]]]",
    ],
)
def test_odd_shapes_load_or_fail_clearly(text):
    try:
        transcript = load_text(text, "odd.json")
    except LoadError as exc:
        assert exc.path == "odd.json" and exc.message
    else:
        assert transcript.items


# --------------------------------------------------------------------------------------------
# Running the real command under the issue's limits


def _limits(cpu: int, memory: int = MEMORY_CAP) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))


def limited(*args: str, cpu: int = CPU_CAP, stdin: bytes | None = None, memory: int = MEMORY_CAP):
    """Run `python -m inspector ARGS` in a subprocess under the memory and CPU caps."""
    return subprocess.run(
        [sys.executable, "-m", "inspector", *args],
        input=stdin,
        capture_output=True,
        cwd=REPO,
        preexec_fn=lambda: _limits(cpu, memory),
        check=False,
    )


def assert_one_line(stderr: bytes) -> str:
    """The error output is at most one line, and never a traceback."""
    text = stderr.decode("utf-8", "replace")
    assert "Traceback" not in text
    assert text.count("\n") <= 1, text
    return text


def transcript_with(schema, arguments, name="t", count=1):
    """A transcript whose own tool `name` has `schema`, called `count` times with `arguments`."""
    calls = [
        {**call(json.dumps(arguments if count == 1 else [arguments, n]), name), "call_id": f"c{n}"}
        for n in range(count)
    ]
    return {"tools": [{"type": "function", "name": name, "parameters": schema}], "input": calls}


def write(tmp_path, name, document):
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


# --------------------------------------------------------------------------------------------
# Schema bombs: measured when compiled, refused past the limit, never run


def chain(combinator: str, depth: int, leaf) -> dict:
    """`$defs` where each level is `{combinator: [{$ref: next}, {$ref: next}]}`: 2^depth."""
    defs = {
        f"l{i}": {combinator: [{"$ref": f"#/$defs/l{i + 1}"}, {"$ref": f"#/$defs/l{i + 1}"}]}
        for i in range(depth)
    }
    defs[f"l{depth}"] = leaf
    return {"type": "object", "properties": {"x": {"$ref": "#/$defs/l0"}}, "$defs": defs}


@pytest.mark.parametrize(
    ("combinator", "depth", "leaf", "value"),
    [
        ("allOf", 32, {"type": "integer"}, 1),
        # A failing leaf: anyOf would collect the errors of all 2^24 branches.
        ("anyOf", 24, {"type": "string"}, 1),
        ("oneOf", 20, {"type": "string"}, 1),
    ],
)
def test_schema_bomb_is_refused_by_the_cli(tmp_path, combinator, depth, leaf, value):
    path = write(
        tmp_path, "bomb.json", transcript_with(chain(combinator, depth, leaf), {"x": value})
    )
    done = limited("gate", str(path), "--format", "json")
    assert done.returncode == 1
    assert_one_line(done.stderr)
    item = json.loads(done.stdout)["files"][0]["items"][0]
    assert item["verdict"] == "arguments_schema"
    assert item["detail"].startswith("the schema of 't' is refused: /$defs/l")
    (error,) = item["errors"]
    assert error["keyword"] == "schema_too_complex"
    # The deepest level that already expands past the limit is named: below it, all is under.
    level = int(error["schema_path"].rsplit("l", 1)[1])
    below = schema_module.measure(chain(combinator, depth - level - 1, leaf)["$defs"]["l0"])
    assert below <= schema_module.MAX_EXPANSION


def test_expansion_just_under_the_limit_is_run():
    depth = schema_module.MAX_EXPANSION.bit_length() - 3
    compiled = compile_schema(chain("allOf", depth, {"type": "integer"}))
    assert compiled.usable and compiled.code is None
    assert schema_module.measure(compiled.schema) <= schema_module.MAX_EXPANSION
    assert validate(compiled, {"x": "one"})[0].keyword == "type"


def test_refs_reached_by_id_and_anchor_are_measured():
    bomb = chain("allOf", 30, {"type": "integer"})
    bomb["$defs"]["l5"] = {"$anchor": "five", **bomb["$defs"]["l5"]}
    bomb["$defs"]["l4"] = {"allOf": [{"$ref": "#five"}, {"$ref": "#five"}]}
    bomb["$defs"]["l3"]["$id"] = "https://example.com/l3"
    bomb["properties"]["x"] = {"$ref": "https://example.com/l3"}
    compiled = compile_schema(bomb)
    assert compiled.code == "schema_too_complex"


def test_recursive_schema_is_measured_once_and_runs():
    tree = {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}}}
    assert schema_module.measure(tree) < 10
    compiled = compile_schema(tree)
    assert validate(compiled, {"kids": [{"kids": []}, {"kids": "no"}]})[0].path == "/kids/1/kids"


@pytest.mark.parametrize("key", ["enum", "default", "description", "$defs", "$schema"])
def test_properties_named_like_keywords_are_still_measured(key):
    schema = {"properties": {key: {"$ref": "#/$defs/l0"}}, "$defs": chain("allOf", 30, {})["$defs"]}
    assert compile_schema(schema).code == "schema_too_complex"


def test_unevaluated_properties_double_what_they_rewalk():
    depth = 1
    while schema_module.measure(chain("allOf", depth + 1, {}), 10**9) <= 2**14:
        depth += 1
    inner = chain("allOf", depth, {})
    # Between half the limit and the limit: fine alone, past it when walked twice.
    assert schema_module.MAX_EXPANSION // 2 < schema_module.measure(inner) <= 2**14
    assert compile_schema(inner).usable
    assert compile_schema({**inner, "unevaluatedProperties": False}).code == "schema_too_complex"


def test_unevaluated_properties_search_patterns_under_the_limits(tmp_path):
    # A lookaround sends the schema to python-jsonschema, whose unevaluatedProperties matches
    # patternProperties with `re` itself: `^(a+)+$` against 5,000 `a`s and a `!` would
    # backtrack for longer than the universe. It runs on fancy-regex (linear for it) instead.
    schema = {
        "type": "object",
        "properties": {"y": {"type": "string", "pattern": "^(?=y)y$"}},
        "patternProperties": {"^(a+)+$": {}},
        "unevaluatedProperties": False,
    }
    path = write(tmp_path, "uneval.json", transcript_with(schema, {"a" * 5000 + "!": 1}))
    done = limited("gate", str(path), "--format", "json")
    assert done.returncode == 1
    assert_one_line(done.stderr)
    item = json.loads(done.stdout)["files"][0]["items"][0]
    assert [e["keyword"] for e in item["errors"]] == ["unevaluatedProperties"]
    assert compile_schema(schema).engine == schema_module.ENGINE_PY


def test_backtracking_pattern_under_unevaluated_properties_hits_the_backtrack_limit():
    schema = {
        "patternProperties": {"^(a|aa)+(?!b)$": {}},
        "unevaluatedProperties": False,
    }
    compiled = compile_schema(schema)
    (issue,) = validate(compiled, {"a" * 3000 + "!": 1})
    assert issue.keyword == "budget" and "backtrack limit" in issue.message


def test_many_items_just_under_the_item_bound_hit_the_file_bound(tmp_path, monkeypatch):
    # Each item's fallback validation takes just under ITEM_STEPS keyword evaluations; the
    # file's total stops the run after FILE_STEPS of them, whatever the clock says.
    monkeypatch.setattr(schema_module, "ITEM_STEPS", 500)
    monkeypatch.setattr(schema_module, "FILE_STEPS", 5_000)
    schema = {"type": "array", "items": {"type": "string", "pattern": "^(?=s)s$"}}
    compiled = compile_schema(schema)
    with schema_module.file_budget() as budget:
        steps_before = budget.used
        assert validate(compiled, ["s"] * 150) == ()
        per_item = budget.used - steps_before
    assert schema_module.ITEM_STEPS * 0.8 < per_item < schema_module.ITEM_STEPS
    items = [call(json.dumps(["s"] * 150 + [n])) for n in range(60)]
    for n, item in enumerate(items):
        item["call_id"] = f"c{n}"
    path = write(tmp_path, "sixty.json", {"tools": [tool("t", schema)], "input": items})
    status, out, err = gate(str(path), "--format", "json")
    assert status == 1 and not err
    verdicts = json.loads(out)["files"][0]["items"]
    budgeted = [v for v in verdicts if v["errors"] and v["errors"][0]["keyword"] == "budget"]
    checked = len(verdicts) - len(budgeted)
    assert checked <= schema_module.FILE_STEPS // per_item + 1
    assert budgeted and all("validation of this file exceeded" in v["detail"] for v in budgeted)
    assert "5,000 keyword evaluations" in budgeted[-1]["detail"]


def tool(name, parameters):
    return {"type": "function", "name": name, "parameters": parameters}


class CancelAfter(threading.Event):
    """A cancel flag that turns itself on after being looked at `n` times."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n
        self.looks = 0

    def is_set(self) -> bool:
        self.looks += 1
        return self.looks > self.n or super().is_set()


def unique_objects(count: int) -> list:
    # One integer past 64 bits keeps the instance out of jsonschema-rs's reach.
    return [{"id": n, "tag": "x"} for n in range(count)] + [2**65]


def test_unique_items_compares_objects_as_json_values():
    compiled = compile_schema({"type": "array", "uniqueItems": True})
    instance = unique_objects(1_000)
    assert validate(compiled, [*instance, {"id": 1.5}, {"id": True}, [1, 2], [2, 1]]) == ()
    (issue,) = validate(compiled, [*instance, {"tag": "x", "id": 7.0}])
    assert issue.keyword == "uniqueItems" and "item 1001 equals item 7" in issue.message


def test_cancel_stops_unique_items_in_the_fallback():
    compiled = compile_schema({"type": "array", "uniqueItems": True})
    cancel = CancelAfter(10)
    (issue,) = validate(compiled, unique_objects(100_000), cancel=cancel)
    assert issue.keyword == "budget" and issue.message == "validation was cancelled"
    # Looked at between keywords and every 256 elements: stopped long before the end.
    assert cancel.looks == 11


def test_cancel_stops_the_fallback_between_keywords():
    compiled = compile_schema(
        {"type": "array", "items": {"type": "object", "required": ["id"], "uniqueItems": True}}
    )
    cancel = CancelAfter(50)
    (issue,) = validate(compiled, unique_objects(10_000), cancel=cancel)
    assert issue.message == "validation was cancelled" and cancel.looks == 51


def test_unique_items_over_100k_objects_by_the_cli(tmp_path):
    schema = {"type": "array", "uniqueItems": True}
    document = {"tools": [tool("t", schema)], "input": [call(json.dumps(unique_objects(100_000)))]}
    path = write(tmp_path, "unique.json", document)
    # Only the CPU cap bounds it: pairwise comparison (5 * 10^9 of them) would overrun it.
    done = limited("gate", str(path), "--format", "json", "--item-budget", "3600")
    assert_one_line(done.stderr)
    assert done.returncode == 0
    assert json.loads(done.stdout)["files"][0]["items"][0]["verdict"] == "ok"


# --------------------------------------------------------------------------------------------
# Numbers: infinity, NaN, 5,000-digit integers


@pytest.mark.parametrize("number", ["1e999", "-1e999", "[1, 2e400]"])
def test_numbers_beyond_a_double_in_arguments_are_a_parse_verdict(tmp_path, number):
    document = {"tools": [tool("t", {"properties": {"a": {"maximum": 10}}})]}
    document["input"] = [call('{"a": ' + number + "}")]
    status, out, _ = gate(str(write(tmp_path, "inf.json", document)), "--format", "json")
    item = json.loads(out)["files"][0]["items"][0]
    assert status == 1 and item["verdict"] == "arguments_parse"
    assert "overflows to infinity" in item["detail"]


@pytest.mark.parametrize("bound", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_schema_bounds_are_a_schema_error(tmp_path, bound):
    tools = tmp_path / "tools.json"
    tools.write_text('{"t": {"properties": {"a": {"maximum": ' + bound + "}}}}")
    items = write(tmp_path, "items.json", [call('{"a": 5}')])
    status, out, err = gate(str(items), "--tools", str(tools), "--format", "json")
    assert status == 1 and not err
    item = json.loads(out)["files"][0]["items"][0]
    assert item["verdict"] == "arguments_schema"
    assert item["errors"][0]["keyword"] == "schema_invalid"
    assert item["errors"][0]["schema_path"] == "/properties/a/maximum"
    assert "must be finite" in item["detail"]


SCHEMA_VALUES = [5, [], {}, True, None, 1.5]


@pytest.mark.parametrize("value", SCHEMA_VALUES, ids=repr)
@pytest.mark.parametrize("command", ["gate", "diff", "report", "tools"])
def test_schema_dialect_that_is_not_a_string_is_a_schema_error(tmp_path, value, command):
    schema = {"$schema": value, "type": "object", "properties": {"a": {"$schema": value}}}
    path = write(tmp_path, "dialect.json", transcript_with(schema, {"a": 1}))
    args = [command, str(path)] + ([str(path)] if command == "diff" else [])
    out, err = io.StringIO(), io.StringIO()
    status = run(args, out, err)
    assert status in (0, 1), err.getvalue()
    assert "Traceback" not in err.getvalue()
    if command == "gate":
        assert "the schema of 't' is refused: /$schema: $schema must be a string" in out.getvalue()


BIG = "9" * 5000
#: A transcript, or a stream, with BIG in one field.
BIG_FIELDS = {
    "call_id": ("json", {"call_id": "BIG"}),
    "name": ("json", {"name": "BIG"}),
    "type": ("json", {"type": "BIG"}),
    "bound": ("json", {"bound": "BIG"}),
    "arguments": ("json", {"arguments": '{"a": BIG}'}),
    "sequence_number": ("sse", {"sequence_number": "BIG"}),
    "output_index": ("sse", {"output_index": "BIG"}),
}


def big_file(tmp_path, field: str) -> Path:
    """A file with a 5,000-digit integer in `field`, written as JSON text (no int() on BIG)."""
    kind, _ = BIG_FIELDS[field]
    if kind == "sse":
        events = [
            {"type": "response.created", "sequence_number": 0, "response": {"id": "r"}},
            {
                "type": "response.output_item.added",
                "sequence_number": 1,
                "output_index": 0,
                "item": {"type": "message", "id": "m", "role": "assistant", "content": []},
            },
        ]
        events[1][field] = "BIG"
        text = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
        path = tmp_path / f"{field}.sse"
    else:
        item = call('{"a": 1}')
        if field == "arguments":
            item["arguments"] = '{"a": BIG}'
        elif field != "bound":
            item[field] = "BIG"
        schema = {"properties": {"a": {"maximum": "BIG" if field == "bound" else 10}}}
        text = json.dumps({"tools": [tool("t", schema)], "input": [item]})
        path = tmp_path / f"{field}.json"
    path.write_text(text.replace('"BIG"', BIG).replace("BIG", BIG))
    return path


COMMANDS = [
    ["gate"],
    ["gate", "--format", "json"],
    ["events"],
    ["events", "--format", "json"],
    ["tools"],
    ["report"],
    ["report", "--format", "markdown"],
    ["report", "--format", "junit"],
    ["diff", "SELF"],
]


@pytest.mark.parametrize("field", list(BIG_FIELDS))
def test_5000_digit_integers_never_crash_a_command(tmp_path, field):
    path = str(big_file(tmp_path, field))
    for command in COMMANDS:
        if command[0] == "events" and not path.endswith(".sse"):
            continue
        if command[0] == "report" and path.endswith(".sse"):
            continue  # a report of a stream with violations fails on its own (Violation.items)
        args = [path if a == "SELF" else a for a in command]
        out, err = io.StringIO(), io.StringIO()
        status = run([args[0], path, *args[1:]], out, err)
        assert status in (0, 1, 2), (command, err.getvalue())
        assert err.getvalue().count("\n") <= 1, (command, err.getvalue())
        text = out.getvalue()
        if "json" in command:
            assert field not in ("call_id", "name") or BIG in text  # exact in JSON
        elif command[0] == "gate":
            assert BIG not in text
            if field in ("call_id", "name"):
                assert "99999999…99999999 (5,000 digits)" in text


def test_5000_digit_integers_are_exact_in_the_json_output(tmp_path):
    _status, out, _ = gate(str(big_file(tmp_path, "call_id")), "--format", "json")
    assert json.loads(out)["files"][0]["items"][0]["call_id"] == int(BIG)


def test_bound_past_64_bits_is_kept_exact():
    compiled = compile_schema({"minLength": 10**100})
    (issue,) = validate(compiled, "x")
    assert issue.keyword == "minLength" and "18446744073709551615" not in issue.message
    compiled = compile_schema({"maximum": int(BIG)})
    assert validate(compiled, int(BIG)) == ()
    (issue,) = validate(compiled, int(BIG) + 1)
    assert "(5,000 digits)" in issue.message and len(issue.message) < 200


def test_integer_literals_past_the_text_limit_are_refused():
    with pytest.raises(LoadError, match="100,000"):
        load_text("[" + "7" * 100_002 + "]", "long.json")


# --------------------------------------------------------------------------------------------
# Secrets in reports: linear redaction, keys after any character, header values, clipping

REPORT_FORMATS = ["html", "markdown", "junit"]
#: Assembled at run time: no string here looks like a live credential to a scanner.
OPENAI_KEY = "sk-" + "proj-" + "Ab3" * 14
JWT = "eyJ" + "hbGciOiJIUzI1NiJ9." + "eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0." + "s1g" * 9
HEADER_SECRETS = {"x-api-key": "k3y-" + "plain" * 3, "Authorization": "Basic " + "dXNlcjpwYXNz"}


def report_all(tmp_path, path, *extra):
    """The report of `path` in every format, as text; each run's exit status is 0 or 1."""
    texts = []
    for fmt in REPORT_FORMATS:
        out_path = tmp_path / f"report.{fmt}"
        status, _, err = run_cli("report", str(path), *extra, "--format", fmt, "-o", str(out_path))
        assert status in (0, 1), err
        texts.append(out_path.read_text(encoding="utf-8"))
    return texts


def run_cli(*args):
    out, err = io.StringIO(), io.StringIO()
    status = run(list(args), out, err)
    return status, out.getvalue(), err.getvalue()


def test_keys_after_word_characters_never_reach_a_report(tmp_path):
    # In a raw `arguments` string a key after a newline sits right after the `n` of `\n`.
    arguments = json.dumps({"note": f"line one\n{OPENAI_KEY}\nx{JWT}", "b": f"id_{OPENAI_KEY}"})
    items = [call(arguments, name="unknown"), call("{bad json " + OPENAI_KEY, name="unknown")]
    items[1]["call_id"] = "c2"
    path = write(tmp_path, "glued.json", items)
    for text in report_all(tmp_path, path):
        assert "Ab3Ab3" not in text and "zdWIiOiIx" not in text


def test_header_values_never_reach_a_report(tmp_path):
    items = [
        call("{}", name="fetch"),
        {"type": "function_call_output", "call_id": "c1", "output": json.dumps(HEADER_SECRETS)},
        {"type": "message", "role": "user", "content": [{"type": "input_text", **HEADER_SECRETS}]},
    ]
    path = write(tmp_path, "headers.json", items)
    for text in report_all(tmp_path, path):
        assert "plainplain" not in text and "dXNlcjpwYXNz" not in text


def test_key_across_the_400_character_cut_of_a_schema_message_never_reaches_a_report(tmp_path):
    schema = {"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}}}
    # The message quotes the value: `'xxx…sk-proj-…' is too long`, clipped at 400 characters
    # in the core, with the key straddling the cut.
    value = "x" * (schema_module.MAX_MESSAGE - 12) + OPENAI_KEY
    path = write(tmp_path, "cut.json", transcript_with(schema, {"a": value}))
    _status, out, _ = gate(str(path), "--format", "json")
    message = json.loads(out)["files"][0]["items"][0]["errors"][0]["message"]
    assert len(message) <= schema_module.MAX_MESSAGE and "sk-" not in message
    for text in report_all(tmp_path, path):
        assert "Ab3" not in text and "sk-proj" not in text


def test_300_kb_of_key_prefixes_in_a_call_id_report_in_every_format(tmp_path):
    items = [{**call("{}"), "call_id": "sk-" * 100_000}, {**call("{}"), "call_id": "eyJ" * 100_000}]
    path = write(tmp_path, "prefixes.json", items)
    for fmt in REPORT_FORMATS:
        out_path = tmp_path / f"report.{fmt}"
        # Capped CPU: the rescanning patterns took minutes here, a single pass takes moments.
        done = limited("report", str(path), "--format", fmt, "-o", str(out_path), cpu=30)
        assert done.returncode == 1, done.stderr
        assert_one_line(done.stderr)
        assert out_path.stat().st_size > 0


# --------------------------------------------------------------------------------------------
# Signals and output: 130 / 143, one line, no traceback, no partial file; write errors

#: Kernel wait channels of a process blocked reading its standard input (a pipe).
WAITING_ON_INPUT = {"do_epoll_wait", "pipe_read", "do_select", "do_sys_poll", "ep_poll"}


def started(*args: str, **options):
    """Start `python -m inspector ARGS` reading a pipe we hold open, under the memory cap."""
    return subprocess.Popen(
        [sys.executable, "-m", "inspector", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        preexec_fn=lambda: _limits(CPU_CAP),
        **options,
    )


def wait_until_reading(process: subprocess.Popen) -> None:
    """Return once the process is blocked reading its input (its handlers are in place)."""
    wchan = Path(f"/proc/{process.pid}/wchan")
    for _ in range(6000):
        if wchan.read_text() in WAITING_ON_INPUT:
            return
        assert process.poll() is None, process.stderr.read()
        threading.Event().wait(0.01)
    pytest.fail(f"the command never waited on its input ({wchan.read_text()})")


@pytest.mark.parametrize(("sent", "status", "word"), [(2, 130, "SIGINT"), (15, 143, "SIGTERM")])
@pytest.mark.parametrize("command", [["gate", "-", "--format", "json"], ["report", "-"]])
def test_signals_end_a_command_with_one_line(tmp_path, sent, status, word, command):
    if not Path("/proc/self/wchan").exists():
        pytest.skip("no /proc wait channels here")
    output = tmp_path / "out" / "report.md"
    output.parent.mkdir()
    args = [*command, "-o", str(output)] if command[0] == "report" else command
    process = started(*args)
    process.stdin.write(b'{"input": [')  # half a file: the command waits for the rest
    process.stdin.flush()
    wait_until_reading(process)
    process.send_signal(sent)
    out, err = process.communicate()
    assert process.returncode == status
    line = assert_one_line(err)
    assert word in line and "may be cut off" in line
    # gate streams its JSON: what came out is a cut document, and stderr said so. A report is
    # written whole or not at all: no file, no temporary file.
    assert out == b"" if command[0] == "report" else out.startswith(b'{\n  "files": ')
    assert list(output.parent.iterdir()) == []


def test_an_interrupted_atomic_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    from inspector.commands import common

    def interrupted(_fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(common.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        common.write_atomic(str(tmp_path / "report.md"), "x" * 1_000_000)
    assert list(tmp_path.iterdir()) == []


SAMPLE = REPO / "samples" / "providers" / "provider-a.json"


def test_a_full_disk_on_stdout_is_one_line_and_exit_2():
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "inspector", "gate", str(SAMPLE), "--format", "json"],
            stdout=full,
            stderr=subprocess.PIPE,
            cwd=REPO,
            check=False,
        )
    assert done.returncode == 2
    assert "cannot write to standard output: No space left on device" in assert_one_line(
        done.stderr
    )


def test_a_closed_stdout_is_one_line_and_exit_2():
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "gate", str(SAMPLE)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=REPO,
        check=False,
        # The child starts with descriptor 1 closed, as `>&-` does.
        preexec_fn=lambda: os.close(1),
    )
    assert done.returncode == 2
    assert "standard output is closed" in assert_one_line(done.stderr)


def test_output_refuses_fifos_devices_and_symlinks(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    target = tmp_path / "target.md"
    target.write_text("keep me")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    for output, what in [
        (fifo, "a FIFO"),
        ("/dev/null", "a character device"),
        (link, "a symbolic link"),
        (tmp_path, "a folder"),
    ]:
        status, _, err = run_cli("report", str(SAMPLE), "-o", str(output))
        assert status == 2 and f"is {what}; -o writes only regular files" in err
        assert err.count("\n") == 1
    assert target.read_text() == "keep me" and link.is_symlink()


def test_output_dash_is_standard_output():
    status, out, err = run_cli("report", str(SAMPLE), "-o", "-")
    assert status == 1 and not err and out.startswith("## ")


def test_output_refuses_the_file_standard_input_reads(tmp_path):
    copy = tmp_path / "in.json"
    copy.write_bytes(SAMPLE.read_bytes())
    with copy.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "inspector", "report", "-", "-o", str(copy)],
            stdin=stdin,
            capture_output=True,
            cwd=REPO,
            check=False,
        )
    assert done.returncode == 2
    assert "is the file standard input is reading" in assert_one_line(done.stderr)
    assert copy.read_bytes() == SAMPLE.read_bytes()


def test_memory_error_anywhere_is_one_line_and_exit_2():
    # Whatever runs out of memory (a parser, a renderer), the entry point ends the same way.
    script = (
        "import inspector.cli as cli\n"
        "def exhausted(args, *rest):\n"
        "    raise MemoryError\n"
        "cli.run = exhausted\n"
        "from inspector.__main__ import main\n"
        "main(['gate', 'x.json'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, cwd=REPO, check=False
    )
    assert done.returncode == 2
    assert "out of memory" in assert_one_line(done.stderr)


# --------------------------------------------------------------------------------------------
# Memory headroom, invisible characters, truncated files, standard input named twice


def test_a_huge_document_near_the_memory_cap_is_not_given_to_orjson():
    # orjson can crash when an allocation fails on its error path; with too little address
    # space left the standard library parses instead, and fails with a clean error.
    script = (
        "import os, resource\n"
        "from inspector.core import jsonio\n"
        "text = b'[1, nope' + b' ' * (64 << 20) + b']'\n"
        "used = int(open('/proc/self/statm').read().split()[0]) * os.sysconf('SC_PAGE_SIZE')\n"
        "cap = used + (256 << 20)\n"
        "resource.setrlimit(resource.RLIMIT_AS, (cap, cap))\n"
        "assert not jsonio.orjson_has_headroom(len(text))\n"
        "try:\n"
        "    jsonio.parse(text)\n"
        "except jsonio.JSONError as exc:\n"
        "    print('refused', exc.line, exc.column)\n"
    )
    assert python_script(script) == "refused 1 5"


def test_orjson_keeps_small_documents_and_unlimited_processes():
    from inspector.core.jsonio import orjson_has_headroom

    assert orjson_has_headroom(1024)
    if resource.getrlimit(resource.RLIMIT_AS)[0] == resource.RLIM_INFINITY:
        assert orjson_has_headroom(1 << 40)


INVISIBLE_CHARACTERS = "\u2028\u2029\u061c\u200b\ufeff\u2060\u180e\x85\x9b"


def test_invisible_and_separator_characters_are_escaped_in_text_output(tmp_path):
    name = "t" + INVISIBLE_CHARACTERS
    path = write(tmp_path, "invisible.json", [call("{}", name=name)])
    status, out, _ = gate(str(path))
    assert status == 1
    assert not any(ch in out for ch in INVISIBLE_CHARACTERS)
    assert "t\\u2028\\u2029\\u061c\\u200b\\ufeff\\u2060\\u180e\\x85\\x9b" in out


def test_c1_controls_and_separators_are_escaped_in_json_output(tmp_path):
    path = write(tmp_path, "c1.json", [call("{}", name="a\x9b[31mb\u2028c")])
    _status, out, _ = gate(str(path), "--format", "json")
    assert "\x9b" not in out and "\u2028" not in out
    assert "a\\u009b[31mb\\u2028c" in out
    assert json.loads(out)["files"][0]["items"][0]["name"] == "a\x9b[31mb\u2028c"


def test_a_file_cut_short_while_read_says_so(tmp_path, monkeypatch):
    from inspector.core import jsonio

    path = write(tmp_path, "rotated.json", [call("{}")] * 50)
    opened = jsonio._open

    def open_then_truncate(name):
        fd, info, owned = opened(name)
        os.truncate(path, 100)  # rotated by another process right after it was opened
        return fd, info, owned

    monkeypatch.setattr(jsonio, "_open", open_then_truncate)
    status, _, err = gate(str(path))
    assert status == 2
    assert "the file changed while it was read" in err and str(path) in err


@pytest.mark.parametrize(
    "args",
    [
        ["gate", "-", "--tools", "-"],
        ["gate", "-", "-"],
        ["diff", "-", "x.json", "--tools", "-"],
        ["report", "-", "--tools", "-"],
    ],
)
def test_standard_input_named_twice_is_a_usage_error(args):
    status, out, err = run_cli(*args)
    assert status == 2 and not out
    assert "standard input (-) can be read only once" in err and err.count("\n") == 1


# --------------------------------------------------------------------------------------------
# Properties: every number size, the schema compiler, the renderers

PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: Integers of every size: small, around 64 bits, and up to 5,000 digits.
any_int = st.one_of(
    st.integers(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.builds(
        lambda digits, sign, low: sign * (10 ** (digits - 1) + low),
        st.integers(min_value=1, max_value=5000),
        st.sampled_from([1, -1]),
        st.integers(min_value=0, max_value=10**6),
    ),
)
numbers = st.one_of(any_int, st.floats(allow_nan=True, allow_infinity=True))


@PROPERTY
@given(any_int)
def test_every_integer_size_is_shown_briefly_and_counted_exactly(number):
    digits = len(str(abs(number)))  # the parser's module lifted the text limit
    assert digit_count(number) == digits
    shown = show_int(number)
    if digits <= SHOWN_DIGITS:
        assert shown == str(number)
    else:
        assert len(shown) < 45 and f"({digits:,} digits)" in shown
        assert shown.lstrip("-")[:8] == str(abs(number))[:8]
    assert len(shorten_digits(f"x {number} y")) < 60


DIALECT = "https://json-schema.org/draft/2020-12/schema"
names = st.sampled_from(["a", "b", "enum", "$ref"])
schema_leaves = st.one_of(
    st.booleans(),
    st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["string", "integer", "number", "object", "array", "null"]),
            "minimum": numbers,
            "maximum": numbers,
            "multipleOf": numbers,
            "minLength": any_int,
            "maxItems": any_int,
            "pattern": st.sampled_from(["^a", "(?=a)a", "^(a+)+$", "(a|aa)+(?!b)$", "["]),
            "enum": st.lists(st.one_of(st.none(), any_int, st.text(max_size=4)), max_size=3),
            "uniqueItems": st.booleans(),
            "$ref": st.sampled_from(["#", "#/$defs/a", "#/$defs/b", "#nowhere", "http://x/y"]),
            "$schema": st.one_of(
                st.just("https://json-schema.org/draft/2020-12/schema"), numbers, st.just([])
            ),
        },
    ),
)
schemas = st.recursive(
    schema_leaves,
    lambda inner: st.fixed_dictionaries(
        {},
        optional={
            "allOf": st.lists(inner, min_size=1, max_size=3),
            "anyOf": st.lists(inner, min_size=1, max_size=3),
            "oneOf": st.lists(inner, min_size=1, max_size=3),
            "not": inner,
            "items": inner,
            "properties": st.dictionaries(
                st.sampled_from(["a", "b", "enum", "$ref"]), inner, max_size=3
            ),
            "patternProperties": st.dictionaries(
                st.sampled_from(["^a", "^(a+)+$"]), inner, max_size=2
            ),
            "unevaluatedProperties": inner,
            "$defs": st.fixed_dictionaries({"a": inner, "b": inner}),
        },
    ),
    max_leaves=12,
)
instances = st.recursive(
    st.one_of(st.none(), st.booleans(), any_int, st.floats(allow_nan=False), st.text(max_size=6)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(["a", "aa", "b"]), inner, max_size=3),
    ),
    max_leaves=10,
)


@PROPERTY
@given(schemas, instances)
def test_the_schema_compiler_refuses_or_validates_any_schema(schema, instance):
    compiled = compile_schema(schema)
    if not compiled.usable:
        assert compiled.problem and len(compiled.problem) <= schema_module.MAX_MESSAGE
        return
    assert schema_module.measure(schema) <= schema_module.MAX_EXPANSION
    for issue in validate(compiled, instance, budget=600):
        assert len(issue.message) <= schema_module.MAX_MESSAGE
        assert issue.keyword


@PROPERTY
@given(st.integers(min_value=2, max_value=40), st.sampled_from(["allOf", "anyOf", "oneOf"]))
def test_any_combinator_chain_is_refused_exactly_past_the_limit(depth, combinator):
    schema = chain(combinator, depth, {"type": "string"})
    expansion = schema_module.measure(schema, 10**30)
    assert (compile_schema(schema).code == "schema_too_complex") == (
        expansion > schema_module.MAX_EXPANSION
    )


field_values = st.one_of(
    any_int,
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from([OPENAI_KEY, "x" + JWT, "\x9b\u2028\x1b[2J", "function_call", "completed"]),
)
items = st.lists(
    st.fixed_dictionaries(
        {"type": st.one_of(st.just("function_call"), field_values)},
        optional={
            "name": field_values,
            "call_id": field_values,
            "status": st.one_of(st.just("completed"), field_values),
            "arguments": st.one_of(
                st.just('{"a": 1e999}'), st.builds(lambda v: json.dumps({"a": v}), field_values)
            ),
            "output": field_values,
        },
    ),
    min_size=1,
    max_size=4,
)


def _dumps(value) -> bytes:
    # NaN / Infinity as JSON's common extension: the lenient file parser accepts them.
    return json.dumps(value, allow_nan=True).encode()


@PROPERTY
@given(items)
def test_the_renderers_take_any_items_and_never_show_a_key(raw_items):
    transcript = load_bytes(_dumps({"input": raw_items}), "items.json")
    result = gate_transcript(transcript)
    side = ReportSide("items.json", result)
    report = ReportInput(sides=(side,), decision=decide([side], None))
    rendered = [
        render(report, Redactor()) for render in (render_html, render_markdown, render_junit)
    ]
    text = "\n".join(render_text("items.json", result, Style(False)))
    assert not any(ch in text for ch in "\x9b\u2028\x1b")
    assert "(5,000 digits)" not in text or BIG not in text
    for output in rendered:
        assert "Ab3Ab3" not in output and "zdWIiOiIx" not in output
    out = io.StringIO()
    write_json(gate_document("items.json", result), out)  # any number is written as JSON
    assert "\x9b" not in out.getvalue() and "\u2028" not in out.getvalue()
    assert all(safe_text(line) == line for line in text.splitlines())


def test_the_file_budget_in_seconds_holds_on_an_injected_clock(monkeypatch):
    # Every look at the clock is one second later: the file's 30 s run out after 30 looks,
    # whichever items are being validated, on either engine.
    ticks = iter(range(10**9))
    monkeypatch.setattr(schema_module, "budget_clock", lambda: float(next(ticks)))
    compiled = compile_schema({"type": "string"})
    with schema_module.file_budget(schema_module.FileBudget(seconds=30)):
        answers = [validate(compiled, "s", budget=10**6) for _ in range(40)]
    spent = [a for a in answers if a and "total budget of 30 s" in a[0].message]
    assert answers[0] == () and spent and len(answers) - len(spent) <= 31


# --------------------------------------------------------------------------------------------
# Memory: reports and timelines cap what they hold; huge invalid documents; MemoryError


def blocked_calls(path: Path, count: int) -> Path:
    """A request of `count` calls to a tool it does not declare (each one `unknown_tool`)."""
    with path.open("w", encoding="utf-8") as out:
        out.write('{"input": [')
        out.write(
            ",".join(
                '{"type": "function_call", "name": "t", "call_id": "c' + str(n) + '", '
                '"status": "completed", "arguments": "{}"}'
                for n in range(count)
            )
        )
        out.write("]}")
    return path


def test_reports_of_many_blocked_calls_cap_what_they_list(tmp_path, monkeypatch):
    from inspector.core.report import html as html_report
    from inspector.core.report import junit as junit_report

    monkeypatch.setattr(html_report, "ROW_LIMIT", 100)
    monkeypatch.setattr(html_report, "KEPT_LIMIT", 40)
    monkeypatch.setattr(junit_report, "CASE_LIMIT", 30)
    path = blocked_calls(tmp_path / "calls.json", 3_000)
    page, markdown, junit = report_all(tmp_path, path)
    # HTML: the first 40 blocked rows with their detail, the 2,960 others counted in one line.
    assert page.count('<td class="v v-unknown_tool">') == 40
    assert "2,960 rows not shown (rows 40–2,999: unknown_tool 2,960)" in page
    assert "only the first 40 of the 3,000 blocked rows are listed" in page
    # Markdown stays under its size and says how many of the blocked items it shows.
    assert len(markdown) < 65_536
    assert "Blocked items: " in markdown and " of 3,000 shown" in markdown
    # JUnit: 30 item cases, then one failing case for the 2,970 others; the counts add up.
    root = ElementTree.fromstring(junit)
    gate_suite = root.find("testsuite")
    cases = gate_suite.findall("testcase")
    items = [c for c in cases if c.get("classname") == "gate.items"]
    assert len(items) == 31 and items[-1].get("name") == "… and 2,970 more items"
    failure = items[-1].find("failure")
    assert failure.get("message") == (
        "2,970 more items not listed (unknown_tool 2,970); 2,970 of them fail"
    )
    assert gate_suite.get("tests") == str(len(cases))
    assert gate_suite.get("failures") == str(sum(c.find("failure") is not None for c in cases))


@pytest.mark.slow
def test_a_report_of_a_million_blocked_calls_in_every_format(tmp_path):
    path = blocked_calls(tmp_path / "million.json", 1_000_000)
    left_out = {
        "html": "995,000 rows not shown (rows 5,000–999,999: unknown_tool 995,000)",
        "markdown": " of 1,000,000 shown",
        "junit": "… and 990,000 more items",
    }
    for fmt in REPORT_FORMATS:
        out_path = tmp_path / f"report.{fmt}"
        done = limited("report", str(path), "--format", fmt, "-o", str(out_path), cpu=600)
        assert done.returncode == 1, done.stderr
        assert_one_line(done.stderr)
        text = out_path.read_text(encoding="utf-8")
        assert len(text) < 20_000_000
        assert left_out[fmt] in text  # how many were left out is said


def delta_stream(path: Path, deltas: int, item_id: str = "m", jsonl: bool = False) -> Path:
    """An unnumbered text stream of `deltas` deltas to `item_id`, written as repeated bytes."""

    def frame(event: dict) -> bytes:
        if jsonl:
            return f"{json.dumps(event)}\n".encode()
        return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()

    head = [
        {"type": "response.created", "response": {"id": "r", "status": "in_progress"}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "message", "id": "m", "role": "assistant", "content": []},
        },
        {
            "type": "response.content_part.added",
            "output_index": 0,
            "item_id": "m",
            "content_index": 0,
            "part": {"type": "output_text", "text": ""},
        },
    ]
    delta = frame(
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "item_id": item_id,
            "content_index": 0,
            "delta": "hello ",
        }
    )
    with path.open("wb") as out:
        out.write(b"".join(frame(e) for e in head))
        for _ in range(deltas // 1000):
            out.write(delta * 1000)
        out.write(delta * (deltas % 1000))
    return path


def every_sample_stream():
    return sorted(p for p in (REPO / "samples").rglob("*.sse") if "expected" not in p.parts)


def test_a_stream_reduced_as_it_is_read_is_the_stream_loaded_whole(tmp_path, monkeypatch):
    from inspector.core import formats

    # Windows of 7 bytes cut every line, field and CRLF pair somewhere.
    monkeypatch.setattr(formats, "STREAM_WINDOW", 7)
    streams = every_sample_stream()
    assert len(streams) >= 15
    for path in list(streams):
        # The same streams with CRLF and CR-only line endings and a byte-order mark.
        data = path.read_bytes().replace(b"\r\n", b"\n")
        for name, variant in (
            ("crlf", data.replace(b"\n", b"\r\n")),
            ("cr", data.replace(b"\n", b"\r")),
        ):
            streams.append(tmp_path / f"{path.stem}.{name}.sse")
            streams[-1].write_bytes(b"\xef\xbb\xbf" + variant)
    for path in streams:
        for strict in (False, True):
            try:
                whole = formats.load_stream_path(path, strict=strict)
            except LoadError as exc:
                with pytest.raises(LoadError) as raised:
                    formats.reduce_stream_path(path, strict=strict)
                assert str(raised.value) == str(exc)
                continue
            read = formats.reduce_stream_path(path, strict=strict)
            assert read.stream.to_json() == whole.stream.to_json(), path
            assert read.stream.dialect == whole.stream.dialect


def test_events_lists_a_thousand_violations_and_counts_the_rest(tmp_path, monkeypatch):
    from inspector.commands import events

    monkeypatch.setattr(events, "LINES_SHOWN", 5)
    path = delta_stream(tmp_path / "stray.sse", 40, item_id="zz")
    status, out, err = run_cli("events", str(path))
    assert status == 1 and not err
    listed = [line for line in out.splitlines() if line.startswith("  event ")]
    assert len(listed) == 5
    assert "  … and 37 more violations (unknown_item 36, missing_terminal 1)\n" in out
    # JSON is complete: every violation, written one by one.
    status, out, _ = run_cli("events", str(path), "--format", "json")
    document = json.loads(out)
    assert len(document["violations"]) == 42
    assert document["counts"]["error"] == sum(
        v["severity"] == "error" for v in document["violations"]
    )


def test_events_on_a_stream_bigger_than_the_memory_left_holds_no_event(tmp_path):
    # 250,000 events (27 MB): loaded whole, events and their parsed data need about 200 MB
    # more than a capped process of 180 MB has; reduced as read, they are never held.
    path = delta_stream(tmp_path / "long.sse", 250_000)
    done = limited("events", str(path), memory=180 << 20)
    assert done.returncode == 1, done.stderr
    assert done.stderr == b""
    out = done.stdout.decode()
    assert "250,003 events" in out or "250003 events" in out
    assert out.rstrip().endswith("FAIL")


def test_a_stream_of_violations_keeps_the_first_and_counts_the_rest(tmp_path, monkeypatch):
    from inspector.core.stream import reducer

    monkeypatch.setattr(reducer, "VIOLATIONS_KEPT", 5)
    path = delta_stream(tmp_path / "stray.sse", 40, item_id="zz")
    stream = formats_reduce(path)
    # The first five, and the first of each code and severity after them (missing_terminal).
    assert [v.code for v in stream.violations] == [
        "missing_sequence_number",
        *["unknown_item"] * 5,
        "missing_terminal",
    ]
    assert stream.more == (("unknown_item", "error", 35),)
    assert stream.left_out == 35 and stream.total_violations == 42
    assert (stream.count("error"), stream.count("warning")) == (41, 1) and stream.blocking
    # Every output says how many more there are.
    status, out, _ = run_cli("events", str(path))
    assert status == 1 and "  … and 35 more violations (unknown_item 35)\n" in out
    assert "violations: 41 errors, 1 warning, 0 info\n" in out
    status, out, _ = run_cli("events", str(path), "--format", "json")
    document = json.loads(out)
    assert document["more_violations"] == {"count": 35, "codes": {"unknown_item": 35}}
    assert document["counts"] == {"error": 41, "warning": 1, "info": 0}
    assert len(document["violations"]) == 7
    status, out, _ = gate(str(path))
    assert "stream: none, 43 events, 42 violations\n" in out
    assert "never added (+39 more)\n" in out  # the decision counts them all
    status, out, _ = gate(str(path), "--format", "json")
    (document,) = json.loads(out)["files"]
    assert document["verdict_summary"]["sides"][0]["stream_violations"] == {
        "warning": 1,
        "error": 41,
    }
    assert document["stream"]["more_violations"]["count"] == 35
    # The reports count them too: HTML and Markdown say so, JUnit fails on a left-out case.
    page = tmp_path / "r.html"
    assert run_cli("report", str(path), "-o", str(page))[0] == 1
    assert "35 more not listed." in page.read_text()
    _, out, _ = run_cli("report", str(path), "--format", "markdown")
    assert "### Stream violations (42)" in out
    assert "*Not every row is listed (Stream violations: 7 of 42 shown)" in out
    _, out, _ = run_cli("report", str(path), "--format", "junit")
    case = ElementTree.fromstring(out).find(".//testcase[@name='… and 35 more violations']")
    assert case is not None and case.find("failure") is not None


def formats_reduce(path: Path):
    from inspector.core.formats import reduce_stream_path

    stream = reduce_stream_path(path).stream
    assert stream is not None
    return stream


def test_a_stream_where_every_event_is_a_violation_under_a_memory_cap(tmp_path):
    # 300,000 deltas to an item never added (46 MB): holding every violation needs about
    # 180 MB of address space, keeping the first 10,000 about 90 MB; the cap sits between.
    path = delta_stream(tmp_path / "stray.sse", 300_000, item_id="zz")
    done = limited("events", str(path), memory=140 << 20)
    assert done.returncode == 1, done.stderr[-300:]
    assert done.stderr == b""
    out = done.stdout.decode()
    assert "violations: 300001 errors, 1 warning, 0 info\n" in out
    assert "  … and 299,002 more violations (unknown_item 299,001, missing_terminal 1)\n" in out


@pytest.mark.slow
def test_events_on_a_1_5_gb_stream(tmp_path):
    path = delta_stream(tmp_path / "huge.sse", 10_000_000)
    assert 1_500_000_000 < path.stat().st_size < 1_600_000_000
    done = limited("events", str(path), cpu=3600)
    assert done.returncode == 1, done.stderr
    assert done.stderr == b""
    assert done.stdout.decode().rstrip().endswith("FAIL")


#: Huge invalid documents in the shapes that reach a different parse: one document, a JSON
#: Lines record after a good one, a first line (read once by the framing sniff).
ITEM_BYTES = b'{"type": "message", "role": "user", "content": "' + b"x" * 200 + b'"}'


def huge_invalid(path: Path, shape: str, size: int) -> Path:
    """A file of about `size` bytes whose one huge value breaks off in `oops` near its end."""
    count = size // (len(ITEM_BYTES) + 1)
    broken = b'{"input": [' + (ITEM_BYTES + b",") * count + b"oops]}"
    data = {
        "document": broken,
        "jsonl": ITEM_BYTES + b"\n" + broken + b"\n",
        "first-line": broken + b"\n" + ITEM_BYTES + b"\n",
    }[shape]
    path.write_bytes(data)
    return path


def test_a_huge_invalid_document_without_headroom_is_refused_by_line_and_column(tmp_path):
    # With too little address space left orjson is never handed the huge text (its error path
    # can crash then), and the standard library, which would build the value up to the error,
    # is not either: msgspec walks the bytes and names the line and column.
    paths = [str(huge_invalid(tmp_path / f"{s}.json", s, 40 << 20)) for s in ITEM_SHAPES]
    script = (
        "import os, resource, orjson\n"
        "from inspector.core.formats import load_path\n"
        "from inspector.core.model import LoadError\n"
        "sizes = []\n"
        "loads = orjson.loads\n"
        "def watched(data):\n"
        "    sizes.append(len(data))\n"
        "    return loads(data)\n"
        "orjson.loads = watched\n"
        "used = int(open('/proc/self/statm').read().split()[0]) * os.sysconf('SC_PAGE_SIZE')\n"
        "cap = used + (200 << 20)\n"
        "resource.setrlimit(resource.RLIMIT_AS, (cap, cap))\n"
        f"for path in {paths!r}:\n"
        "    try:\n"
        "        load_path(path)\n"
        "    except LoadError as exc:\n"
        "        print(exc.line, exc.column, exc.message)\n"
        "print(max(sizes, default=0) < (1 << 20))\n"
    )
    lines = python_script(script).splitlines()
    column = len(b'{"input": [') + (40 << 20) // (len(ITEM_BYTES) + 1) * (len(ITEM_BYTES) + 1) + 1
    assert lines == [
        f"1 {column} invalid JSON: invalid character",
        f"2 {column} invalid JSON: invalid character",
        f"1 {column} invalid JSON: invalid character",
        "True",
    ]


ITEM_SHAPES = ("document", "jsonl", "first-line")


@pytest.mark.slow
@pytest.mark.parametrize("shape", ITEM_SHAPES)
def test_a_500_mb_invalid_file_under_a_1_3_gb_cap(tmp_path, shape):
    path = huge_invalid(tmp_path / "big.json", shape, 500 << 20)
    done = limited("gate", str(path), memory=1300 << 20, cpu=600)
    assert done.returncode == 2
    line = assert_one_line(done.stderr)
    assert "invalid JSON: invalid character" in line and f"{path}:" in line


def memory_arguments(tmp_path_factory, command: str) -> list[str]:
    """Arguments that make `command` work on 100,000 calls or stream events (made once)."""
    folder = tmp_path_factory.getbasetemp() / "memory"
    folder.mkdir(exist_ok=True)
    calls = folder / "calls.json"
    if not calls.exists():
        blocked_calls(calls, 100_000)
    stream = folder / "stream.jsonl"
    if not stream.exists():
        delta_stream(stream, 100_000, jsonl=True)  # JSON Lines events are loaded whole
    return {
        "gate": [str(calls)],
        "diff": [str(calls), str(calls)],
        "report": [str(calls), "--format", "junit"],
        "tools": [str(calls)],
        "events": [str(stream)],
    }[command]


OUT_OF_MEMORY = "inspector: out of memory; the input is too large for this machine\n"


@pytest.mark.parametrize("command", ["gate", "diff", "report", "tools", "events"])
def test_running_out_of_memory_is_one_line_and_exit_2(tmp_path_factory, command):
    # A real MemoryError, under a low address-space cap, in each command's own work.
    done = limited(command, *memory_arguments(tmp_path_factory, command), memory=100 << 20)
    assert done.returncode == 2, done.stderr
    assert assert_one_line(done.stderr) == OUT_OF_MEMORY
    assert done.stdout == b""


#: Caps from where the interpreter barely starts to where the work fits: somewhere in each
#: step the address space runs out in another place (reading, parsing, reducing, writing).
MEMORY_CAPS = {"events": range(44, 172, 8), "gate": range(60, 300, 60), "report": (120, 200)}


@pytest.mark.parametrize(
    ("command", "cap"), [(c, cap) for c, caps in MEMORY_CAPS.items() for cap in caps]
)
def test_at_every_memory_cap_a_command_ends_with_its_output_or_one_line(
    tmp_path_factory, command, cap
):
    # CPython 3.11 and 3.12 could spin for ever (deaf to SIGTERM, until the CPU cap killed it)
    # unwinding a MemoryError raised with the address space full (inspector.headroom); here
    # every cap ends: the whole output, or exit 2 and one line saying memory ran out.
    done = limited(command, *memory_arguments(tmp_path_factory, command), memory=cap << 20, cpu=30)
    assert done.returncode in (0, 1, 2), (cap, done.returncode, done.stderr[-300:])
    if done.returncode == 2:
        line = assert_one_line(done.stderr)
        assert line == OUT_OF_MEMORY or line.endswith(": not enough memory to read the file\n")
        assert done.stdout == b""
    else:
        assert done.stderr == b"" and done.stdout


def test_the_headroom_guard_raises_once_when_the_size_crosses_the_line():
    from inspector import headroom

    statm = os.open("/proc/self/statm", os.O_RDONLY)
    try:
        watch = headroom._Guard(statm, below=1 << 62)
        size = watch.size()
        assert size > 0
        watch.tick(0, None)  # far under the line: nothing
        watch.below = size - 1
        with pytest.raises(headroom.OutOfHeadroom):
            watch.tick(0, None)
        watch.tick(0, None)  # still over it while the exception unwinds: not again
        watch.below = size + headroom.HEADROOM
        watch.tick(0, None)  # fell back under: armed again
        watch.below = size - 1
        with pytest.raises(MemoryError):
            watch.tick(0, None)
    finally:
        os.close(statm)


def test_the_headroom_guard_watches_only_a_capped_address_space():
    from inspector import headroom

    assert headroom._guard is None  # never started in the test process
    # Uncapped, nothing starts; capped, a loop building small objects is stopped by the guard
    # before the kernel refuses an allocation (the MemoryError that could spin unwinding).
    script = (
        "import resource\n"
        "from inspector import headroom\n"
        "unlimited = resource.RLIM_INFINITY\n"
        "resource.setrlimit(resource.RLIMIT_AS, (unlimited, unlimited))\n"
        "print(headroom.guard())\n"
        "resource.setrlimit(resource.RLIMIT_AS, (300 << 20, 300 << 20))\n"
        "print(headroom.guard())\n"
        "held = []\n"
        "try:\n"
        "    while True:\n"
        "        held.append({'n': len(held)})\n"
        "except MemoryError as exc:\n"
        "    del held\n"
        "    print(type(exc).__name__)\n"
    )
    assert python_script(script).split() == ["False", "True", "OutOfHeadroom"]
