"""The window's state and its long work: each side's gated file, the extra tools, the diff, and
the load / re-gate / diff jobs on worker threads, announced by signals (no widgets here)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtCore import QObject, QTimer, Signal

from inspector.core.errors import Cancelled, InspectorError, LoadError
from inspector.core.modes import DiffMode
from inspector.gui import status
from inspector.gui.qt_workers import Progress, TaskRunner

# The gate, the formats, the diff, the targets and the reports are imported when first used
# (after the window's first paint): the window starts without them.
if TYPE_CHECKING:
    from inspector.core.decision import Decision
    from inspector.core.formats import conversations_from_bytes
    from inspector.core.formats._follow import Follower, Update, head_conversations
    from inspector.core.gate import GateResult, gate_transcript
    from inspector.core.jsonio import display_name, read_bytes
    from inspector.core.model import Tool, Transcript
    from inspector.core.targets import Profile
    from inspector.gui.alignment import Alignment
    from inspector.gui.export import Rendered
    from inspector.gui.qt_stream import StreamView
    from inspector.gui.tallies import Tallies, tally
    from inspector.gui.tools_matrix import ToolRow
else:
    from inspector.gui.lazy import OnFirstCall

    gate_transcript = OnFirstCall("inspector.core.gate", "gate_transcript")
    display_name = OnFirstCall("inspector.core.jsonio", "display_name")
    read_bytes = OnFirstCall("inspector.core.jsonio", "read_bytes")
    conversations_from_bytes = OnFirstCall("inspector.core.formats", "conversations_from_bytes")
    head_conversations = OnFirstCall("inspector.core.formats._follow", "head_conversations")
    StreamView = OnFirstCall("inspector.gui.qt_stream", "StreamView")
    tally = OnFirstCall("inspector.gui.tallies", "tally")

SIDES = ("left", "right")
#: The runner channel of the diff job (each side's load and re-gate runs on the side's name).
DIFF = "diff"
#: Seconds a load waits, at most, for its first rows to be shown before it reads on.
FIRST_ROWS_WAIT_S = 2.0
#: The runner channel of a followed side's polls is this and the side's name.
FOLLOW = "follow-"
#: Transcripts with more items than this are filtered on a worker thread.
ASYNC_FILTER_ITEMS = 20_000
#: Files larger than this are filtered on a worker whatever their item count (the filter
#: searches each item's JSON, and one item may hold a 200 MB string).
ASYNC_FILTER_BYTES = 4 * 1024 * 1024


class Loaded(NamedTuple):
    """What a load produces off the GUI thread: the gated transcript, its verdict counts, the
    core's replay decision and its other counts (`tallies`: each walks every item or finding,
    so they are computed there too), and, for streams, the decoded events."""

    path: str
    result: GateResult
    stream: StreamView | None
    summary: dict[str, int]
    decision: Decision
    size: int = 0
    #: The target profile whose findings `result` carries (None: the gate's findings only).
    target: str | None = None
    #: Every conversation of the file (a trace, an eval log, a capture), and which is shown.
    conversations: tuple[Transcript, ...] = ()
    picked: int = 0
    #: The first rows of a file whose whole load is still running: the pane shows them
    #: meanwhile; the panels (findings, details) wait for the whole file.
    reading: bool = False
    #: The calls, findings and target findings counted (`tallies.tally`; None: not counted).
    tallies: Tallies | None = None

    @classmethod
    def of(cls, path: str, result: GateResult, stream: StreamView | None, size: int = 0) -> Loaded:
        """Bundle a gated transcript (read from `size` bytes) with the figures shown about it."""
        from inspector.core.decision import decide_file
        from inspector.gui.qt_transcript_model import fit_texts

        _prepare_display()
        decision = decide_file(result, name=path)
        tallies = tally(result)._replace(fitted=MappingProxyType(fit_texts(result)))
        return cls(path, result, stream, result.summary(), decision, size, tallies=tallies)

    def counted(self) -> Tallies:
        """The transcript's tallies (counted now if the load did not)."""
        return self.tallies if self.tallies is not None else tally(self.result)


