"""Pieces shared by the CLI subcommands: exit codes, safe text, JSON output, output files.

Every command imports this module, so it imports nothing heavy itself: the reports, the target
profiles and `tempfile` are imported where they are used.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from itertools import chain, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO, cast

import orjson

from inspector.core.errors import UsageError

if TYPE_CHECKING:
    from inspector.core.gate import GateResult
    from inspector.core.targets import Profile

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_UNREADABLE = 2
#: Interrupted by SIGINT (Ctrl+C) or SIGTERM: 128 + the signal's number, as shells report it.
EXIT_SIGINT = 130
EXIT_SIGTERM = 143
#: `-o -` writes to standard output.
STDOUT = "-"

# C0/C1 controls (except tab) and the Unicode bidi overrides: they could drive a terminal or
# reorder what the reader sees, so text from input files never reaches a terminal raw.
# Lone surrogates are escaped too: they cannot be encoded for any terminal.
# Line and paragraph separators, the Arabic letter mark, zero-width and invisible format
# characters (U+180E, U+200B–U+200D, U+2060–U+2064, U+FEFF) break or hide text as well.
_UNSAFE = re.compile(
    r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e"
    r"\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff]"
)
# C1 controls and U+2028 / U+2029 in UTF-8 JSON output: valid JSON, but a terminal reading C1
# (U+009B is CSI) or a JavaScript consumer reading the separators would act on them raw.
_JSON_UNSAFE = re.compile(rb"\xc2[\x80-\x9f]|\xe2\x80[\xa8\xa9]")


def _json_escape(match: re.Match[bytes]) -> bytes:
    return b"\\u%04x" % ord(match.group(0).decode("utf-8"))


def _escape_char(match: re.Match[str]) -> str:
    ch = match.group(0)
    code = ord(ch)
    if ch == "\n":
        return "\\n"
    if ch == "\r":
        return "\\r"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def safe_text(value: Any) -> str:
    """Return text for a terminal: control characters from the input escaped."""
    text = value if isinstance(value, str) else str(value)
    return _UNSAFE.sub(_escape_char, text)


def _encode(value: Any, level: int) -> bytes:
    """One value as indented JSON bytes, its inner lines indented to sit at `level`."""
    try:
        data = orjson.dumps(value, option=orjson.OPT_INDENT_2, default=str)
    except (orjson.JSONEncodeError, TypeError):
        # Integers beyond 64 bits and lone surrogates from the input: orjson refuses them, the
        # standard library writes them exactly (surrogates as \u escapes).
        text = json.dumps(value, ensure_ascii=False, indent=2, default=str)
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            data = json.dumps(value, ensure_ascii=True, indent=2, default=str).encode("ascii")
    if b"\xc2" in data or b"\xe2\x80" in data:
        data = _JSON_UNSAFE.sub(_json_escape, data)
    return data.replace(b"\n", b"\n" + b"  " * level) if level else data


#: Elements of a flat `Streamed` array encoded by one orjson call (bounded, so still lazy).
_BATCH = 512
#: Elements of each flat `Streamed` array of a document written whole (fewer than _BATCH, so
#: the first batch of a longer one is still read only as it is written).
_SHORT = 128


def _encode_batch(batch: list[Any], level: int) -> bytes:
    """Elements as `_write` writes them one by one ("\\n" + indent + element, comma-joined),
    from one orjson call over the list: the per-element work of `_encode` done once."""
    try:
        data = orjson.dumps(batch, option=orjson.OPT_INDENT_2, default=str)
    except (orjson.JSONEncodeError, TypeError):
        inner = b"\n" + b"  " * (level + 1)
        return b",".join(inner + _encode(element, level + 1) for element in batch)
    if b"\xc2" in data or b"\xe2\x80" in data:
        data = _JSON_UNSAFE.sub(_json_escape, data)
    # orjson indents the list's elements by one step: `level` more steps put them in place.
    if level:
        data = data.replace(b"\n", b"\n" + b"  " * level)
    return data[1 : -(len(b"  " * level) + 2)]  # the list's own brackets (and the last indent)


def encoded_elements(elements: Iterable[Any], level: int) -> Iterator[bytes]:
    """The elements of a flat array at `level` as `_write` writes them, without its brackets:
    a batch of elements per orjson call, the batches comma-joined."""
    elements = iter(elements)
    separator = b""
    while batch := list(islice(elements, _BATCH)):
        yield separator + _encode_batch(batch, level)
        separator = b","


def _members(value: dict[str, Any], level: int) -> bytes:
    """An object's members as orjson writes them inside it at `level`, without its braces
    (each member begins with a newline and its indent); orjson's refusals are raised."""
    data = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    if b"\xc2" in data or b"\xe2\x80" in data:
        data = _JSON_UNSAFE.sub(_json_escape, data)
    data = data.replace(b"\n", b"\n" + b"  " * level)
    return data[1 : -(2 * level + 2)]


