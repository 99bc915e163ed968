"""Codex CLI rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).

Each line is `{timestamp, type, payload}`. `response_item` payloads are Responses-API items, and
they are the transcript, as they are: no envelope to convert. The other lines say things about
the session (`session_meta`, `turn_context`) or repeat it for the terminal (`event_msg` echoes
user and agent messages and tool runs); they add no items, so nothing is counted twice. A
`compacted` line carries the replacement history Codex sent from then on: items already in the
file, noted and not added again. Only `type` and `payload` are relied upon: session metadata
changed across versions (`instructions` became `base_instructions`, `model_provider` and `source`
appeared later). The metadata of Codex Desktop sessions (0.128) lists the app's own tools with
their JSON Schemas (`dynamic_tools`): those are the transcript's tools. Codex-only item types
(`custom_tool_call`, `local_shell_call`, `ghost_snapshot`, `web_search_call` …) stay as they
are; the gate calls them vendor items.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import msgspec
import orjson
from msgspec import Struct

from inspector.core.formats import _lean
from inspector.core.formats._records import CERTAIN, Builder, Detection, Record
from inspector.core.formats._sessions import (
    Corrupt,
    Line,
    builder,
    conversation_group,
    corrupt_notes,
    first_record,
    iter_lines,
    new_line,
    snapshot,
)
from inspector.core.formats.spec import FormatSpec
from inspector.core.model import (
    Conversion,
    Derivation,
    Envelope,
    Group,
    Item,
    Note,
    Origin,
    Severity,
    Transcript,
    join_pointer,
)

KINDS = {"codex_line": "codex"}
LABEL = "Codex CLI rollout"
#: Line types of a rollout file (codex-rs protocol `RolloutItem`).
LINE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})

#: A value a publisher put in place of what was there (`[REDACTED_ARGUMENTS len=46 sha=…]`,
#: `<redacted>`): it does not parse, and the reason is not the model's.
_REDACTED = re.compile(r"\s*[\[<(]\s*redacted[^\]>)]*[\]>)]\s*", re.IGNORECASE)


def detect(obj: Any) -> Detection | None:
    """Score a parsed value as one rollout line, or None."""
    if isinstance(obj, dict) and type(obj.get("type")) is str and "payload" in obj:
        if obj["type"] not in LINE_TYPES:
            return None
        return CERTAIN, "codex_line"
    return None


def matches(data: bytes, first: Any) -> bool:
    """Whether a file (its bytes, its first record) is a rollout."""
    return detect(first) is not None


def load(b: Builder, record: Record, kind: str) -> None:
    """Add one rollout line met among other records: its item, if it carries one."""
    if not b.groups or b.groups[-1].kind != "codex_session":
        conversation_group(b, "codex_session", Line(record.line, record.base, record.obj))
    # A line on its own: whether a later output answers its call is not known here.
    _add_line(b, Line(record.line, record.base, record.obj), len(b.groups) - 1, set())


def redacted(value: Any) -> bool:
    """Whether a value is a publisher's redaction marker rather than what was recorded."""
    return isinstance(value, str) and _REDACTED.fullmatch(value) is not None


#: Item types that answer a call, and the call types they answer (by `call_id`).
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
_STATUS_RAN = Derivation(
    "status",
    "derived",
    "Codex does not record a call's status; its output later in the rollout shows it ran",
)
_ARGUMENTS_REDACTED = Derivation(
    "arguments",
    "redacted",
    "the publisher replaced the arguments with a marker; the model's text is not in the file, "
    "so they cannot parse",
)


def _item(payload: dict[str, Any], ran: bool) -> tuple[Any, Conversion | None]:
    """A `response_item` payload as an item (`ran`: an output later in the rollout answers it).

    A function_call that an output answers ran to completion: its status, which Codex never
    writes, is derived (and marked) so the gate judges its arguments, as for a call in a
    request's history.
    """
    raw: Any = payload
    marks: list[Derivation] = []
    if payload.get("type") == "function_call":
        if ran and "status" not in payload:
            raw = {**payload, "status": "completed"}
            marks.append(_STATUS_RAN)
        if redacted(payload.get("arguments")):
            marks.append(_ARGUMENTS_REDACTED)
    return raw, Conversion("codex", payload, tuple(marks), LABEL) if marks else None


def answered_call(call: Item) -> Item:
    """A call that waited for its output (no status, none answered it), now answered: what
    `_item` makes of its payload once it ran, its other members as they were."""
    payload = call.raw
    derived = () if call.conversion is None else call.conversion.derived
    conversion = Conversion("codex", payload, (_STATUS_RAN, *derived), LABEL)
    return call.with_status({**payload, "status": "completed"}, conversion)