def _prepare_display() -> None:
    """Compile, off the GUI thread, the invisible-character pattern (a class of a few hundred
    code point ranges) that the first loaded file's header tooltip asks for: its pane is then
    painted without compiling it.

    pygments, which the Item tab's highlighter imports, is not imported here: its lexers
    package replaces its own module while it is imported, and two threads importing it at once
    (two sides loading, or the highlighter meanwhile) fail to find `JsonLexer`."""
    from inspector.core.gate import INVISIBLE

    INVISIBLE.compiled()  # once: the pattern keeps what it compiled, under its own lock


def judge(loaded: Loaded, target: Profile | None, progress: Progress | None = None) -> Loaded:
    """The loaded file judged for a target: the gate's findings plus the target's (none: only
    the gate's); runs in a worker thread."""
    from inspector.core.decision import decide_file
    from inspector.core.targets import TargetFinding, with_target_findings

    name = target.name if target is not None else None
    if loaded.target == name:
        return loaded
    # Target findings from an earlier target go; the gate's own findings stay as they were.
    gated = tuple(f for f in loaded.result.findings if not isinstance(f, TargetFinding))
    result = replace(loaded.result, findings=gated)
    if target is not None:
        if progress is not None:
            progress(f"Judging for {target.name}…")
        result = with_target_findings(result, target)
    # A target adds findings, never changes a verdict: the calls counted stay.
    tallies = tally(result, loaded.counted())
    return loaded._replace(
        result=result, decision=decide_file(result, name=loaded.path), target=name, tallies=tallies
    )


def _side_name(loaded: Loaded) -> str:
    """A loaded file's name in the status line; the first rows of one still read say so."""
    name = os.path.basename(loaded.path)
    if loaded.reading:
        return f"{name} (its first {len(loaded.result.transcript.items):,} items; reading on)"
    return name


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:,.1f} MB"


def _gating(progress: Progress, name: str) -> Callable[[int, int], None]:
    """The gate's progress callback: items gated of all, with how far."""

    def gated(done: int, items: int) -> None:
        progress(f"Gating {name}: {done:,} of {items:,} items", done / max(items, 1))

    return gated


def load_and_gate(
    path: str,
    tools: dict[str, Tool],
    progress: Progress,
    cancel: threading.Event | None = None,
    first_rows: Callable[[Loaded], None] | None = None,
) -> Loaded:
    """Read, load and gate one file (runs in a worker thread); `cancel` stops the work.

    Progress is reported as bytes read, then as items gated, each with how far it has got.
    A large session file's first lines are loaded and gated first and handed to `first_rows`
    (`reading` set), so they can be shown while the whole file is read.
    """
    name = os.path.basename(path)
    head = head_conversations(path) if first_rows is not None else None
    if first_rows is not None and head:
        early = gate_conversation(path, tuple(head), 0, tools, progress, cancel)
        first_rows(early._replace(reading=True))
    progress(f"Reading {name}…")
    # Cancel also ends a read that waits on a pipe or a device.
    data = read_bytes(path, cancel=cancel)
    if cancel is not None and cancel.is_set():
        raise Cancelled("the load was cancelled")
    total = _megabytes(len(data))
    progress(f"Reading {name}: 0.0 of {total}", 0.0)

    def parsed(done: int, size: int) -> None:
        progress(f"Reading {name}: {_megabytes(done)} of {total}", done / max(size, 1))

    source = None if display_name(path) == "<stdin>" else Path(path)
    transcripts = conversations_from_bytes(
        data, display_name(path), source, cancel=cancel, progress=parsed
    )
    loaded = gate_conversation(path, tuple(transcripts), 0, tools, progress, cancel)
    return loaded._replace(size=len(data))