def encoded_item_rows(result: GateResult, level: int) -> Iterator[bytes]:
    """A gate's item rows (`report.item_rows`) as `encoded_elements` writes them at `level`,
    byte for byte, without making each row's dict.

    A row of a JSON Lines item is a template filled in: its index, id, call_id and line are
    written here, and the rest comes from pieces orjson wrote once for each distinct (type,
    name, role, status), verdict, and (pointer, envelope). So is the row of a converted item
    held as it was made (`_convert.Held`: a session's or a trace's), its pointer its own and
    its conversion one more piece, written once for each (pointer, envelope, conversion's
    source and marks). Any other row (a member that is not a string, a non-ASCII id, an
    element of a document's array) is made and encoded as before, in batches.
    """
    from inspector.core.formats._convert import Held
    from inspector.core.model import LazySource, stored_raw
    from inspector.core.report import item_row

    step = b"  " * (level + 2)
    template = b"".join(
        (
            b"\n" + b"  " * (level + 1) + b"{",
            b"\n" + step + b'"index": %d,',
            b"\n" + step + b'"type": %b,',
            b"\n" + step + b'"id": %b,',
            b"\n" + step + b'"call_id": %b%b%b,',
            b"\n" + step + b'"source": {',
            b"\n" + step + b'  "line": %d%b',
        )
    )
    dumps = orjson.dumps
    hot: dict[Any, tuple[bytes, bytes] | None] = {}
    told: dict[Any, bytes | None] = {}
    tails: dict[Any, bytes | None] = {}
    #: Each conversion's marks by identity (a source shares a few tuples of them), held so
    #: that no id is taken again by another tuple.
    marks: dict[int, Any] = {}
    envelope: Any = None
    tail: bytes | None = None
    pieces: list[bytes] = []
    slow: list[dict[str, Any]] = []
    #: The pieces of a whole block: _BATCH rows (and the empty piece before a later one's).
    full = _BATCH
    source: Any = None
    first, lines, pointer, pointers, held = 0, None, "", None, False
    for item, verdict in zip(result.transcript.items, result.verdicts, strict=True):
        raw = stored_raw(item)
        if raw is not source:
            source = raw
            found = raw.records() if isinstance(raw, LazySource) else None
            lines = pointers = envelope = None
            if found is not None:
                first, lines, pointer = found
            elif type(raw) is Held:
                first, lines, pointers = raw.first, raw.lines, raw.pointers
            #: Whether the source's items are converted ones (each with its conversion).
            held = pointers is not None
        row = None
        # One pass, left by `break` for the slow way at the first member it cannot write.
        while lines is not None:
            conversion = item.conversion
            index, item_id, call_id = item.index, item.id, item.call_id
            line = lines[index - first]
            if not line or (conversion is not None) is not held:
                break
            # ASCII ids (nearly all) need no look for characters the output escapes.
            if not (
                (item_id is None or (type(item_id) is str and item_id.isascii()))
                and (call_id is None or (type(call_id) is str and call_id.isascii()))
            ):
                break
            id_text = b"null" if item_id is None else dumps(item_id)
            call_text = b"null" if call_id is None else dumps(call_id)
            key = (item.type, item.name, item.role, item.status)
            try:
                pair = hot[key]
            except KeyError:
                pair = hot[key] = _hot_pieces(key, level)
            except TypeError:  # an object or array member cannot be a key
                break
            # By identity: a call's verdict is often its own (no KeyError raised for each).
            said = told.get(id(verdict), _UNTOLD)
            if said is _UNTOLD:
                said = told[id(verdict)] = _verdict_piece(verdict, told, level)
            if not held:
                if item.envelope is not envelope:
                    # The run's pointer and the item's envelope: the same for a run's items,
                    # nearly always, so looked up only when either changes.
                    envelope = item.envelope
                    placed = (pointer, envelope.name)
                    try:
                        tail = tails[placed]
                    except KeyError:
                        tail = tails[placed] = _tail_piece(pointer, envelope.name, level, None)
            else:
                assert pointers is not None and conversion is not None
                pointer = pointers[index - first]
                derived = conversion.derived
                kept = marks.get(id(derived))
                if kept is None and len(marks) < _BATCH:
                    kept = marks[id(derived)] = derived
                if kept is not derived:
                    break  # past the marks kept (each item's own tuple): the slow way
                tail_key = (pointer, item.envelope.name, conversion.source, id(derived))
                try:
                    tail = tails[tail_key]
                except KeyError:
                    tail = tails[tail_key] = _tail_piece(
                        pointer, item.envelope.name, level, conversion
                    )
            if pair is None or said is None or tail is None:
                break
            row = template % (index, pair[0], id_text, call_text, pair[1], said, line, tail)
            break
        if row is None:
            slow.append(item_row(item, verdict))
            if len(slow) < _BATCH:
                continue
            row = _encode_batch(slow, level)
            slow = []
        elif slow:
            pieces.append(_encode_batch(slow, level))
            slow = []
        pieces.append(row)
        if len(pieces) >= full:
            yield b",".join(pieces)
            # An empty first piece: the join writes the separator before the next block's
            # first row (`separator + block` copied each block of rows a second time).
            pieces, full = [b""], _BATCH + 1
    if slow:
        pieces.append(_encode_batch(slow, level))
    if len(pieces) > 1 or (pieces and pieces[0]):
        yield b",".join(pieces)