def _call_id(payload: dict[str, Any]) -> str | None:
    call_id = payload.get("call_id")
    return call_id if isinstance(call_id, str) else None


def _add_line(b: Builder, line: Line, group: int, answered: set[str]) -> str | None:
    """Add a line's item (a `response_item`); return a note's text for a `compacted` line."""
    obj = line.obj
    kind, payload = obj.get("type"), obj.get("payload")
    if kind == "response_item" and isinstance(payload, dict):
        raw, conversion = _item(payload, _call_id(payload) in answered)
        origin = Origin(b.path, line.number, line.base + "/payload")
        b.add_item(raw, origin, group, conversion=conversion)
    elif kind == "session_meta" and isinstance(payload, dict):
        _add_tools(b, line, payload.get("dynamic_tools"))
    elif kind == "compacted" and isinstance(payload, dict):
        history = payload.get("replacement_history")
        count = len(history) if isinstance(history, list) else 0
        return (
            f"{b.path or '<input>'}:{line.number}: Codex compacted the history here; its "
            f"replacement history ({count} items) repeats items already read and is not "
            "counted again"
        )
    return None


def _add_tools(b: Builder, line: Line, tools: Any) -> None:
    """Take the tools a session's metadata defines (`dynamic_tools`: name, description,
    `inputSchema`), each named as a call names it."""
    for i, tool in enumerate(tools if isinstance(tools, list) else ()):
        if isinstance(tool, dict) and isinstance(tool.get("name"), str):
            pointer = join_pointer(line.base, "payload", "dynamic_tools", i, "inputSchema")
            b.add_tool(tool["name"], tool.get("inputSchema"), pointer, line.number)


def _session_id(obj: dict[str, Any]) -> str | None:
    """The session's id, if the line is the `session_meta` that says it."""
    if obj.get("type") == "session_meta":
        payload = obj.get("payload")
        meta = payload.get("meta", payload) if isinstance(payload, dict) else None
        if isinstance(meta, dict) and isinstance(meta.get("id"), str):
            return str(meta["id"])
    return None


#: Line types that add no item: their lines need not be parsed (about half of a rollout).
_UNREAD = (b'"type":"event_msg"', b'"type":"turn_context"')


#: How Codex writes a line's start: its timestamp and type, its payload next. Told in one
#: match: about half a rollout's lines are passed over by their type alone.
_LINE_START = re.compile(rb'\{"timestamp":"[0-9A-Za-z:.+-]{1,40}","type":"([a-z_]{1,40})",')
_UNREAD_TYPES = frozenset({b"event_msg", b"turn_context"})
_PAYLOAD_KEY = b'"payload":'


def repeats(raw: bytes) -> bool:
    """Whether a line is an `event_msg` or `turn_context` one, by its bytes: its top-level type
    comes before its payload, and the line ends whole (a line cut short is still parsed, so
    it is reported as corrupt)."""
    start = _LINE_START.match(raw)
    if start is not None and raw.startswith(_PAYLOAD_KEY, start.end()):
        return start[1] in _UNREAD_TYPES and raw.rstrip().endswith(b"}")
    head = raw[:160]
    payload = head.find(b'"payload"')
    for marker in _UNREAD:
        at = head.find(marker)
        if at >= 0 and (payload < 0 or at < payload):
            return raw.rstrip().endswith(b"}")
    return False


class _Envelope(msgspec.Struct, gc=False):
    """A rollout line's type, and its payload left as the file's bytes."""

    type: Any = None
    payload: msgspec.Raw = msgspec.Raw()


#: What msgspec raises for bytes it will not read (the line is then parsed, as before).
_REFUSED = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)
_ENVELOPE = msgspec.json.Decoder(_Envelope)
_PAYLOAD = msgspec.json.Decoder(_lean._Hot)


class _LeanItem(Struct, frozen=True):
    """A `response_item` line whose payload is an item read lean: its hot members, and where
    its JSON lies in the file's bytes."""

    hot: _lean._Hot
    start: int
    end: int


#: How a rollout's function_call payload begins (parsed whole, as any other line may be).
_CALL_START = b'{"type":"function_call",'


