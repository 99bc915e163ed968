"""The session: each side's load, re-gate and failure, the diff, the swap, and the signals the
window listens to, without any widget."""

from __future__ import annotations

import pytest

from inspector.core.model import LoadError
from inspector.core.stream import StreamResult
from inspector.gui.qt_session import DIFF, Session
from tests.conftest import SAMPLES
from tests.gui.conftest import PROVIDER_A, PROVIDER_B

WIDER_REGION = SAMPLES / "tools" / "region-with-global.tools.json"
GAP = SAMPLES / "streams" / "sequence-gap-duplicate.sse"


@pytest.fixture
def session(qtbot) -> Session:
    """A session that runs its jobs in place."""
    made = Session(synchronous=True)
    yield made
    made.runner.wait()


def _record(session: Session) -> list[tuple]:
    heard: list[tuple] = []
    # A change is announced with the old diff already gone (None marks it).
    session.loading.connect(lambda side, path: heard.append(("loading", side)))
    session.loaded.connect(lambda side: heard.append(("loaded", side, session.alignment)))
    session.failed.connect(lambda side, p, e: heard.append(("failed", side, session.alignment)))
    session.swapped.connect(lambda: heard.append(("swapped", session.alignment)))
    session.diffed.connect(lambda: heard.append(("diffed", session.alignment is not None)))
    return heard


def test_a_pair_loads_then_is_compared(session):
    heard = _record(session)
    session.open("left", str(PROVIDER_A))
    session.open("right", str(PROVIDER_B))
    first = [
        ("loading", "left"),
        ("loaded", "left", None),
        ("loading", "right"),
        ("loaded", "right", None),
        ("diffed", True),
    ]
    assert heard == first
    session.reload()  # the old diff goes before either side's new file is shown
    assert heard[len(first) :] == [
        ("loading", "left"),
        ("loaded", "left", None),
        ("diffed", True),
        ("loading", "right"),
        ("loaded", "right", None),
        ("diffed", True),
    ]
    assert session.paths == {"left": str(PROVIDER_A), "right": str(PROVIDER_B)}
    assert session.alignment is not None and not session.alignment.diff.replay_safe
    left = session.files["left"]
    assert left is not None and left.decision.blocks
    assert left.decision.blocked_items == left.summary["arguments_schema"] == 1


def test_a_stream_keeps_the_events_its_load_decoded(session):
    session.open("left", str(GAP))
    loaded = session.files["left"]
    assert loaded is not None and loaded.stream is not None
    transcript = loaded.result.transcript
    assert isinstance(loaded.stream.result, StreamResult)
    assert loaded.stream.result is transcript.stream  # one decode per load, no second read
    assert loaded.stream.events is transcript.events
    assert loaded.decision.stream_violations == {"error": 2}
    assert session.streams == {"left": loaded.stream}


def test_tools_then_regate_change_the_verdicts(session):
    session.open("left", str(PROVIDER_A))
    assert session.files["left"].decision.blocks
    changed: list[bool] = []
    session.tools_changed.connect(lambda: changed.append(True))
    session.add_tool_file(str(WIDER_REGION))
    assert changed == [True] and session.tool_files == [str(WIDER_REGION)]
    assert session.files["left"].decision.blocks  # verdicts stay until the re-gate
    session.regate()
    regated = session.files["left"]
    assert regated.result.verdicts[7].verdict == "ok"
    assert not regated.decision.blocks
    assert "get_latest_sales_report" in session.known_tools()
    with pytest.raises(LoadError):
        session.add_tool_file(str(SAMPLES / "does-not-exist.json"))
    assert session.tool_files == [str(WIDER_REGION)]


def test_an_unreadable_file_is_kept_by_path_and_read_again_on_swap(session, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    errors: list[LoadError] = []
    session.failed.connect(lambda side, path, error: errors.append(error))
    session.open("left", str(broken))
    session.open("right", str(PROVIDER_B))
    assert session.files["left"] is None and session.paths["left"] == str(broken)
    assert errors and errors[0].path == str(broken)
    assert session.alignment is None
    heard = _record(session)
    session.swap()
    assert session.files["left"] is not None and session.files["right"] is None
    assert heard == [("swapped", None), ("loading", "right"), ("failed", "right", None)]
    assert len(errors) == 2 and session.paths["right"] == str(broken)


def test_threaded_jobs_say_when_they_run(qtbot):
    session = Session()
    busy: list[tuple[str, bool]] = []
    session.busy.connect(lambda channel, running: busy.append((channel, running)))
    session.open("left", str(PROVIDER_A))
    session.open("right", str(PROVIDER_B))
    qtbot.waitUntil(lambda: session.alignment is not None, timeout=60_000)
    session.runner.wait()
    qtbot.waitUntil(lambda: busy[-1] == (DIFF, False), timeout=60_000)
    assert busy.count((DIFF, True)) == busy.count((DIFF, False)) == 1
    for side in ("left", "right"):
        assert busy.count((side, True)) == busy.count((side, False)) == 1
    assert not session.comparing()