#: What `encoded_item_rows` holds for a verdict it has not written yet.
_UNTOLD: Any = object()


def _hot_pieces(key: tuple[Any, ...], level: int) -> tuple[bytes, bytes] | None:
    """A row's type, and its name, role and status members; None unless each is a string (the
    type) or a string or null (the rest) that orjson writes."""
    kind, *rest = key
    if type(kind) is not str or not all(v is None or type(v) is str for v in rest):
        return None
    name, role, status = rest
    try:
        members = _members({"name": name, "role": role, "status": status}, level + 1)
        kind_text = _members({"type": kind}, 0).split(b": ", 1)[1]
    except orjson.JSONEncodeError:
        return None
    return kind_text, b"," + members


def _verdict_piece(verdict: Any, told: dict[Any, bytes | None], level: int) -> bytes | None:
    """A row's verdict, detail and errors members (shared by equal verdicts without errors);
    None when orjson cannot write them."""
    errors = verdict.errors
    key = (verdict.verdict, verdict.detail)
    if not errors and key in told:
        return told[key]
    try:
        piece: bytes | None = b"," + _members(
            {
                "verdict": verdict.verdict.value,
                "detail": verdict.detail,
                "errors": [e.to_json() for e in errors],
            },
            level + 1,
        )
    except orjson.JSONEncodeError:
        piece = None
    if not errors:
        told[key] = piece
    return piece


def _tail_piece(pointer: str, envelope: str, level: int, conversion: Any = None) -> bytes | None:
    """What follows a row's line: its pointer, the source's end, its envelope (and what a
    converted item was converted from), the row's end."""
    last: dict[str, Any] = {"envelope": envelope}
    if conversion is not None:
        last["converted"] = conversion.to_json()
    try:
        source = _members({"line": 0, "pointer": pointer}, level + 2)
        after = _members(last, level + 1)
    except orjson.JSONEncodeError:
        return None
    indent = b"  " * (level + 2)
    return (
        source.split(b'"line": 0', 1)[1]
        + b"\n"
        + indent
        + b"},"
        + after
        + b"\n"
        + b"  " * (level + 1)
        + b"}"
    )


