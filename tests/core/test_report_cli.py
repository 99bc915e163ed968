"""The report command: exit statuses, output routing, atomic writes, usage errors, redaction."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.cli import run
from tests.conftest import REPO, SAMPLES
from tests.core.test_report_redact import CUSTOM, SECRETS, assert_no_secret, write_secret_transcript

PAIR = [
    str(SAMPLES / "providers" / "provider-a.json"),
    str(SAMPLES / "providers" / "provider-b.json"),
    "--tools",
    str(SAMPLES / "tools" / "sales-tools.json"),
]
ARTICLE = [
    str(SAMPLES / "article" / "items.json"),
    "--tools",
    str(SAMPLES / "article" / "region-schema.tools.json"),
]
SAFE_PAIR = [
    str(SAMPLES / "diff" / "reordered-parallel" / "left.json"),
    str(SAMPLES / "diff" / "reordered-parallel" / "right.json"),
]


def run_report(*args: str) -> tuple[int, str, str]:
    """Run `inspector report` from the repository root; return status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(REPO)
    try:
        status = run(["report", *args], out, err)
    finally:
        os.chdir(old)
    return status, out.getvalue(), err.getvalue()


def test_exit_status_follows_gate_and_diff(tmp_path: Path) -> None:
    assert run_report(*PAIR)[0] == 1
    assert run_report(*SAFE_PAIR)[0] == 0
    assert run_report(*ARTICLE)[0] == 1
    clean = tmp_path / "clean.json"
    clean.write_text('[{"type": "message", "role": "user", "content": "hi"}]', encoding="utf-8")
    assert run_report(str(clean))[0] == 0


def test_markdown_and_junit_go_to_stdout() -> None:
    status, out, err = run_report(*PAIR)
    assert status == 1 and out.startswith("## ") and err == ""
    status, out, _ = run_report(*PAIR, "--format", "junit")
    assert out.startswith("<?xml")


def test_html_needs_an_output_file() -> None:
    status, out, err = run_report(*PAIR, "--format", "html")
    assert status == 2 and out == ""
    assert "--format html needs -o" in err


def test_format_follows_the_output_suffix(tmp_path: Path) -> None:
    for suffix, start in ((".html", "<!DOCTYPE html>"), (".md", "## "), (".xml", "<?xml")):
        target = tmp_path / f"report{suffix}"
        status, out, _ = run_report(*PAIR, "-o", str(target))
        assert status == 1 and out == ""
        assert target.read_text(encoding="utf-8").startswith(start)


def test_output_is_written_atomically_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    target.write_text("old", encoding="utf-8")
    run_report(*PAIR, "-o", str(target))
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]  # no temporary left


def test_never_writes_over_an_input(tmp_path: Path) -> None:
    source = tmp_path / "items.json"
    source.write_bytes((SAMPLES / "article" / "items.json").read_bytes())
    before = hashlib.sha256(source.read_bytes()).hexdigest()
    status, _, err = run_report(str(source), "-o", str(source), "--format", "html")
    assert status == 2 and "input file" in err
    link = tmp_path / "link.json"
    link.symlink_to(source)
    assert run_report(str(source), "-o", str(link), "--format", "markdown")[0] == 2
    assert hashlib.sha256(source.read_bytes()).hexdigest() == before


def test_unwritable_output_is_a_clear_error(tmp_path: Path) -> None:
    status, _, err = run_report(*PAIR, "-o", str(tmp_path / "missing" / "r.html"))
    assert status == 2 and "cannot write" in err and "Traceback" not in err


def test_unreadable_input(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('[{"type": ', encoding="utf-8")
    status, out, err = run_report(str(broken))
    assert status == 2 and out == "" and "broken.json:1:" in err
    status, _, err = run_report(str(broken), PAIR[0])
    assert status == 2 and "broken.json" in err


def test_bad_redact_pattern_names_it() -> None:
    status, _, err = run_report(*ARTICLE, "--redact", "([unclosed")
    assert status == 2 and "([unclosed" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mode", "replay", *ARTICLE], "--mode applies to two files"),
        (["--target", "nonesuch", *ARTICLE], "bedrock"),
        (["--no-redact", "--redact", "x", *ARTICLE], "contradict"),
    ],
)
def test_usage_errors(args: list[str], message: str) -> None:
    status, out, err = run_report(*args)
    assert status == 2 and out == "" and message in err


def test_target_findings_are_reported_and_count() -> None:
    status, out, _ = run_report(*ARTICLE, "--target", "mistral", "--format", "markdown")
    assert status == 1
    assert "target: `mistral`" in out and "`target_call_id`" in out


def test_compare_mode_judges_two_providers_runs() -> None:
    pair = [str(SAMPLES / "diff" / "renamed-call-ids" / n) for n in ("left.json", "right.json")]
    assert run_report(*pair, "--format", "markdown")[0] == 1
    status, out, _ = run_report(*pair, "--mode", "compare", "--format", "markdown")
    assert status == 0 and "compare" in out


def test_mode_replay_is_the_default_and_accepted() -> None:
    assert run_report(*SAFE_PAIR, "--mode", "replay")[0] == 0


@pytest.mark.parametrize("fmt", ["markdown", "junit", "html"])
def test_secrets_never_reach_a_report(tmp_path: Path, fmt: str) -> None:
    path = write_secret_transcript(tmp_path)
    target = tmp_path / f"out.{fmt}"
    status, _, _ = run_report(str(path), "--format", fmt, "-o", str(target), "--redact", CUSTOM[0])
    assert status == 1  # the calls name a tool no schema is known for
    text = target.read_text(encoding="utf-8")
    assert_no_secret(text)
    assert "values redacted" in text


def test_no_redact_keeps_values_and_says_so(tmp_path: Path) -> None:
    path = write_secret_transcript(tmp_path)
    _, out, _ = run_report(str(path), "--no-redact")
    assert "Redaction off" in out
    # Markdown escapes punctuation; the letters of a key come through.
    assert "IOSFODNN7EXAMPLE" in out
    assert SECRETS[0][2].replace("-", "\\-") in out


def test_secrets_in_both_files_of_a_diff(tmp_path: Path) -> None:
    left = write_secret_transcript(tmp_path)
    items = json.loads(left.read_text(encoding="utf-8"))
    # Every field changes a little, so every change shows both values; a call is left only.
    right_items = json.loads(json.dumps(items[:1] + items[2:]).replace("please use", "now use"))
    for item in right_items:
        if "output" in item:
            item["output"] += " (again)"
    right = tmp_path / "right.json"
    right.write_text(json.dumps(right_items), encoding="utf-8")
    for fmt in ("html", "markdown", "junit"):
        target = tmp_path / f"diff.{fmt}"
        status, _, _ = run_report(
            str(left), str(right), "--format", fmt, "-o", str(target), "--redact", CUSTOM[0]
        )
        assert status == 1
        text = target.read_text(encoding="utf-8")
        assert_no_secret(text)
        assert "values redacted" in text


def test_standard_input_is_named_stdin() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "report", "-", "--format", "markdown"],
        input=(SAMPLES / "article" / "items.json").read_bytes(),
        capture_output=True,
        cwd=REPO,
        timeout=120,
    )
    assert done.returncode == 1
    assert "file: `<stdin>`" in done.stdout.decode()
    status, out, err = run_report("-", "-")
    assert status == 2 and out == "" and "only one of LEFT and RIGHT" in err
