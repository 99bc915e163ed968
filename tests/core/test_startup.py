"""Start-up of a command: it imports what it uses and nothing else (fresh processes).

Each command is run in a new interpreter as the entry point runs it, and the modules it imported
are read from `sys.modules` at its end; the other commands, the target profiles, the stream
reducer, every format but the file's own, and the libraries only they need stay unimported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest

from inspector.core import formats
from inspector.core.formats import FORMAT_MODULES, Registry, _may_be
from tests.conftest import CORPUS, REPO, SAMPLES

# The command's output goes to a buffer; the modules it left imported are printed instead.
_CHILD = """
import io, json, sys
from inspector.cli import run
status = run(sys.argv[1:], io.StringIO(), io.StringIO())
print(json.dumps({"status": status, "modules": sorted(sys.modules)}))
"""

#: Imported by no command on an Open Responses file unless it is asked for.
NEVER = (
    "inspector.commands.diff",
    "inspector.commands.events",
    "inspector.commands.report",
    "inspector.commands.scan",
    "inspector.commands.tools",
    "inspector.core.diff",
    "inspector.core.scan",
    "inspector.core.formats._blocks",
    "inspector.core.formats._convert",
    "inspector.core.formats._sessions",
    "pygments",
    "jsonschema",
    "zipfile",
)
#: Imported only by what needs them: a stream, a target, another API's record, a name to check
#: for look-alike characters, an output file.
GATE_NEVER = (
    *NEVER,
    "inspector.core.stream",
    "inspector.core.targets",
    "regex",
    "tempfile",
    "shutil",
)
OTHER_FORMATS = tuple(name for name in FORMAT_MODULES if name != "open_responses")


def _modules(*argv: str) -> tuple[int, set[str]]:
    run = subprocess.run(
        [sys.executable, "-c", _CHILD, *argv],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=True,
    )
    found = json.loads(run.stdout.strip().splitlines()[-1])
    return found["status"], set(found["modules"])


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if n in modules or any(m.startswith(n + ".") for m in modules))


@pytest.fixture(scope="module")
def one_item(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-line Open Responses JSONL: a call of a tool the file does not declare."""
    path = tmp_path_factory.mktemp("startup") / "one.jsonl"
    item = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": json.dumps({"city": "Paris"}),
        "status": "completed",
    }
    path.write_text(json.dumps(item) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_one_item_gate_imports_its_own_format_and_no_other(one_item: Path, fmt: str) -> None:
    status, modules = _modules("gate", "--format", fmt, str(one_item))
    assert status == 1  # unknown_tool: the file was read and judged
    assert {"inspector.core.formats.open_responses", "inspector.core.gate"} <= modules
    assert _loaded(modules, GATE_NEVER) == []
    others = tuple(f"inspector.core.formats.{name}" for name in OTHER_FORMATS)
    assert _loaded(modules, others) == []


def test_a_request_line_imports_no_other_format(tmp_path: Path) -> None:
    # A request is no certain match (another API's could score higher): the formats whose
    # sniff members it shows are asked, and an Open Responses request shows none of theirs.
    first = (SAMPLES / "logs" / "agent-session.jsonl").read_text(encoding="utf-8").splitlines()[0]
    path = tmp_path / "request.jsonl"
    path.write_text(first + "\n", encoding="utf-8")
    _status, modules = _modules("gate", str(path))
    assert "inspector.core.formats.open_responses" in modules
    others = tuple(f"inspector.core.formats.{name}" for name in OTHER_FORMATS)
    assert _loaded(modules, (*GATE_NEVER, *others)) == []


def test_a_target_imports_the_profiles_only_when_given(one_item: Path) -> None:
    status, modules = _modules("gate", "--target", "openai", str(one_item))
    assert status == 1
    assert "inspector.core.targets" in modules
    assert _loaded(modules, NEVER) == []


def test_a_foreign_record_imports_the_formats_but_not_the_stream_reducer() -> None:
    status, modules = _modules("gate", str(SAMPLES / "chat-completions.json"))
    assert status in (0, 1)
    assert "inspector.core.formats.chat_completions" in modules
    # The formats decode other APIs' events with stream.events; the reducer, its results and
    # the zip reader (Inspect's .eval archives) are for streams and archives only.
    assert "inspector.core.stream.events" in modules
    lazy = ("inspector.core.stream.reducer", "inspector.core.stream.results", "zipfile")
    assert _loaded(modules, lazy) == []


@pytest.mark.parametrize(
    ("argv", "wanted"),
    [
        (("tools", str(SAMPLES / "tools" / "portable.tools.json")), "inspector.core.targets"),
        (("events", str(SAMPLES / "streams" / "function-call.sse")), "inspector.core.stream"),
    ],
    ids=["tools", "events"],
)
def test_other_commands_import_no_other_command(argv: tuple[str, ...], wanted: str) -> None:
    _status, modules = _modules(*argv)
    assert wanted in modules
    others = {f"inspector.commands.{c}" for c in ("diff", "report", "scan")}
    others.discard(f"inspector.commands.{argv[0]}")
    assert modules & others == set()
    assert _loaded(modules, ("pygments", "inspector.core.diff", "inspector.core.scan")) == []


def _values(value: Any) -> Iterator[Any]:
    """A JSON value and every object and array nested in it."""
    yield value
    children = (
        value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    )
    for child in children:
        if isinstance(child, dict | list):
            yield from _values(child)


def _records() -> Iterator[tuple[str, Any]]:
    """Every JSON value in the samples and the corpus: documents, lines, and all they nest."""
    files = [p for root in (SAMPLES, CORPUS) for p in sorted(root.rglob("*")) if p.is_file()]
    for path in files:
        try:
            text = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        try:
            documents = [json.loads(text)]
        except ValueError:
            documents = []
            for line in text.splitlines():
                try:
                    documents.append(json.loads(line))
                except ValueError:
                    continue
        for document in documents:
            for value in _values(document):
                yield path.name, value


def test_every_record_a_format_detects_shows_its_sniff() -> None:
    # A format is offered only the records that show one of its sniff tokens: a record it
    # detects without one would go undetected. Every value of every sample is asked of each.
    specs = {m: import_module(f"inspector.core.formats.{m}").FORMAT for m in formats.SNIFFS}
    asked = detected = 0
    for name, value in _records():
        for fmt, tokens in formats.SNIFFS.items():
            asked += 1
            if specs[fmt].detect(value) is not None:
                detected += 1
                assert _may_be(value, frozenset(tokens)), (fmt, name, str(value)[:200])
    assert detected > 100 and asked > 10 * detected


def test_detection_offers_a_record_to_the_formats_its_members_name() -> None:
    registry = Registry.of_modules(
        "inspector.core.formats", ("open_responses", "errors", "har"), formats.SNIFFS
    )
    offered = [spec.name for spec in registry.detecting({"error": {"message": "m"}})]
    assert offered == ["open_responses", "error"]
    assert [spec.name for spec in registry.detecting([{}])] == ["open_responses"]
    assert [spec.name for spec in registry.detecting()] == ["open_responses", "error", "har"]