def _materialised(value: dict[Any, Any]) -> tuple[dict[Any, Any] | None, dict[Any, Any]]:
    """`value` with its flat `Streamed` arrays made lists, when each holds at most _SHORT
    elements (else None); and `value` to write part by part, the elements read put back."""
    from inspector.core.report import Streamed

    whole: dict[Any, Any] | None = {}
    parts: dict[Any, Any] = {}
    for key, item in value.items():
        listed = item
        if isinstance(item, Streamed):
            if item.nested or item.encoded is not None:
                whole = None
            else:
                elements = iter(item.elements)
                listed = list(islice(elements, _SHORT + 1))
                if len(listed) <= _SHORT:
                    item = Streamed(listed)
                else:
                    whole = None
                    item = Streamed(chain(listed, elements))
        if whole is not None:
            whole[key] = listed
        parts[key] = item
    return whole, parts


def _encode_whole(value: dict[Any, Any], level: int) -> bytes | None:
    """`value` as `_encode` writes it, from orjson alone; None where orjson refuses it (the
    standard library's fallback is then taken element by element, as `_write` does)."""
    if not all(type(key) is str for key in value):
        return None
    try:
        data = orjson.dumps(value, option=orjson.OPT_INDENT_2, default=str)
    except (orjson.JSONEncodeError, TypeError):
        return None
    if b"\xc2" in data or b"\xe2\x80" in data:
        data = _JSON_UNSAFE.sub(_json_escape, data)
    return data.replace(b"\n", b"\n" + b"  " * level) if level else data


class Encoded:
    """Elements of a nested `Streamed` array already encoded for their level, with the
    separators between them as the writer joins them: blocks of bytes, written as they come."""

    __slots__ = ("blocks",)

    def __init__(self, blocks: Iterable[bytes]) -> None:
        self.blocks = blocks


def write_element(value: Any, level: int, write: Callable[[bytes], Any]) -> None:
    """Write one value as `write_json` writes it at `level` of a document."""
    _write(value, level, write)


def _write(value: Any, level: int, write: Callable[[bytes], Any]) -> None:
    from inspector.core.report import Streamed

    inner = b"  " * (level + 1)
    if type(value) is Encoded:
        for block in value.blocks:
            write(block)
    elif isinstance(value, Streamed) and not value.nested:
        if value.encoded is None:
            parts: Iterable[Iterable[bytes]] = (encoded_elements(value.elements, level),)
        elif value.encoded == level:
            parts = value.elements
        else:
            raise ValueError(f"rows encoded for level {value.encoded}, written at {level}")
        opened = False
        if type(write) is _Sink and hasattr(parts, "send"):
            # Parts held in files (parallel.RowParts) are copied to the output in the kernel.
            held = cast("_FileParts", parts)
            for number, size in enumerate(held.sizes):
                if size:
                    write(b"," if opened else b"[")
                    opened = True
                    write.buffer.flush()
                    held.send(number, write.fd, write)
            write(b"\n" + b"  " * level + b"]" if opened else b"[]")
            return
        for part in parts:
            begun = False
            for block in part:
                if not block:
                    continue
                if not begun:
                    # Parts are joined as the elements within one are.
                    block = (b"," if opened else b"[") + block
                    begun = opened = True
                write(block)
        write(b"\n" + b"  " * level + b"]" if opened else b"[]")
    elif isinstance(value, Streamed):
        opened = False
        for element in value.elements:
            write((b",\n" if opened else b"[\n") + inner)
            opened = True
            _write(element, level + 1, write)
        write(b"\n" + b"  " * level + b"]" if opened else b"[]")
    elif type(value) is dict and any(isinstance(v, Streamed) for v in value.values()):
        whole, value = _materialised(value)
        encoded = _encode_whole(whole, level) if whole is not None else None
        if encoded is not None:
            # A document whose arrays are all short (one conversation of a trace): one orjson
            # call writes what its parts written one by one would.
            write(encoded)
            return
        for number, (key, item) in enumerate(value.items()):
            write((b",\n" if number else b"{\n") + inner + _encode(str(key), 0) + b": ")
            _write(item, level + 1, write)
        write(b"\n" + b"  " * level + b"}" if value else b"{}")
    else:
        write(_encode(value, level))