class _LeanLines:
    """Reads a rollout's `response_item` lines lean (see `_lean`): the payload is already an
    Open Responses item, so the item keeps where its JSON lies and parses it when asked.

    A function_call is parsed whole (its status may be derived from a later output, which
    makes a value of its own), and so is any line the plain way could read differently (see
    `_lean.Risks`, `_lean.depth_safe`).
    """

    def __init__(self, data: bytes, path: str | None, risks: _lean.Risks) -> None:
        self.data = data
        self.deep = risks.deep
        self.reader = _lean.Reader(data, path, risks, locate=False)
        self.run: _lean.JsonRun | None = None

    def __call__(self, raw: bytes, start: int, number: int) -> Line | None:
        """The line as a Line holding a `_LeanItem`, or None to parse it (a line `take` left:
        as Codex writes them, lines are read there)."""
        if b'"response_item"' not in raw[:200]:
            return None
        try:
            line = _ENVELOPE.decode(raw)
        except _REFUSED:
            return None
        payload = memoryview(line.payload)
        size = payload.nbytes
        if line.type != "response_item":
            return None
        if payload[: len(_CALL_START)] == _CALL_START:
            return None  # a function_call, as rollouts write one: parsed, told before reading
        hot = self._hot(payload, raw)
        if hot is None:
            return None
        at = raw.find(payload)
        return new_line(Line, (number, "", _LeanItem(hot, start + at, start + at + size)))

    def _hot(self, payload: memoryview, raw: bytes) -> _lean._Hot | None:
        """The hot members of a line's payload when its item may be read lean (an object of
        a type other than function_call, not too large, nested no deeper than is safe: see
        `_lean.depth_safe`, given the line `raw` when the file needs it), else None."""
        if payload.nbytes > _lean.LEAN_ITEM_LIMIT or payload[:1] != b"{":
            return None
        if self.deep and not _lean.depth_safe(raw):
            return None
        try:
            hot = _PAYLOAD.decode(payload)
        except _REFUSED:
            return None
        if type(hot.type) is not str or hot.type == "function_call":
            return None
        return hot

    def add(self, b: Builder, number: int | None, lean: _LeanItem, group: int) -> None:
        """Append the line's lean item."""
        self._append(b, number or 0, lean.hot, lean.start, lean.end, group)

    def take(
        self, reader: Reader, position: int, size: int, number: int, check: Any
    ) -> tuple[int, int]:
        """Take the lines from `position` (line `number`) on as `Reader.add` takes them from
        `iter_lines`, while they are lines as Codex writes them that are passed over
        (`repeats`) or read lean: the bulk of a rollout, in one loop. Stops at the first
        other line (a call, metadata, anything odd: read the usual way), and returns where it
        starts and its number; `check` as `iter_lines` calls it."""
        data, b = self.data, reader._b
        group = reader._group
        if group is None:
            return position, number  # the conversation's group comes with its first line
        find, match, view = data.find, _LINE_START.match, memoryview(data)
        loads, JSONDecodeError = orjson.loads, orjson.JSONDecodeError
        lean_hot, deep, unread = self._hot, self.deep, _UNREAD_TYPES
        answered, waiting, outputs = reader._answered, reader._waiting, _OUTPUTS
        key, call = _PAYLOAD_KEY + b"{", _CALL_START[1:]
        while position < size:
            end = find(b"\n", position, size)
            if end < 0:
                end = size
            if check is not None and not number & 4095:
                check(min(end + 1, size))  # as `iter_lines` does, before the line is read
            head = match(data, position, end)
            if head is None or not data.startswith(key, at := head.end(), end):
                break
            if head[1] in unread:
                if not data.endswith(b"}", position, end):
                    break
            elif head[1] != b"response_item" or not data.endswith(b"}}", position, end):
                break
            else:
                at += len(key)
                if data.startswith(call, at, end):
                    # A call, parsed whole (see the class): as `iter_lines` parses it.
                    try:
                        obj = loads(view[position:end])
                    except JSONDecodeError:
                        break
                    reader._take(new_line(Line, (number, "", obj)))
                    number, position = number + 1, end + 1
                    continue
                # The line itself only when its nesting must be checked (a copy of it).
                hot = lean_hot(view[at - 1 : end - 1], data[position:end] if deep else b"")
                if hot is None:
                    break
                if hot.type in outputs and type(hot.call_id) is str:
                    answered.add(hot.call_id)
                    for index in waiting.pop(hot.call_id, ()):
                        reader._answer(index)
                self._append(b, number, hot, at - 1, end - 1, group)
            number, position = number + 1, end + 1
        return position, number

    def _append(
        self, b: Builder, number: int, hot: _lean._Hot, start: int, end: int, group: int
    ) -> None:
        """Append a lean item whose JSON is `data[start:end]`, on line `number`."""
        items = b.items
        run = self.run
        if run is None or run.first + len(run.starts) != len(items):
            run = self.run = _lean.JsonRun(self.data, b.path, len(items), "/payload", None)
        run.starts.append(start)
        run.ends.append(end)
        run.lines.append(number)
        self.reader.item(items, hot, run, group, Envelope.OPEN_RESPONSES, b"")


