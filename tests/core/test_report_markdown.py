"""The Markdown summary: its tables, its size limit, and strings from files that stay text."""

from __future__ import annotations

import json
import re
from pathlib import Path

from inspector.core.report.markdown import LIMIT, code, escape
from tests.core.test_report_cli import ARTICLE, PAIR, run_report
from tests.core.test_report_html import INJECTIONS

_CELL_BREAK = re.compile(r"(?<!\\)\|")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def tables(text: str) -> list[list[str]]:
    """Every table: its consecutive lines that start with a pipe."""
    found: list[list[str]] = []
    current: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            found.append(current)
            current = []
    return found


def assert_table_shape(text: str) -> None:
    """Each table: a header, a separator, rows with as many cells as the header."""
    for table in tables(text):
        assert len(table) >= 2
        width = len(_CELL_BREAK.split(table[0]))
        assert re.fullmatch(r"\|(---\|)+", table[1]), table[1]
        assert table[1].count("---") == width - 2
        for row in table[2:]:
            assert row.endswith(" |"), row
            assert len(_CELL_BREAK.split(row)) == width, row


def outside_code(text: str) -> str:
    """The text with every code span removed (what Markdown would interpret)."""
    return _CODE_SPAN.sub("", text)


def test_sample_pair() -> None:
    status, text, _ = run_report(*PAIR)
    assert status == 1
    assert text.startswith("## ❌ Replay UNSAFE")
    assert_table_shape(text)
    counts = tables(text)[0]
    assert counts[0] == "| verdict | left (10 items) | right (9 items) | blocks replay |"
    assert "| `namespaced` | 0 | 1 | yes |" in counts
    # The blocked items, each with index, type, name and call_id.
    assert (
        "| 6 | `function_call` | `get_latest_sales_report` | `call_999` | `arguments_schema` |"
        in text
    )
    assert "### Changed pairs (4)" in text
    assert "Redaction on" in text and "Replay Inspector" in text


def test_single_file() -> None:
    status, text, _ = run_report(*ARTICLE)
    assert status == 1
    assert text.startswith("## ❌ Replay UNSAFE")
    assert_table_shape(text)
    assert "### Blocked items (2)" in text
    assert "### Findings (1)" in text


def test_stays_under_the_limit_with_a_note(tmp_path: Path) -> None:
    items = [
        {
            "type": "function_call",
            "call_id": f"call_{n}",
            "name": f"tool_{n}_" + "x" * 80,
            "arguments": "{}",
            "status": "completed",
        }
        for n in range(5_000)
    ]
    path = tmp_path / "many.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    status, text, _ = run_report(str(path))
    assert status == 1
    assert len(text) < LIMIT
    assert_table_shape(text)
    assert "*Truncated to stay under 60,000 characters (Blocked items: " in text
    assert "of 5,000 shown" in text
    assert text.rstrip().endswith("UTC.")  # the footer survives


def test_markup_and_mentions_from_a_file_stay_text(tmp_path: Path) -> None:
    items = [
        {"type": "function_call", "call_id": f"c{n}|x", "name": text, "arguments": "{}"}
        for n, text in enumerate([*INJECTIONS, "a|b`c``d", "@octocat see #12", "line\nbreak"])
    ]
    path = tmp_path / "inject.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    _, text, _ = run_report(str(path))
    assert_table_shape(text)
    interpreted = outside_code(text)
    assert "<" not in interpreted.replace("\\<", "")
    assert "@octocat" not in interpreted and "#12" not in interpreted
    assert "@\u2060octocat" in interpreted and "#\u206012" in interpreted


def test_escape_and_code_spans() -> None:
    assert escape("a_b*c|d<e>") == "a\\_b\\*c\\|d\\<e\\>"
    assert escape("one\ntwo") == "one two"
    assert code("x|y") == "`x\\|y`"
    assert code("x|y", in_table=False) == "`x|y`"
    assert code("a`b") == "``a`b``"
    assert code("`a") == "`` `a ``"
    assert code("") == ""
