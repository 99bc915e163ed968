"""How a session's shares are made: by plain forked workers, one share each, that wait for the
earlier shares' counts on pipes and leave their rows in memory files (`core.session_gate`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from inspector.core import parallel, session_gate
from tests.benchmarks import synthetic
from tests.core import test_session_gate
from tests.core.conftest import said_in_file
from tests.core.test_parallel import refuse_pools_threads_and_disk_files

#: Every file `gate` tried by shares, and what it gave (test_session_gate's).
by_shares = test_session_gate.by_shares
_gate = test_session_gate._gate


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "session.jsonl"
    synthetic.write_claude_code(path, 200_000)
    return path


def test_each_share_is_made_once_this_process_the_first_and_a_worker_each_other(
    session: Path, by_shares: list[Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The workers' memory is their own: each says which share it made in a file.
    said = said_in_file(monkeypatch, session_gate, "_share", tmp_path / "made")
    alone = _gate(str(session), "--jobs", "1")
    assert not said.exists()  # one process never goes by shares
    assert _gate(str(session), "--jobs", "3") == alone
    (made,) = by_shares
    assert made is not None
    lines = [line.split() for line in said.read_text(encoding="utf-8").splitlines()]
    makers = {int(number): int(pid) for number, pid, _ in lines}
    assert len(lines) == 3 and all(ok == "True" for *_, ok in lines)
    assert makers[0] == os.getpid()
    assert len({makers[0], makers[1], makers[2]}) == 3
    assert made.makers == frozenset(makers.values())


def test_no_thread_and_no_file_on_disk_is_made_for_a_gate_by_shares(
    session: Path, by_shares: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    alone = _gate(str(session), "--jobs", "1")

    refuse_pools_threads_and_disk_files(monkeypatch, "a gate by shares")
    seen: list[list[str]] = []
    original = parallel.RowParts.__init__

    def rows(self: parallel.RowParts, files: list[Any], sizes: list[int]) -> None:
        seen.append([os.readlink(f"/proc/self/fd/{handle.fileno()}") for handle in files])
        original(self, files, sizes)

    monkeypatch.setattr(parallel.RowParts, "__init__", rows)
    assert _gate(str(session), "--jobs", "2") == alone
    (made,) = by_shares
    assert made is not None and made.makers - {os.getpid()}
    (names,) = seen
    assert len(names) == 2 and all(name.startswith("/memfd:rows") for name in names)


def test_a_share_reads_the_counts_of_the_shares_before_it_from_their_pipes() -> None:
    counts = session_gate._Counts(3)
    try:
        counts[0] = 5
        counts[1] = 7
        counts[2] = 11  # the last share: none waits for its count
        # Share 0's count is written once for each later share.
        assert counts.before(1) == 5
        assert counts.before(2) == 12
    finally:
        counts.close()


def test_a_share_before_that_failed_or_ended_without_a_word_is_no_count() -> None:
    failed = session_gate._Counts(2)
    try:
        failed[0] = session_gate._FAILED
        assert failed.before(1) is None
    finally:
        failed.close()
    ended = session_gate._Counts(3)
    try:
        ended[0] = 5
        # Share 1's process ends before it says (killed): its pipe has no writer left.
        read, write = ended.pipes[1]
        os.close(write)
        ended.pipes[1] = (read, -1)
        assert ended.before(2) is None
    finally:
        ended.close()


def test_a_share_says_its_count_once() -> None:
    counts = session_gate._Counts(2)
    try:
        counts[0] = 5
        counts[0] = session_gate._FAILED  # an error after it said: the count stands
        assert counts.before(1) == 5
    finally:
        counts.close()
