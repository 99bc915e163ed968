"""What the session-file sources share: tolerant JSON Lines and one transcript per conversation.

Session files (Codex rollouts, Claude Code sessions) are written by an agent while it runs, and
real ones hold broken lines (a crash mid-write, a line cut off by a full disk). A broken line is
a `corrupt_line` finding with its number, and every line after it still loads. The lines are
parsed once into `Line` values, so a followed file only parses what was appended.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple

import orjson
from msgspec import Struct

from inspector.core.formats._convert import Converter
from inspector.core.formats._records import Builder, Record
from inspector.core.jsonio import load_json
from inspector.core.model import Derivation, LoadError, Note, Origin, Severity, Transcript


class Line(NamedTuple):
    """One parsed record of a session file: its 1-based line, JSON Pointer base and value."""

    # A tuple: one is made for every line of a large session.
    number: int | None
    base: str
    obj: Any


#: `new_line(Line, (number, base, obj))`: a Line made without the named tuple's Python
#: `__new__` (a call of it costs more than parsing a small record's line).
new_line = tuple.__new__


class Corrupt(Struct, frozen=True):
    """A line that is not a JSON object: where, and why."""

    number: int
    why: str


def lines_of(data: bytes, start: int = 0, stop: int | None = None) -> Iterator[bytes]:
    """The lines of `data[start:stop]`, as its `split(b"\\n")` gives them, made one at a
    time: a large file is not held a second time as a list of its lines while its records
    are parsed, nor a run of a mapped file copied whole (its pages faulted in twice)."""
    size, find = len(data) if stop is None else stop, data.find
    while True:
        end = find(b"\n", start, size)
        if end < 0:
            yield data[start:size]
            return
        yield data[start:end]
        start = end + 1


#: What `bytes.strip` takes for white space.
_BLANK = frozenset(b" \t\n\r\x0b\x0c")
#: `lean(line, start, number)`: a Line for a record read without parsing it whole (`start`:
#: where the line begins in the data), or None to parse it.
Lean = Callable[[bytes, int, int], "Line | None"]


def parse_lines(
    data: bytes,
    path: str | None,
    first_number: int = 1,
    check: Callable[[int], None] | None = None,
    skip: Callable[[bytes], bool] | None = None,
    lean: Lean | None = None,
) -> tuple[list[Line], list[Corrupt]]:
    """Parse every non-blank line of JSON Lines; a line that is not an object is kept as Corrupt.

    `check(bytes done)` is called every few thousand lines: it may raise to stop the load
    (a cancelled load) and report progress. A line for which `skip(line)` is true is not parsed
    at all (a format's records that add nothing, recognised by their bytes), and one that
    `lean` reads is kept as it says.
    """
    corrupt: list[Corrupt] = []
    lines = list(iter_lines(data, path, corrupt, first_number, check, skip, lean))
    return lines, corrupt


def iter_lines(
    data: bytes,
    path: str | None,
    corrupt: list[Corrupt],
    first_number: int = 1,
    check: Callable[[int], None] | None = None,
    skip: Callable[[bytes], bool] | None = None,
    lean: Lean | None = None,
    *,
    begin: int = 0,
    stop: int | None = None,
) -> Iterator[Line]:
    """`parse_lines` one line at a time, the broken lines appended to `corrupt`: a reader that
    takes each record as it comes need not hold every record of a large file at once.

    `begin` and `stop` (a line start, and the end of a line or of the data) read the lines of
    `data[begin:stop]` as if they were the data, without copying them (a share of a large
    file); `check` and `lean` are then given offsets in `data`."""
    number = first_number - 1
    # The lines as `lines_of` cuts them, cut here: one generator a line, not two.
    start, find, loads = begin, data.find, orjson.loads
    size = len(data) if stop is None else stop
    while start <= size:
        end = find(b"\n", start, size)
        if end < 0:
            end = size
        raw = data[start:end]
        number += 1
        if check is not None and not number & 4095:
            check(min(end + 1, size))
        line_start, start = start, end + 1
        # Only a line that starts blank can be blank (strip copies the line).
        if not raw or (raw[0] in _BLANK and not raw.strip()) or (skip is not None and skip(raw)):
            continue
        if lean is not None and (read := lean(raw, line_start, number)) is not None:
            yield read
            continue
        try:
            obj = loads(raw)
        except orjson.JSONDecodeError:
            obj = _reread(raw, path, number)
        if isinstance(obj, dict):
            yield new_line(Line, (number, "", obj))
        else:
            corrupt.append(obj if isinstance(obj, Corrupt) else _not_record(number, obj))
    if check is not None:
        check(size)


def _reread(raw: bytes, path: str | None, number: int) -> Any:
    """A line orjson refused, read again: the exact reason with its column (Corrupt), or the
    value orjson refuses to read (a 65-bit integer)."""
    try:
        return load_json(raw.decode("utf-8"), path, number - 1)
    except UnicodeDecodeError as exc:
        return Corrupt(number, f"not valid UTF-8 (at byte {exc.start + 1})")
    except LoadError as exc:
        return Corrupt(number, exc.message)


def _not_record(number: int, obj: Any) -> Corrupt:
    kind = "an array" if isinstance(obj, list) else f"a JSON {type(obj).__name__}"
    return Corrupt(number, f"the line is {kind}, not a record object")


def read_line(raw: bytes, path: str | None, number: int) -> dict[str, Any] | Corrupt | None:
    """One line read as `iter_lines` reads it: its record, why it is broken, or None (blank)."""
    if not raw or (raw[0] in _BLANK and not raw.strip()):
        return None
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        obj = _reread(raw, path, number)
    if isinstance(obj, dict | Corrupt):
        return obj
    return _not_record(number, obj)


def first_line(data: bytes) -> bytes:
    """The data's first line from its first non-blank byte (without copying the rest, as
    `data.lstrip()` would: a session file is large)."""
    start, size = 0, len(data)
    while start < size and data[start] in _BLANK:
        start += 1
    end = data.find(b"\n", start)
    return data[start : end if end >= 0 else size]


def first_record(data: bytes) -> Any:
    """The first non-blank line of the data parsed as JSON, or None when it does not parse."""
    try:
        return orjson.loads(first_line(data))
    except orjson.JSONDecodeError:
        return None


def corrupt_notes(path: str | None, corrupt: Iterable[Corrupt]) -> list[Note]:
    """One `corrupt_line` finding per broken line."""
    where = path or "<input>"
    return [
        Note(
            "corrupt_line",
            Severity.WARNING,
            f"{where}:{c.number}: {c.why}; the line is skipped and the lines after it still load",
        )
        for c in corrupt
    ]


def _nested(b: Builder, record: Record) -> str:
    raise b.fail("a session record holds no nested records", record)


def builder(path: str | None) -> Builder:
    """A Builder for one conversation of a session file."""
    return Builder(path, _nested)


def conversation_group(b: Builder, kind: str, line: Line | None, **fields: Any) -> int:
    """Open the one group every item of a conversation belongs to."""
    origin = Origin(b.path, line.number if line is not None else None, "")
    return b.group(kind, origin, **fields)


def finish(
    b: Builder, fmt: str, conversation: str | None, notes: Sequence[Note] = ()
) -> Transcript:
    """Freeze a conversation, with notes for its first group (corrupt lines, what it holds)."""
    for note in notes:
        b.note(0, note)
    return b.transcript(fmt, conversation)


def snapshot(
    b: Builder, fmt: str, conversation: str | None, notes: Sequence[Note] = ()
) -> Transcript:
    """A conversation as it stands, with notes for its first group; the builder is left as it
    was, so more records can be added to it (a file that grows)."""
    transcript = b.transcript(fmt)
    groups = transcript.groups
    if notes:
        first = groups[0]
        groups = (dataclasses.replace(first, notes=(*first.notes, *notes)), *groups[1:])
    return dataclasses.replace(transcript, groups=groups, conversation=conversation)


def finish_lossy(
    conv: Converter,
    mark: Derivation,
    source: tuple[str, str] | None = None,
    *,
    objects_only: bool = False,
) -> None:
    """Settle a source's converted items, each call's `arguments` marked with why it is lossy
    (the source kept an object, not the model's text). `source` (format name, label) names
    where the items were converted from when that is not their envelope's format (an Inspect
    log's items are Open Responses items, converted from Inspect's messages). With
    `objects_only`, only calls whose arguments were not text are marked (a trace may keep
    either)."""
    conv.end()
    for pending in conv.pending:
        if pending.raw.get("type") == "function_call" and (
            not objects_only or any(d.field == "arguments" for d in pending.derived)
        ):
            pending.derived[:] = [d for d in pending.derived if d.field != "arguments"] + [mark]
    if source is not None:
        conv.source = source
    conv.finish()


def not_captured(
    path: str | None, fmt: str, kind: str, conversation: str | None, what: str
) -> Transcript:
    """A conversation the source recorded nothing of: no items, a `content_not_captured` finding
    saying `what` is missing, not an empty success."""
    b = builder(path)
    conversation_group(b, kind, None)
    note = Note(
        "content_not_captured",
        Severity.WARNING,
        f"{path or '<input>'}: {what}: there is nothing to gate",
    )
    return finish(b, fmt, conversation, [note])


def several_note(path: str | None, ids: Sequence[str]) -> Note:
    """The note that a file holds several conversations, each a transcript of its own."""
    shown = ", ".join(ids[:8]) + (f", … ({len(ids)} in all)" if len(ids) > 8 else "")
    # Shown by `gate` (which reports every conversation) and by `diff`, `report` and the window
    # (which take one at a time): the text must be true in each.
    return Note(
        "several_conversations",
        Severity.INFO,
        f"{path or '<input>'} holds {len(ids)} conversations ({shown}), each a transcript of "
        "its own: choose one with --conversation ID or the window's conversation picker",
    )
