"""Following a growing session file: what is appended is read, parsed and converted once.

An agent writes its session file line by line while it runs. A `Follower` remembers how far it
has read; each `poll` reads only the bytes added since, parses the complete lines among them (a
line still being written waits for its newline) and hands the new records to its format's
`Reader`, which adds their items to the conversations read so far: no line is parsed twice,
and no earlier record is converted again (but for the few a new record completes: the other
records of a response written in several, a Codex call whose output arrives). A file that
shrank (truncated) or was replaced by another (rotated: a new inode) is said so, and read again
from its start.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from inspector.core.formats import session_candidates, session_formats
from inspector.core.formats._sessions import Corrupt, Line, first_record, parse_lines
from inspector.core.jsonio import display_name
from inspector.core.model import LoadError, Transcript

#: Session formats a followed file may be in: those written as JSON Lines, read line by line.
#: Traces written as lines show their first rows too, though they are not followed.
_OTEL = "inspector.core.formats.otel"
FOLLOWED: tuple[ModuleType, ...] = tuple(m for m in session_formats() if hasattr(m, "Reader"))
#: How much of a large session file is read first, so its first rows can be shown at once
#: (some hundreds of records: more than a window shows, few enough to measure and paint fast).
HEAD_BYTES = 1 << 18


def head_conversations(
    path: str | os.PathLike[str], size: int = HEAD_BYTES
) -> list[Transcript] | None:
    """The conversations of a large JSON Lines session or trace file's first `size` bytes (its
    whole lines), read without reading the rest: what a window shows while the whole file loads.
    None for a file no larger than that, or one that is not such a session or a trace written
    as lines (a pipe, gzip, a whole document, anything else): it is simply loaded."""
    name = display_name(path)
    if name == "<stdin>" or not os.path.isfile(path):
        return None
    with open(path, "rb") as handle:
        head = handle.read(size + 1)
    if len(head) <= size:
        return None  # small enough to be loaded whole at once
    head = head[: head.rfind(b"\n", 0, size) + 1]
    first = first_record(head)
    module = next(
        (
            m
            for m in session_candidates(head)
            if (m in FOLLOWED or m.__name__ == _OTEL) and m.matches(head, first)
        ),
        None,
    )
    if module is None or not head:
        return None
    try:
        if module.__name__ == _OTEL:
            # Only the collector's file exporter writes a trace as lines (one request each);
            # the first traces are read as a file of their own.
            if module.detect(first) is None:
                return None
            found: list[Transcript] = module.load_file(head, name)
        else:
            reader = module.Reader(name)
            reader.add(*parse_lines(head, name, skip=reader.skip))
            found = reader.transcripts(final=True)
    except LoadError:
        return None  # nothing to show among the first lines: the whole load says what there is
    return found


@dataclass(frozen=True, slots=True)
class Update:
    """What a poll found: the conversations as they now stand, and what changed."""

    transcripts: list[Transcript]
    #: Records parsed by this poll.
    new_records: int
    #: Why reading started over from the start of the file (truncated, replaced), or None.
    restarted: str | None = None


class Follower:
    """Reads a JSON Lines session file as it grows (see the module docstring)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.name = display_name(path)
        #: Bytes read from the file so far, over every poll (each byte is read once).
        self.bytes_read = 0
        self._reset()
        self._identity: tuple[int, int] | None = None

    def _reset(self) -> None:
        self._offset = 0
        self._pending = b""
        self._number = 0
        self._reader: Any = None

    def poll(self) -> Update | None:
        """Read what was appended since the last poll; None when no whole new line arrived."""
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            raise LoadError("no such file (it may have been moved away)", path=self.name) from None
        restarted = None
        identity = (info.st_dev, info.st_ino)
        if self._identity is not None and identity != self._identity:
            restarted = "the file was replaced by another (rotated)"
        elif info.st_size < self._offset:
            restarted = "the file was truncated"
        self._identity = identity
        if restarted is not None:
            self._reset()
        if info.st_size == self._offset and restarted is None:
            return None
        with open(self.path, "rb") as handle:
            handle.seek(self._offset)
            chunk = handle.read()
        self._offset += len(chunk)
        self.bytes_read += len(chunk)
        data = self._pending + chunk
        cut = data.rfind(b"\n") + 1
        complete, self._pending = data[:cut], data[cut:]
        if not complete and restarted is None:
            return None
        lines, corrupt = self._parse(complete)
        self._number += complete.count(b"\n")
        if self._reader is not None:
            self._reader.add(lines, corrupt)
        return Update(self.transcripts(), len(lines), restarted)

    def _parse(self, complete: bytes) -> tuple[list[Line], list[Corrupt]]:
        """Parse complete lines; until the format is known, one at a time up to the first
        record (which says it), then the rest as that format reads them."""
        lines: list[Line] = []
        corrupt: list[Corrupt] = []
        number = self._number
        while self._reader is None and complete:
            cut = complete.find(b"\n") + 1 or len(complete)
            got, bad = parse_lines(complete[:cut], self.name, number + 1)
            complete, number = complete[cut:], number + 1
            lines += got
            corrupt += bad
            if got:
                self._reader = self._open(got[0])
        if complete and self._reader is not None:
            got, bad = parse_lines(complete, self.name, number + 1, skip=self._reader.skip)
            lines += got
            corrupt += bad
        return lines, corrupt

    def _open(self, first: Line) -> Any:
        """The reader of the format the first record is in (a LoadError if none)."""
        module = next((m for m in FOLLOWED if m.matches(b"{", first.obj)), None)
        if module is None:
            raise LoadError(
                "follow reads Codex rollouts and Claude Code sessions (JSON Lines); the "
                "first record is neither",
                path=self.name,
                line=first.number,
            )
        return module.Reader(self.name)

    def transcripts(self) -> list[Transcript]:
        """The conversations of the records read so far (none before the first turn)."""
        if self._reader is None:
            return []
        try:
            found: list[Transcript] = self._reader.transcripts()
        except LoadError:
            return []  # no turn yet (a session that opened with its metadata only)
        return found