class _FileParts(Protocol):
    """Encoded parts held in files, each sent to a descriptor whole (`parallel.RowParts`)."""

    sizes: list[int]

    def send(self, number: int, fd: int | None, write: Callable[[bytes], Any]) -> None: ...


class _Sink:
    """Writes bytes to a binary stream; `fd`: its descriptor (None: it has none)."""

    __slots__ = ("buffer", "fd", "write")

    def __init__(self, buffer: Any) -> None:
        self.buffer, self.write = buffer, buffer.write
        try:
            self.fd: int | None = buffer.fileno()
        except (AttributeError, OSError, ValueError):
            self.fd = None

    def __call__(self, data: bytes) -> Any:
        return self.write(data)


def write_json(document: Any, out: TextIO) -> None:
    """Write one JSON document indented by two spaces; `Streamed` arrays are written lazily."""
    buffer = getattr(out, "buffer", None)
    if buffer is not None:
        out.flush()
        _write(document, 0, _Sink(buffer))
        buffer.write(b"\n")
        buffer.flush()
    else:
        _write(document, 0, lambda data: out.write(data.decode("utf-8")))
        out.write("\n")


class Style:
    """ANSI styling, active only when writing to a terminal."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, code: str) -> str:
        """Wrap text in an SGR code when enabled."""
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text

    @classmethod
    def for_stream(cls, out: TextIO) -> Style:
        """Enable colour only on a TTY."""
        isatty = getattr(out, "isatty", None)
        try:
            return cls(bool(isatty and isatty()))
        except (ValueError, OSError):
            return cls(False)


def stdin_twice(paths: Iterable[str | None]) -> str | None:
    """The usage error when standard input (`-`) is named more than once, else None."""
    if sum(1 for p in paths if p == STDOUT) > 1:
        return "standard input (-) can be read only once; name it for one file only"
    return None


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _stdin_stat() -> os.stat_result | None:
    try:
        return os.fstat(sys.stdin.fileno()) if sys.stdin is not None else None
    except (OSError, ValueError, AttributeError):
        return None


def check_output(path: str, inputs: Iterable[str]) -> None:
    """Refuse an `-o` that is not a new or regular file, or that is an input (UsageError).

    A FIFO, a device node, a socket or a symbolic link is never replaced by a regular file
    (`-o /dev/stdout` as root would replace the system's); `-o -` is standard output. The
    file standard input is reading (same device and inode) counts as an input.
    """
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        found = None
    except OSError as exc:
        raise UsageError(f"-o {path}: {exc.strerror or exc}") from None
    if found is not None:
        if stat.S_ISLNK(found.st_mode):
            what = "a symbolic link"
        elif not stat.S_ISREG(found.st_mode):
            what = _KINDS.get(stat.S_IFMT(found.st_mode), "not a regular file")
        else:
            what = None
        if what is not None:
            raise UsageError(
                f"-o {path} is {what}; -o writes only regular files (-o - writes to stdout)"
            )
    named = [p for p in inputs if p and p != STDOUT]
    if any(_same_file(path, p) for p in named):
        raise UsageError(f"-o {path} is an input file; it is never overwritten")
    if STDOUT in inputs and found is not None:
        stdin = _stdin_stat()
        if stdin is not None and (stdin.st_dev, stdin.st_ino) == (found.st_dev, found.st_ino):
            raise UsageError(f"-o {path} is the file standard input is reading; never overwritten")


_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}


def write_atomic(path: str, text: str) -> None:
    """Write text to path through a temporary file in the same folder and os.replace.

    The temporary file is removed on every way out: an error, Ctrl+C, SIGTERM (which the entry
    point turns into an exception).
    """
    import tempfile

    target = Path(path)
    folder = target.parent
    handle, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        # mkstemp creates the file private; a report is meant to be shared, as the umask allows.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def target_profile(text: str) -> Profile:
    """argparse type for --target: a profile by name, or a usage error listing them all.

    The profiles are imported only when a command is given a target.
    """
    import argparse

    from inspector.core.targets import UnknownTarget, get_profile

    try:
        return get_profile(text.strip())
    except UnknownTarget as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
