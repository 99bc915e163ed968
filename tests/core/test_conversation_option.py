"""`diff` and `report` take one conversation a side: `--conversation ID`, else the first, said."""

from __future__ import annotations

import io
import json
from pathlib import Path

from inspector.cli import run
from inspector.core.formats import load_conversations
from tests.conftest import SAMPLES

#: A capture of two calls to one API: entry 0 asks, entry 1 sends the tool's result back.
HAR = SAMPLES / "sessions" / "har" / "openai-polly-tool-roundtrip.har"
PLAIN = SAMPLES / "diff" / "anthropic-gemini-tools"


def cli(*args: str) -> tuple[int, str, str]:
    """Run the CLI in process; its status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    status = run([*args], out, err)
    return status, out.getvalue(), err.getvalue()


def raw_entry_messages(entry: int) -> int:
    """How many messages the capture's request `entry` sent, read with plain json."""
    har = json.loads(HAR.read_text(encoding="utf-8"))
    body = json.loads(har["log"]["entries"][entry]["request"]["postData"]["text"])
    return len(body["messages"])


def pair_count(document: dict) -> tuple[int, int]:
    """The items of each side of a diff document, from its summary."""
    summary = document["summary"]
    both = summary["same"] + summary["info"] + summary["changed"]
    return both + summary["only_left"], both + summary["only_right"]


def test_the_capture_holds_two_conversations_of_different_lengths():
    # The tests below tell the conversations apart by their lengths.
    first, second = load_conversations(HAR)
    assert (first.conversation, second.conversation) == ("entry 0", "entry 1")
    assert raw_entry_messages(0) < raw_entry_messages(1)
    assert len(first.items) < len(second.items)


def test_diff_without_the_option_uses_the_first_and_says_so():
    status, out, err = cli("diff", "--format", "json", str(HAR), str(HAR))
    assert status in (0, 1)
    first = load_conversations(HAR)[0]
    assert pair_count(json.loads(out)) == (len(first.items), len(first.items))
    assert err.count("holds 2 conversations; this uses the first 'entry 0'") == 2
    assert "--conversation ID" in err


def test_diff_picks_the_same_id_in_both_files():
    status, out, err = cli(
        "diff", "--format", "json", "--conversation", "entry 1", str(HAR), str(HAR)
    )
    assert status in (0, 1)
    second = load_conversations(HAR)[1]
    assert pair_count(json.loads(out)) == (len(second.items), len(second.items))
    assert err == ""


def test_diff_given_twice_picks_left_then_right():
    _, out, _ = cli(
        "diff",
        "--format",
        "json",
        "--conversation",
        "entry 0",
        "--conversation",
        "entry 1",
        str(HAR),
        str(HAR),
    )
    first, second = load_conversations(HAR)
    document = json.loads(out)
    assert pair_count(document) == (len(first.items), len(second.items))
    # Each side names the conversation it shows, in the JSON and in the text.
    assert (document["left_conversation"], document["right_conversation"]) == ("entry 0", "entry 1")
    _, text, _ = cli(
        "diff", "--conversation", "entry 0", "--conversation", "entry 1", str(HAR), str(HAR)
    )
    assert f"{HAR} [entry 0]" in text.splitlines()[0] and f"{HAR} [entry 1]" in text.splitlines()[1]


def test_one_id_applies_only_to_the_file_that_names_its_conversations():
    plain = PLAIN / "left.json"
    status, out, err = cli(
        "diff",
        "--format",
        "json",
        "--mode",
        "compare",
        "--conversation",
        "entry 1",
        str(plain),
        str(HAR),
    )
    assert status in (0, 1), err
    left = load_conversations(plain)[0]
    second = load_conversations(HAR)[1]
    assert pair_count(json.loads(out)) == (len(left.items), len(second.items))


def test_an_unknown_id_is_one_line_naming_the_ids_there_are():
    for command in (("diff", str(HAR), str(HAR)), ("report", str(HAR))):
        status, out, err = cli(command[0], "--conversation", "entry 7", *command[1:])
        assert status == 2
        assert out == ""
        lines = set(err.splitlines())
        assert lines == {
            f"inspector: {HAR}: "
            "no conversation 'entry 7' in the file; its conversations: entry 0, entry 1"
        }
        assert "Traceback" not in err


def test_ids_that_fit_no_file_are_a_usage_error():
    plain = [str(PLAIN / "left.json"), str(PLAIN / "right.json")]
    status, _, err = cli("diff", "--conversation", "x", *plain)
    assert (status, err) == (
        2,
        "inspector diff: error: --conversation 'x': neither file holds named conversations\n",
    )
    status, _, err = cli("report", "--conversation", "a", "--conversation", "b", str(HAR))
    assert status == 2
    assert err == (
        "inspector report: error: --conversation is given 2 times for 1 file: at most one a file\n"
    )
    status, _, err = cli("report", "--conversation", "x", plain[0])
    assert status == 2 and "no conversation 'x' in the file; its conversations: none" in err


def test_report_of_the_second_conversation(tmp_path: Path):
    out_file = tmp_path / "second.md"
    status, _, err = cli("report", "--conversation", "entry 1", "-o", str(out_file), str(HAR))
    assert status in (0, 1)
    assert err == ""
    text = out_file.read_text(encoding="utf-8")
    assert "/log/entries/1/" in text and "/log/entries/0/" not in text
    status, _, err = cli("report", "-o", str(tmp_path / "first.md"), str(HAR))
    assert "this uses the first 'entry 0'" in err
    assert "/log/entries/0/" in (tmp_path / "first.md").read_text(encoding="utf-8")
