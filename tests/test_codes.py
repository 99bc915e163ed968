"""The codes registry against the README's code tables and against what the tests produce."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from inspector.core.codes import CODES, Kind, Severity, codes_of
from tests import codes_seen

README = Path(__file__).resolve().parents[1] / "README.md"
_SEVERITY_WORD = re.compile(r"\b(error|warning|info)\b")

#: README section heading → the kinds whose codes its table lists.
_TABLES = {
    "### Transcript findings": (Kind.FINDING,),
    "## Recorded streams": (Kind.VIOLATION,),
    "## Comparing two providers": (Kind.CHANGE, Kind.DOCUMENT),
    "## Target profiles": (Kind.TARGET,),
}


def _section(text: str, heading: str) -> str:
    start = text.index(heading + "\n")
    level = heading.split()[0]
    following = re.compile(rf"^#{{1,{len(level)}}} ", re.M)
    end = following.search(text, start + len(heading) + 1)
    return text[start : end.start() if end else len(text)]


def readme_codes(text: str, heading: str) -> dict[str, str]:
    """Code → the severity cell, for every `| code | severity | meaning |` row in a section."""
    found: dict[str, str] = {}
    in_table = False
    for line in _section(text, heading).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[:2] == ["code", "severity"]:
            in_table = True
            continue
        if not line.startswith("|"):
            in_table = False
        if not in_table or set(cells[0]) <= {"-"}:
            continue
        names = re.findall(r"`([a-z][a-z0-9_]*)`", cells[0])
        severities = cells[1].split(" / ")
        for i, name in enumerate(names):
            # "`a` / `b` | error / warning": one severity each; otherwise one for all.
            found[name] = severities[i] if len(severities) == len(names) else cells[1]
    return found


@pytest.mark.parametrize("heading", sorted(_TABLES))
def test_the_readme_table_lists_the_registry(heading: str) -> None:
    table = readme_codes(README.read_text(encoding="utf-8"), heading)
    expected = set().union(*(codes_of(kind) for kind in _TABLES[heading]))
    assert set(table) == expected
    for name, cell in table.items():
        words = _SEVERITY_WORD.findall(cell)
        code = CODES[name]
        assert words and words[0] == code.severity, f"{name}: {cell!r}"
        assert {str(s) for s in code.also} <= set(words), f"{name}: {cell!r}"


def test_every_code_has_a_kind_a_severity_and_a_meaning() -> None:
    for name, code in CODES.items():
        assert re.fullmatch(r"[a-z][a-z0-9_]*", name)
        assert code.kinds and code.meaning and code.severity not in code.also
        assert all(isinstance(s, Severity) for s in code.severities)


def test_the_table_reader_reads_pairs_shared_severities_and_stops_at_the_section() -> None:
    text = """## A
| code | severity | meaning |
|---|---|---|
| `a_one` / `a_two` | error / warning | a pair |
| `b_one` / `b_two` / `b_three` | info | shared |
| `c_one` | error (warning when so) | a note |

Prose with `not_a_code`.
## B
| code | severity | meaning |
|---|---|---|
| `d_one` | info | elsewhere |
"""
    assert readme_codes(text, "## A") == {
        "a_one": "error",
        "a_two": "warning",
        "b_one": "info",
        "b_two": "info",
        "b_three": "info",
        "c_one": "error (warning when so)",
    }


def test_no_unregistered_code_is_produced() -> None:
    """Every code the tests so far built is registered, with a severity the registry allows."""
    assert codes_seen.unregistered(codes_seen.SEEN) == []


def test_every_registered_code_is_produced(request: pytest.FixtureRequest) -> None:
    """Run last (see tests/codes_seen.py): every registered code came out of some test."""
    if not codes_seen.whole_run(request.config, request.session.testsfailed):
        pytest.skip("only the whole test run produces every code")
    assert codes_seen.unproduced(codes_seen.SEEN) == []
