"""Look-alike tool names say what they differ by; loads and the gate stop on a cancel flag and
report how far they have got; a truncated file's error ends with its position."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import threading
from types import MappingProxyType

import pytest

from inspector.cli import run
from inspector.core.formats import load_bytes, load_path, load_text
from inspector.core.gate import INVISIBLE, ToolSet, Verdict, gate_item, gate_transcript
from inspector.core.model import Cancelled, LoadError, Tool
from tests.conftest import REPO, SAMPLES

SCHEMA = {"type": "object", "properties": {"user_id": {"type": "string"}}}
TOOLS = ToolSet(
    MappingProxyType(
        {
            name: Tool(name, SCHEMA, "function", "test")
            for name in ("get_user_profile", "delete_account")
        }
    )
)


def _detail(name: str) -> str:
    raw = {
        "type": "function_call",
        "call_id": "c",
        "name": name,
        "arguments": '{"user_id": "u_1"}',
        "status": "completed",
    }
    verdict = gate_item(raw, TOOLS)
    assert verdict.verdict == Verdict.UNKNOWN_TOOL
    return verdict.detail


@pytest.mark.parametrize(
    ("name", "by"),
    [
        ("get_user_profile\u202e", "U+202E"),  # a right-to-left override at the end
        ("get_\u202eeliforp_resu\u202c", "U+202E, U+202C"),  # drawn as get_user_profile
        ("get_user\u200b_profile", "U+200B"),  # a zero-width space
        ("\u2066get_user_profile\u2069", "U+2066, U+2069"),  # isolates
        ("get_user_profile\u200e", "U+200E"),  # a left-to-right mark
        ("get_user_pr\u043efile", "U+043E"),  # Cyrillic o
        ("\uff47et_user_profile", "U+FF47"),  # fullwidth g (NFKC)
    ],
)
def test_a_look_alike_unknown_tool_says_what_it_differs_by(name, by):
    detail = _detail(name)
    assert detail.endswith(f"; it differs from 'get_user_profile' by {by}"), detail
    # The name itself is quoted with its invisible characters escaped.
    assert detail.isprintable()


@pytest.mark.parametrize("name", ["get_profile", "zzz\u202e", "get_user_profile_v2", "prоfile"])
def test_an_unknown_tool_that_reads_as_no_known_one_has_no_note(name):
    assert "differs from" not in _detail(name)


def test_the_invisible_characters_are_the_unicode_categories_of_the_regex_engine():
    # The gate spells Cc, Cf, Zl and Zp out for stdlib `re` (the standard library's Unicode is
    # older): every code point is matched, or not, as `regex` matches it, and a name checked
    # for look-alikes does not import `regex`.
    import regex

    categories = regex.compile(r"[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]")
    wrong = [
        f"U+{code:04X}"
        for code in range(sys.maxunicode + 1)
        if (categories.match(chr(code)) is None) != (INVISIBLE.match(chr(code)) is None)
    ]
    assert not wrong
    assert INVISIBLE.compiled().__class__ is re.Pattern
    found = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from inspector.core.gate import lookalike; "
            "print(lookalike('get_\\u202eeliforp_resu\\u202c', ['get_user_profile'])); "
            "print('regex' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    assert found.stdout.splitlines() == [
        "it differs from 'get_user_profile' by U+202E, U+202C",
        "False",
    ]


def test_the_cli_says_it_too():
    path = SAMPLES / "findings" / "spoofed-names.json"
    out, err = io.StringIO(), io.StringIO()
    status = run(["gate", str(path), "--format", "json"], out, err)
    assert status == 1
    details = [item["detail"] for item in json.loads(out.getvalue())["files"][0]["items"]]
    assert any("differs from 'get_user_profile' by U+202E" in d for d in details)
    assert any("differs from 'get_user_profile' by U+200B" in d for d in details)
    assert any("differs from 'delete_account' by U+2066" in d for d in details)


def _jsonl(count: int) -> bytes:
    line = {"type": "message", "role": "user", "content": "x" * 200}
    return b"\n".join(json.dumps(line).encode() for _ in range(count)) + b"\n"


def test_a_jsonl_load_reports_bytes_read_and_stops_on_cancel():
    data = _jsonl(30_000)  # about 7 MB: several progress reports
    seen: list[tuple[int, int]] = []
    transcript = load_bytes(
        data, "big.jsonl", progress=lambda done, total: seen.append((done, total))
    )
    assert len(transcript.items) == 30_000
    assert len(seen) >= 5
    assert all(total == len(data) for _done, total in seen)
    assert [done for done, _total in seen] == sorted(done for done, _total in seen)

    cancel = threading.Event()

    def stop_half_way(done: int, total: int) -> None:
        if done > total // 2:
            cancel.set()

    with pytest.raises(Cancelled):
        load_bytes(data, "big.jsonl", cancel=cancel, progress=stop_half_way)
    with pytest.raises(Cancelled):
        load_path(SAMPLES / "logs" / "agent-session.jsonl", cancel=cancel)


def test_the_gate_reports_items_gated_and_stops_on_cancel():
    transcript = load_bytes(_jsonl(5000), "big.jsonl")
    seen: list[int] = []
    gate_transcript(transcript, progress=lambda done, total: seen.append(done))
    assert seen[0] == 0 and len(seen) == 5 and seen == sorted(seen)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        gate_transcript(transcript, cancel=cancel)


def test_a_truncated_file_error_ends_with_its_position(tmp_path):
    whole = (REPO / "samples" / "providers" / "provider-a.json").read_text()
    cut = whole[: whole.index('"get_latest_sales_report"') + 10]
    with pytest.raises(LoadError) as caught:
        load_text(cut, "cut.json")
    error = caught.value
    assert error.message.startswith("invalid JSON: Unterminated string starting at line ")
    assert error.message.endswith(f"line {error.line} column {error.column}")