class Reader:
    """A rollout's conversation, built line by line as the lines are read.

    Each line's item is made once, when the line arrives: a followed file's new lines add to
    the conversation without converting the earlier ones again. The one item that changes is a
    function_call whose output arrives later: its status is then derived (see `_item`), and
    that item alone is made again.
    """

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._b = builder(path)
        self._group: int | None = None
        self._notes: list[Note] = []
        self._corrupt: list[Corrupt] = []
        self._session: str | None = None
        #: Call ids an output answers, and the items of calls no output has answered yet.
        self._answered: set[str] = set()
        self._waiting: dict[str, list[int]] = {}
        #: Reads the lines of a whole file lean (`read_file`); None: every line is parsed.
        self._lean: _LeanLines | None = None

    #: Lines that need not be parsed at all (`repeats`).
    skip = staticmethod(repeats)

    def add(self, lines: Iterable[Line], corrupt: Sequence[Corrupt] = ()) -> None:
        """Take the next lines of the rollout (and the broken lines among them, read once the
        lines were)."""
        take = self._take
        for line in lines:
            take(line)
        self._corrupt += corrupt  # after the lines: they may be read as they are parsed

    def _take(self, line: Line) -> None:
        """Take one line of the rollout."""
        b, answered, waiting = self._b, self._answered, self._waiting
        if self._group is None:
            self._group = conversation_group(b, "codex_session", line)
        obj = line.obj
        if type(obj) is _LeanItem:
            hot = obj.hot
            if type(hot.call_id) is str and hot.type in _OUTPUTS:
                answered.add(hot.call_id)
                for index in waiting.pop(hot.call_id, ()):
                    self._answer(index)
            assert self._lean is not None
            self._lean.add(b, line.number, obj, self._group)
            return
        if self._session is None:
            self._session = _session_id(obj)
        payload = obj.get("payload")
        if obj.get("type") != "response_item" or not isinstance(payload, dict):
            said = _add_line(b, line, self._group, answered)
            if said is not None:
                self._notes.append(Note("compacted_history", Severity.INFO, said))
            return
        call_id = _call_id(payload)
        kind = payload.get("type")
        if call_id is not None and kind in _OUTPUTS:
            answered.add(call_id)
            for index in waiting.pop(call_id, ()):
                self._answer(index)
        elif (
            call_id is not None
            and kind == "function_call"
            and call_id not in answered
            and "status" not in payload
        ):
            waiting.setdefault(call_id, []).append(len(b.items))
        _add_line(b, line, self._group, answered)

    def read_file(
        self,
        data: bytes,
        check: Callable[[int], None] | None = None,
        *,
        begin: int = 0,
        stop: int | None = None,
        number: int = 1,
    ) -> None:
        """Take every line of a whole rollout file, the items of most lines read lean (`begin`,
        `stop`, `number`: only the lines of `data[begin:stop]`, the first numbered so)."""
        # A share's own bytes are scanned: what its lines hold decides how they are read.
        risks = _lean.Risks(data, begin, stop)
        self._lean = _LeanLines(data, self.path, risks) if risks.lean else None
        corrupt: list[Corrupt] = []
        lean = self._lean
        if lean is None:
            lines = iter_lines(
                data, self.path, corrupt, number, check, repeats, begin=begin, stop=stop
            )
            self.add(lines, corrupt)
            return
        size = len(data) if stop is None else stop
        position = begin
        while position <= size:
            position, number = lean.take(self, position, size, number, check)
            if position > size or (position == size and position > begin):
                break
            # The line the loop left, the usual way.
            end = data.find(b"\n", position, size)
            end = size if end < 0 else end
            self.add(
                iter_lines(
                    data, self.path, corrupt, number, check, repeats, lean, begin=position, stop=end
                )
            )
            position, number = end + 1, number + 1
        self._corrupt += corrupt

    def _answer(self, index: int) -> None:
        """Make again the item of a call an output now answers (its status is now known)."""
        self._b.items[index] = answered_call(self._b.items[index])

    def transcripts(self, *, final: bool = False) -> list[Transcript]:
        """The rollout as one transcript, as it stands (a rollout is one conversation)."""
        b = self._b
        if self._group is None:
            b = builder(self.path)  # no line yet: an empty conversation, the reader unchanged
            conversation_group(b, "codex_session", None)
        notes = [*self._notes, *corrupt_notes(self.path, self._corrupt)]
        return [snapshot(b, "codex", self._session, notes)]