def gate_conversation(
    path: str,
    conversations: tuple[Transcript, ...],
    picked: int,
    tools: dict[str, Tool],
    progress: Progress,
    cancel: threading.Event | None = None,
) -> Loaded:
    """Gate one conversation of a loaded file (runs in a worker thread)."""
    transcript = conversations[picked]
    name = os.path.basename(path)
    result = gate_transcript(transcript, tools, cancel=cancel, progress=_gating(progress, name))
    stream = None
    if transcript.stream is not None:
        # The events decoded by the load, kept on the transcript: the Stream tab never re-reads.
        stream = StreamView(path, transcript.stream, transcript.events)
    return Loaded.of(path, result, stream)._replace(conversations=conversations, picked=picked)


class Session(QObject):
    """Both sides' loaded files, the tools they are gated with, their diff, and the jobs."""

    #: side, path — a load started (the side shows it is busy).
    loading = Signal(str, str)
    #: side, stage, fraction (0..1; negative when unknown) — what a running load or re-gate does.
    progress = Signal(str, str, float)
    #: side — a gated file is ready on that side (a load or re-gate); the diff is dropped.
    loaded = Signal(str)
    #: side, path, LoadError — the file could not be read; the side holds nothing.
    failed = Signal(str, str, object)
    #: the sides were swapped (sides whose file was unreadable are read again).
    swapped = Signal()
    #: a new diff of the two sides is ready (`alignment`).
    diffed = Signal()
    #: stage, fraction (0..1; negative when unknown) — how far the running diff has got.
    diff_progress = Signal(str, float)
    #: InspectorError — the diff could not be computed.
    diff_failed = Signal(object)
    #: channel, running — a side's load or the diff started (True) or ended (False).
    busy = Signal(str, bool)
    #: the extra tools changed.
    tools_changed = Signal()
    #: the tools matrix is ready (`tool_rows`).
    tools_checked = Signal()
    #: text, milliseconds — what a job's end has to say in the status bar.
    said = Signal(str, int)
    #: side — following that side's file stopped (the user, or a file that cannot be followed).
    follow_stopped = Signal(str)
    #: side, Loaded, (cancel, shown) events — a worker's first rows of a large file (see
    #: `load_and_gate`).
    _first_rows = Signal(str, object, object)

    def __init__(self, parent: QObject | None = None, *, synchronous: bool = False) -> None:
        super().__init__(parent)
        self.runner = TaskRunner(self, synchronous=synchronous)
        self.runner.progress.connect(self._progress)
        self.runner.idle.connect(self._idle)
        self.files: dict[str, Loaded | None] = {side: None for side in SIDES}
        #: The file each side shows, readable or not (what a reload or swap reads again).
        self.paths: dict[str, str | None] = {side: None for side in SIDES}
        self.extra_tools: dict[str, Tool] = {}
        self.tool_files: list[str] = []
        self.alignment: Alignment | None = None
        #: The target provider both sides are judged for (None: the gate alone).
        self.target: Profile | None = None
        #: How the right side is read against the left (the diff's mode).
        self.mode = DiffMode.REPLAY
        #: The tools matrix of the known tools and both sides (None while it is worked out).
        self.tool_rows: list[ToolRow] | None = None
        self._tools_key: tuple[object, ...] | None = None
        #: Sides whose file is followed as it grows, each with its reader and its poll timer.
        self._following: dict[str, tuple[Follower, QTimer]] = {}
        self._first_rows.connect(self._show_first_rows)

    # ---- state ----------------------------------------------------------------------------

    @property
    def results(self) -> dict[str, GateResult | None]:
        """Each side's gated transcript (None where nothing is loaded)."""
        return {side: (x.result if x is not None else None) for side, x in self.files.items()}

    @property
    def tallies(self) -> dict[str, Tallies]:
        """Each loaded side's counts (its calls and findings), counted with its load."""
        return {side: x.counted() for side, x in self.files.items() if x is not None}

    @property
    def streams(self) -> dict[str, StreamView]:
        """The sides that are recorded streams, with their events."""
        return {s: x.stream for s, x in self.files.items() if x is not None and x.stream}

    def known_tools(self) -> dict[str, Tool]:
        """Every tool known: both transcripts' own, then the loaded tool files (which win)."""
        tools: dict[str, Tool] = {}
        for result in self.results.values():
            if result is not None:
                tools.update(result.transcript.tools)
        tools.update(self.extra_tools)
        return tools

    def comparing(self) -> bool:
        """Whether a diff is being computed."""
        return self.runner.busy(DIFF)

    # ---- loads ----------------------------------------------------------------------------

    def open(self, side: str, path: str) -> None:
        """Load and gate a file off the GUI thread for one side (a newer load supersedes it)."""
        path = os.path.abspath(path)
        if side in self._following:
            self.follow(side, False)  # another file: the one followed is no longer shown
            self.follow_stopped.emit(side)
        tools = dict(self.extra_tools)
        target = self.target
        self.loading.emit(side, path)

        def work(progress: Progress, cancel: threading.Event) -> Loaded:
            def first_rows(loaded: Loaded) -> None:
                # Emitted from the worker: queued to the GUI thread, which drops it if the load
                # was superseded meanwhile. The worker waits (briefly) until the rows are shown:
                # reading on would hold the interpreter's lock while the GUI paints them.
                shown = threading.Event()
                self._first_rows.emit(side, judge(loaded, target), (cancel, shown))
                shown.wait(FIRST_ROWS_WAIT_S)

            return load_and_gate(path, tools, progress, cancel, first_rows)

        self._start_side(side, path, work)

    def _show_first_rows(
        self, side: str, loaded: Loaded, events: tuple[threading.Event, threading.Event]
    ) -> None:
        """Show a large file's first rows while its whole load goes on (no diff of them)."""
        cancel, shown = events
        # Once the event loop is idle again (the rows painted), the load reads on.
        QTimer.singleShot(0, shown.set)
        if cancel.is_set() or not self.runner.busy(side) or loaded.target != self.target_name:
            return
        self.files[side] = loaded
        self.paths[side] = loaded.path
        self._clear_diff()
        self.loaded.emit(side)

    def reload(self) -> None:
        """Read every shown file again from disk."""
        for side, path in self.paths.items():
            if path:
                self.open(side, path)

    def regate(self) -> None:
        """Gate the loaded transcripts again with the current extra tools."""
        tools = dict(self.extra_tools)
        for side, old in self.files.items():
            if old is None:
                continue

            def work(progress: Progress, cancel: threading.Event, old: Loaded = old) -> Loaded:
                gated = _gating(progress, os.path.basename(old.path))
                result = gate_transcript(
                    old.result.transcript, tools, cancel=cancel, progress=gated
                )
                return Loaded.of(old.path, result, old.stream, old.size)._replace(
                    conversations=old.conversations, picked=old.picked
                )

            self._start_side(side, old.path, work)

    def pick_conversation(self, side: str, picked: int) -> None:
        """Show another conversation of the side's file: gated off the GUI thread, not re-read."""
        old = self.files[side]
        if old is None or not 0 <= picked < len(old.conversations) or picked == old.picked:
            return
        tools = dict(self.extra_tools)

        def work(progress: Progress, cancel: threading.Event) -> Loaded:
            loaded = gate_conversation(old.path, old.conversations, picked, tools, progress, cancel)
            return loaded._replace(size=old.size)

        self._start_side(side, old.path, work)

    def follow(self, side: str, on: bool, interval_ms: int = 500) -> bool:
        """Follow (or stop following) a side's session file: what the agent appends is read
        and parsed once, and the side shows the new items, gated, without reloading the file."""
        from inspector.core.formats._follow import FOLLOWED, Follower

        following = self._following.pop(side, None)
        if following is not None:
            following[1].stop()
            following[1].deleteLater()
            self.runner.cancel(FOLLOW + side, notify=False)
        path = self.paths[side]
        if not on:
            return False
        loaded = self.files[side]
        followed = {m.FORMAT.name for m in FOLLOWED}
        if not path or loaded is None or loaded.result.transcript.format not in followed:
            name = os.path.basename(path) if path else "nothing is open"
            self.said.emit(
                f"Cannot follow {name}: follow reads Codex and Claude Code sessions (JSON Lines)",
                8000,
            )
            self.follow_stopped.emit(side)
            return False
        timer = QTimer(self)
        timer.setInterval(interval_ms)
        timer.timeout.connect(lambda: self._poll_followed(side))
        self._following[side] = (Follower(path), timer)
        timer.start()
        return True

    def following(self, side: str) -> bool:
        """Whether the side's file is followed."""
        return side in self._following

    def follower(self, side: str) -> Follower | None:
        """The reader of the side's followed file (None: not followed)."""
        following = self._following.get(side)
        return following[0] if following is not None else None

    def _poll_followed(self, side: str) -> None:
        channel = FOLLOW + side
        if side not in self._following or self.runner.busy(side) or self.runner.busy(channel):
            return  # the update before this one is still being read or gated
        follower = self._following[side][0]
        old = self.files[side]
        tools, target = dict(self.extra_tools), self.target

        def work(progress: Progress) -> tuple[Update, Loaded] | None:
            # On a worker: the first poll reads the whole file, and each one gates it.
            update = follower.poll()
            if update is None or not update.transcripts:
                return None
            conversations = tuple(update.transcripts)
            picked = old.picked if old is not None and old.picked < len(conversations) else 0
            loaded = gate_conversation(follower.path, conversations, picked, tools, progress)
            return update, judge(loaded, target, progress)

        def done(found: tuple[Update, Loaded] | None) -> None:
            if found is None or self.follower(side) is not follower:
                return
            update, loaded = found
            if update.restarted:
                self.said.emit(
                    f"{follower.name}: {update.restarted}; read again from its start", 8000
                )
            self.set_loaded(side, loaded)

        def failed(exc: InspectorError) -> None:
            if self.follower(side) is not follower:
                return
            self.follow(side, False)
            self.follow_stopped.emit(side)
            self.said.emit(f"Cannot follow {follower.name}: {exc.message}", 8000)

        self.runner.start(channel, work, done, failed)

    def cancel(self, side: str) -> None:
        """Drop one side's running load; what the side held stays."""
        self.runner.cancel(side)

    def stop(self) -> None:
        """Drop every running load and the diff (the window is closing)."""
        for side in list(self._following):
            self.follow(side, False)
        for channel in (*SIDES, DIFF):
            self.runner.cancel(channel, notify=False)

    def _start_side(
        self, side: str, path: str, work: Callable[[Progress, threading.Event], Loaded]
    ) -> None:
        cancel = threading.Event()
        target = self.target  # judged with the target chosen when the work started
        self.runner.start(
            side,
            lambda progress: judge(work(progress, cancel), target, progress),
            lambda loaded: self.set_loaded(side, loaded),
            lambda error: self._failed(side, path, error),
            cancel=cancel,
        )
        self._announce(side)

    def set_loaded(self, side: str, loaded: Loaded) -> None:
        """Take a finished load for one side (the worker's result arrives here) and re-diff."""
        if loaded.target != self.target_name:
            self._judge_side(side, loaded)  # the target changed while it ran
            return
        self.files[side] = loaded
        self.paths[side] = loaded.path
        self._clear_diff()
        self.loaded.emit(side)
        self._start_diff()

    def _failed(self, side: str, path: str, error: InspectorError) -> None:
        self.files[side] = None
        self.paths[side] = path
        self._clear_diff()
        load_error = error if isinstance(error, LoadError) else LoadError(str(error), path=path)
        self.failed.emit(side, path, load_error)

    def swap(self) -> None:
        """Swap the sides; a side whose file was unreadable reads it again on the other side."""
        self.files = {"left": self.files["right"], "right": self.files["left"]}
        self.paths = {"left": self.paths["right"], "right": self.paths["left"]}
        self._clear_diff()
        self.swapped.emit()
        self._start_diff()
        for side, path in self.paths.items():
            if self.files[side] is None and path is not None:
                self.open(side, path)

    # ---- tools ----------------------------------------------------------------------------

    def add_tool_file(self, path: str) -> None:
        """Add the tools of a file (they win over the transcripts' own); LoadError if unreadable.

        The loaded sides keep their verdicts until `regate`.
        """
        from inspector.core.formats import load_tools

        self.extra_tools.update(load_tools(path))
        if path not in self.tool_files:
            self.tool_files.append(path)
        self.tools_changed.emit()

    # ---- target and mode ------------------------------------------------------------------

    @property
    def target_name(self) -> str | None:
        """The name of the target both sides are judged for (None: no target)."""
        return self.target.name if self.target is not None else None

    def set_target(self, target: Profile | None) -> None:
        """Judge both sides for a target provider (None: the gate alone), off the GUI thread."""
        if target == self.target:
            return
        self.target = target
        for side, loaded in self.files.items():
            # A side still loading is judged when its file arrives (`set_loaded`).
            if loaded is not None and not self.runner.busy(side):
                self._judge_side(side, loaded)

    def _judge_side(self, side: str, loaded: Loaded) -> None:
        self._start_side(side, loaded.path, lambda _progress, _cancel: loaded)

    def set_mode(self, mode: DiffMode | str) -> None:
        """Compare the sides again in another diff mode (replay or compare)."""
        mode = DiffMode(mode)
        if mode == self.mode:
            return
        self.mode = mode
        self._clear_diff()
        self._start_diff()

    # ---- diff -----------------------------------------------------------------------------

    def _clear_diff(self) -> None:
        # A side changed: the old diff no longer describes the sides, so it goes before anyone
        # looks at the new side (whoever shows the change shows that there is no diff yet).
        self.runner.cancel(DIFF)
        self.alignment = None

    def _start_diff(self) -> None:
        left, right = self.files["left"], self.files["right"]
        if left is None or right is None:
            return
        from inspector.core.diff import diff_results
        from inspector.gui.alignment import Alignment

        mode = self.mode

        def work(progress: Progress) -> Alignment:
            # The core says how far it has got: matching the items, then comparing the pairs.
            diff = diff_results(left.result, right.result, mode=mode, progress=progress)
            return Alignment(diff, (left.path, right.path))

        self.runner.start(DIFF, work, self._diffed, self.diff_failed.emit)
        self._announce(DIFF)

    def _diffed(self, alignment: Alignment) -> None:
        self.alignment = alignment
        self.diffed.emit()

    # ---- runner ---------------------------------------------------------------------------

    def _announce(self, channel: str) -> None:
        # Work run in place (synchronous mode) is over by now: only running work is announced.
        if self.runner.busy(channel):
            self.busy.emit(channel, True)

    def _progress(self, channel: str, stage: str, fraction: float) -> None:
        if channel in SIDES:
            self.progress.emit(channel, stage, fraction)
        elif channel == DIFF:
            self.diff_progress.emit(stage, fraction)

    def _idle(self, channel: str) -> None:
        if channel in (*SIDES, DIFF):
            self.busy.emit(channel, False)

    # ---- the decision, the tools matrix, filters and reports --------------------------------

    def verdict(self) -> Decision | None:
        """The diff's one decision (made with the alignment), None without a diff."""
        return self.alignment.decision if self.alignment is not None else None

    def status_sides(self) -> dict[str, status.Side]:
        """What the status line is told of each loaded side."""
        return {
            side: status.Side(_side_name(x), x.decision, x.summary)
            for side, x in self.files.items()
            if x is not None
        }

    def check_tools(self, profiles: list[Profile]) -> None:
        """Work out the tools matrix against `profiles` on a worker when the results or the
        tools are new objects (`tools_checked` follows; `tool_rows` is None meanwhile)."""
        results = {s: r for s, r in self.results.items() if r is not None}
        files = {s: x for s, x in self.files.items() if x is not None}
        tools = self.known_tools()
        key = (*results, *results.values(), None, *tools.values(), None, *profiles)
        if _same(key, self._tools_key):
            return
        self._tools_key, self.tool_rows = key, None

        from inspector.gui.tools_matrix import build_matrix

        def work(progress: Progress) -> list[ToolRow]:
            progress("Checking the tools against every target…")
            # Each side's calls were counted with its load: no item is walked here.
            counted = {side: loaded.counted().calls for side, loaded in files.items()}
            return build_matrix(tools, profiles, results, counted)

        def done(rows: list[ToolRow]) -> None:
            self.tool_rows = rows
            self.tools_checked.emit()

        self.runner.start(
            "tools",
            work,
            done,
            lambda error: self.said.emit(f"Cannot check the tools: {error}", 8000),
        )

    def match(
        self,
        jobs: dict[str, Callable[[], frozenset[int]] | None],
        items: dict[str, int],
        apply: Callable[[dict[str, frozenset[int] | None]], None],
    ) -> None:
        """Match the panes' filters (`jobs`, by side; `items` is each pane's item count): on a
        worker when a side is large (a newer match supersedes it), else at once."""
        large = any(
            job is not None
            and (
                items.get(side, 0) > ASYNC_FILTER_ITEMS
                or _size(self.files[side]) > ASYNC_FILTER_BYTES
            )
            for side, job in jobs.items()
        )

        def work(_progress: Progress | None = None) -> dict[str, frozenset[int] | None]:
            return {side: (job() if job is not None else None) for side, job in jobs.items()}

        if large and not self.runner.synchronous:
            self.said.emit("Filtering…", 0)
            self.runner.start("filter", work, apply, lambda _error: None)
        else:
            self.runner.cancel("filter", notify=False)
            apply(work())

    def export_inputs(self) -> list[str]:
        """Every open input file (a report never overwrites one)."""
        return [p for p in (*self.paths.values(), *self.tool_files) if p]

    def export_problem(self) -> str | None:
        """Why no report can be written now (None when one can)."""
        loaded = [x for x in self.files.values() if x is not None]
        if not loaded:
            return "Open a transcript first: a report describes the open files."
        if len(loaded) == 2 and self.alignment is None:
            return "The two files are still being compared; export when the comparison is done."
        return None

    def export(self, path: str, fmt: str = "html", *, redact: bool = True) -> str | None:
        """Render the open files' report on a worker and write it through QSaveFile; return
        why it is refused (None when started; `said` tells how it ended)."""
        from inspector.gui.export import clashing_input, render_report, report_input
        from inspector.gui.qt_export import write_file

        problem = self.export_problem()
        clash = clashing_input(path, self.export_inputs())
        if clash is not None:
            problem = f"{os.path.basename(clash)} is an open input file; it is never overwritten."
        if problem is not None:
            return problem
        loaded = [x for x in self.files.values() if x is not None]
        diff = self.alignment.diff if len(loaded) == 2 and self.alignment is not None else None
        report = report_input(
            [(x.path, x.result) for x in loaded],
            diff,
            tool_files=self.tool_files,
            target=self.target_name,
        )

        def work(progress: Progress) -> Rendered:
            progress("Writing the report…")
            return render_report(report, fmt, redact=redact)

        def done(rendered: Rendered) -> None:
            error = write_file(path, rendered.text)
            if error is not None:
                self.said.emit(f"Cannot write {path}: {error}", 8000)
            else:
                self.said.emit(f"Report written to {path}. {rendered.redaction}", 8000)

        self.runner.start(
            "export",
            work,
            done,
            lambda error: self.said.emit(f"Cannot write the report: {error}", 8000),
        )
        return None


def _size(loaded: Loaded | None) -> int:
    return loaded.size if loaded is not None else 0


def _same(key: tuple[object, ...], other: tuple[object, ...] | None) -> bool:
    """Whether two keys hold the same objects (names compare by value, the rest by identity)."""
    if other is None or len(key) != len(other):
        return False
    return all(a is b or (isinstance(a, str) and a == b) for a, b in zip(key, other, strict=True))
