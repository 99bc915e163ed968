"""The diff command: golden outputs of the sample pairs, text layout, exit statuses, errors.

Regenerate the goldens with `python -m pytest --update-goldens tests/core/test_diff_cli.py` and
review them as a diff.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

from inspector.cli import run
from tests.conftest import REPO, SAMPLES
from tests.sample_pairs import sample_pairs

EXPECTED = SAMPLES / "diff" / "expected"
PROVIDERS = ["samples/providers/provider-a.json", "samples/providers/provider-b.json"]


def diff(*args: str, out: io.StringIO | None = None) -> tuple[int, str, str]:
    """Run `inspector diff` from the repository root, so paths in outputs stay relative."""
    out, err = out if out is not None else io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(REPO)
    try:
        status = run(["diff", *args], out, err)
    finally:
        os.chdir(old)
    return status, out.getvalue(), err.getvalue()


#: Every sample pair (tests/sample_pairs.py walks samples/diff/: a new case folder is found).
SAMPLE_PAIRS = {p.name: p for p in sample_pairs()}
PAIRS = {name: p.args() for name, p in SAMPLE_PAIRS.items()}

#: The exit status of every sample pair in each mode (replay, compare). Each pair has a JSON
#: and a text golden per mode: replay ones are `<pair>.json` / `.txt`, compare ones
#: `<pair>.compare.json` / `.compare.txt`.
STATUS = {
    "providers": (1, 1),
    "reordered-parallel": (0, 0),
    "reformatted-arguments": (0, 0),
    "extra-call": (1, 1),
    "regressions": (1, 1),
    "format-change": (1, 0),
    "format-change-responses": (1, 0),
    "renamed-call-ids": (1, 0),
    "inconsistent-renaming": (1, 1),
    # One scripted session recorded against five providers (Mirascope's cassettes).
    "session": (1, 0),
    "session-anthropic": (1, 0),
    "session-gemini": (1, 0),
    "session-bedrock": (1, 0),
    # An SDK-built Responses request with answered history (no status) against Chat Completions.
    "request-history": (1, 0),
    # The cases (#27), one folder each (samples/diff/README.md).
    "tools-one-side": (1, 0),
    "parallel-sequential": (1, 0),
    "gemini-result-wrapper": (1, 0),
    "reasoning-vs-text": (1, 0),
    "skipped-call": (1, 1),
    "unknown-tool-answer": (1, 0),
    "truncated-web-search": (0, 1),
    "anthropic-gemini-tools": (1, 0),
    "two-providers-replay": (1, 0),
}
GOLDEN = [
    (name, mode, status[n])
    for name, status in STATUS.items()
    for n, mode in enumerate(("replay", "compare"))
]


def test_every_sample_pair_has_goldens():
    """A new folder under samples/diff/ needs its exit statuses here (and its goldens)."""
    assert set(STATUS) == set(PAIRS)


def golden_name(name: str, mode: str, suffix: str) -> str:
    return f"{name}.{suffix}" if mode == "replay" else f"{name}.{mode}.{suffix}"


@pytest.mark.parametrize(("name", "mode", "status"), GOLDEN, ids=[f"{g[0]}-{g[1]}" for g in GOLDEN])
def test_golden_json(name, mode, status, golden):
    args = PAIRS[name]
    mode_args = [] if mode == "replay" else ["--mode", mode]
    code, out, err = diff(*args, *mode_args, "--format", "json")
    assert (code, err) == (status, "")
    document = json.loads(out)
    assert (document["left"], document["right"]) == (args[0], args[1])
    assert document["mode"] == mode
    golden(EXPECTED / golden_name(name, mode, "json"), out)


@pytest.mark.parametrize(("name", "mode", "status"), GOLDEN, ids=[f"{g[0]}-{g[1]}" for g in GOLDEN])
def test_golden_text(name, mode, status, golden):
    mode_args = [] if mode == "replay" else ["--mode", mode]
    code, out, err = diff(*PAIRS[name], *mode_args)
    assert (code, err) == (status, "")
    golden(EXPECTED / golden_name(name, mode, "txt"), out)


def test_json_contract_fields():
    _, out, _ = diff(*PROVIDERS, "--format", "json")
    document = json.loads(out)
    assert set(document) >= {"left", "right", "pairs", "replay_safe", "reasons"}
    assert document["replay_safe"] is False
    moved = document["pairs"][5]
    assert (moved["left"], moved["right"]) == (5, 5)
    assert moved["changes"][0] == {
        "code": "became_namespaced",
        "pointer": "/type",
        "left": "function_call",
        "right": "openai:web_search_call",
        "severity": "error",
    }
    assert (moved["left_type"], moved["right_verdict"]) == ("function_call", "namespaced")
    assert document["pairs"][6]["right"] is None


def test_text_marks_pairs_and_lists_changes():
    _, out, _ = diff(*PROVIDERS)
    lines = out.splitlines()
    row = next(line for line in lines if " X " in line and "openai:web_search_call" in line)
    assert row.split(" X ")[0].split()[:4] == ["5", "function_call", "search_web", "call_124"]
    after = lines[lines.index(row) + 1]
    assert "became_namespaced" in after and "/type" in after
    assert any(line.endswith(" <") and "call_124" in line for line in lines)
    # The diff's reasons, then what blocks the right side on its own (the one decision).
    head = lines.index("decision: Replay UNSAFE")
    assert lines[head + 1 : head + 4] == [
        "  - #5 function_call search_web became provider-prefixed openai:web_search_call "
        "(right #5)",
        "  - #6 function_call_output (call_id 'call_124') exists only on the left",
        "  - #7 function_call get_latest_sales_report call_id changed from 'call_129' to "
        "'call_999' (right #6)",
    ]


def test_safe_pair_exits_zero_and_says_so():
    code, out, _ = diff(*PAIRS["reordered-parallel"])
    assert code == 0
    assert "decision: Replay safe: no differences" in out


def test_unreadable_file_exits_2_with_location(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"input": [\n  {"type": "message",, "role": "user"}\n]}\n')
    code, out, err = diff(PROVIDERS[0], str(bad))
    assert (code, out) == (2, "")
    assert err.startswith(f"inspector: {bad}:2:")
    assert "invalid JSON" in err


def test_unreadable_json_shape(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"input": [\n  {"type": "message",, "role": "user"}\n]}\n')
    missing = str(tmp_path / "missing.json")
    code, out, err = diff(str(bad), missing, "--format", "json")
    assert (code, err) == (2, "")
    document = json.loads(out)
    assert (document["left"], document["right"]) == (str(bad), missing)
    assert document["errors"]["left"]["line"] == 2
    assert document["errors"]["left"]["column"] > 0
    assert document["errors"]["right"] == {"message": "no such file", "line": None, "column": None}
    assert "pairs" not in document


def test_bad_tools_file_exits_2(tmp_path):
    code, out, err = diff(*PROVIDERS, "--tools", str(tmp_path / "nope.json"))
    assert (code, out) == (2, "")
    assert "nope.json: no such file" in err


def test_missing_right_is_bad_usage():
    code, _, err = diff(PROVIDERS[0])
    assert code == 2
    assert "RIGHT" in err


def test_control_characters_from_files_are_escaped(tmp_path):
    left = tmp_path / "left.json"
    right = tmp_path / "right.json"
    evil = "send\x1b[2J\u202e_summary"
    call = {"type": "function_call", "call_id": "c\x1b]0;x\x07", "name": evil, "arguments": "{}"}
    left.write_text(json.dumps([call]))
    right.write_text(json.dumps([{**call, "name": evil + "\r"}]))
    code, out, _ = diff(str(left), str(right))
    assert code == 1  # nothing got worse, but the right side's call has no status: it blocks
    assert "\x1b" not in out and "\u202e" not in out and "\r" not in out
    assert "send\\x1b[2J\\u202e_summary" in out


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal():
    _, plain, _ = diff(*PROVIDERS)
    _, coloured, _ = diff(*PROVIDERS, out=_Terminal())
    assert "\x1b[" not in plain
    assert "\x1b[31;1mX\x1b[0m" in coloured


def test_module_entry_point_runs_diff():
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "diff", *PROVIDERS, "--format", "json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["reasons"][0].startswith("#5 function_call search_web")


# --------------------------------------------------------------------------------------------
# Modes


def test_text_shows_the_mode():
    _, replayed, _ = diff(*PROVIDERS)
    assert replayed.splitlines()[2] == (
        "mode:  replay (RIGHT is what you plan to replay in place of LEFT; call_ids must match)"
    )
    _, compared, _ = diff(*PROVIDERS, "--mode", "compare")
    assert compared.splitlines()[2].startswith("mode:  compare (two providers' runs of one session")


def test_unknown_mode_is_bad_usage():
    code, out, err = diff(*PROVIDERS, "--mode", "merge")
    assert (code, out) == (2, "")
    assert "invalid choice: 'merge'" in err


def test_exit_status_follows_the_mode():
    # Consistently renamed call_ids: unsafe to replay as is, equivalent as a comparison.
    args = PAIRS["renamed-call-ids"]
    assert diff(*args)[0] == 1
    assert diff(*args, "--mode", "replay")[0] == 1
    assert diff(*args, "--mode", "compare")[0] == 0
    assert diff(*PAIRS["inconsistent-renaming"], "--mode", "compare")[0] == 1


def test_chat_completions_file_against_itself():
    chat = "samples/chat-completions.json"
    code, out, _ = diff(chat, chat)
    assert code == 1
    lines = out.splitlines()
    assert lines[-3].startswith(
        "  - right side: chat-completions.json:1: the file is a Chat Completions record"
    )
    assert lines[-2].startswith("  ! left side: chat_completions_envelope: ")
    # A foreign envelope on the right: compare mode is suggested in one line.
    assert lines[-1] == (
        "  note: these look like two providers' runs of one session: compare them with "
        "--mode compare"
    )
    assert "  error   foreign_envelope  right side: chat-completions.json:1:" in out
    code, out, _ = diff(chat, chat, "--mode", "compare")
    assert code == 0
    lines = out.splitlines()
    assert lines[-2] == "decision: Equivalent: no differences"
    assert lines[-1].startswith("  note: left side on its own: replay unsafe (chat_completions")


def test_json_mode_document_changes_and_verdict():
    _, out, _ = diff(*PAIRS["format-change"], "--mode", "compare", "--format", "json")
    document = json.loads(out)
    # Equivalent runs; the right side (an Anthropic record) is not replayable on its own.
    assert document["mode"] == "compare" and document["replay_safe"] is False
    assert document["document_changes"] == [
        {
            "code": "format_changed",
            "severity": "info",
            "left": "chat_completions",
            "right": "anthropic",
            "message": "the format changed from chat_completions to anthropic",
            "left_items": [],
            "right_items": [],
        }
    ]
    assert document["verdict_summary"]["outcome"] == "equivalent"
    assert document["verdict_summary"]["exit_status"] == 0
    renamed = next(g for g in document["changes_by_code"] if g["code"] == "call_id_renamed")
    assert (renamed["count"], renamed["severity"], renamed["pairs"]) == (
        6,
        "info",
        [2, 3, 4, 5, 8, 9],
    )