def conversations(
    lines: Sequence[Line], corrupt: Sequence[Corrupt], path: str | None
) -> list[Transcript]:
    """The rollout as one transcript (a rollout is one conversation)."""
    reader = Reader(path)
    reader.add(lines, corrupt)
    return reader.transcripts(final=True)


def load_file(
    data: bytes,
    path: str | None,
    source: Path | None = None,
    check: Callable[[int], None] | None = None,
) -> list[Transcript]:
    """The rollout file's conversation (`source`, the file's own path, is not needed)."""
    reader = Reader(path)
    reader.read_file(data, check)
    return reader.transcripts(final=True)


# --------------------------------------------------------------------------------------------
# Shares: a large rollout's lines converted by several processes (`core.session_gate`)


class Share(Struct, frozen=True):
    """A run of a rollout's lines converted on its own (`convert_share`)."""

    #: Its items, as the conversation's, numbered from 0 (None: its items were left where they
    #: were converted).
    transcript: Transcript | None
    #: The conversation's group, as the share's first line opened it (None: no line).
    group: Group | None
    corrupt: tuple[Corrupt, ...]
    #: The first session id its lines name, and its notes (compacted histories), in order.
    session: str | None
    notes: tuple[Note, ...]
    #: The call ids of its calls no output of its own answers (their status is derived from
    #: an output elsewhere), and of its outputs.
    waiting: frozenset[str]
    answered: frozenset[str]


#: How far past a share's even cut its end is looked for at a turn's start.
_TURN_REACH = 1 << 22
#: A turn's first line (its context is written before the model is asked), by its bytes.
_TURN_START = b'"type":"turn_context"'


def cut_at(data: bytes, at: int) -> int:
    """Where a share that would end at `at` (a line start) ends: the start of the next turn's
    context line, whose calls before it have all been answered, when one is near."""
    found = data.find(_TURN_START, at, at + _TURN_REACH)
    if found < 0:
        return at
    return max(data.rfind(b"\n", at, found) + 1, at)


def can_share(data: bytes, source: Path | None) -> bool:
    """Whether a rollout may be converted in shares (a rollout is one conversation): not when
    its first line, its session's metadata, defines tools (Codex Desktop's `dynamic_tools`),
    which every share's calls are judged by (`source`, the file's path, is not needed)."""
    first = first_record(data)
    if not isinstance(first, dict) or first.get("type") != "session_meta":
        return True
    payload = first.get("payload")
    return not (isinstance(payload, dict) and payload.get("dynamic_tools"))


def convert_share(data: bytes, start: int, stop: int, path: str | None) -> Share | None:
    """Convert the lines of a rollout from `start` to `stop` (line starts) as the whole file's
    load converts them, or None when they cannot be converted on their own: they define tools
    (`dynamic_tools`, which every share's calls are judged by)."""
    reader = Reader(path)
    reader.read_file(data, begin=start, stop=stop, number=data.count(b"\n", 0, start) + 1)
    b = reader._b
    if b.tools:
        return None
    corrupt = tuple(reader._corrupt)
    if reader._group is None:
        return Share(None, None, corrupt, None, (), frozenset(), frozenset())
    items = tuple(b.items)
    transcript = Transcript(path, "codex", items, tuple(b.groups))
    return Share(
        transcript,
        b.groups[0],
        corrupt,
        reader._session,
        tuple(reader._notes),
        frozenset(reader._waiting),
        frozenset(reader._answered),
    )


def joined(path: str | None, shares: Sequence[Share]) -> Transcript | None:
    """The rollout's conversation from its shares, without its items (the shares hold them);
    None when no share holds a line, or a call's status depends on an output in another share
    (loading the whole file then says what it is)."""
    group = next((s.group for s in shares if s.group is not None), None)
    if group is None:
        return None
    answered = [s.answered for s in shares]
    for number, share in enumerate(shares):
        if any(share.waiting & other for k, other in enumerate(answered) if k != number):
            return None
    notes = [note for s in shares for note in s.notes]
    notes += corrupt_notes(path, [c for s in shares for c in s.corrupt])
    if notes:
        group = dataclasses.replace(group, notes=(*group.notes, *notes))
    session = next((s.session for s in shares if s.session is not None), None)
    return Transcript(path, "codex", (), (group,), conversation=session)


FORMAT = FormatSpec(
    name="codex",
    label=LABEL,
    kinds=KINDS,
    detect=detect,
    load=load,
    accepts="a Codex CLI rollout (session file)",
)
