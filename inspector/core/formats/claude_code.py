"""Claude Code session files (`~/.claude/projects/<project>/<session>.jsonl`).

Records are `user` / `assistant` (with `message` holding Anthropic content blocks), and
`summary`, `system`, `progress`, `file-history-snapshot`, `queue-operation` and types added by
later versions, which hold no turns. One API response is written as one record per content
block, all sharing `message.id`: they are merged back into one turn. `tool_use.input` is an
object (the model's argument bytes are not in the file), so every call's `arguments` is
serialised and marked so. Records on a sidechain (`isSidechain`: a subagent's run, inline in
1.0.x files, in `agent-*.jsonl` or `<session>/subagents/agent-*.jsonl` later) are conversations
of their own, linked to the Task call that spawned them. `progress` records repeat a subagent's
messages while it runs: never counted. The web export (`{"loglines": [...]}`) holds the same
records in one JSON document.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson
from msgspec import Struct, field

from inspector.core.formats import anthropic
from inspector.core.formats._convert import (
    ABSENT,
    COMPLETED,
    HISTORY_STATUS,
    PARTS_CONVERTED,
    Api,
    Converter,
    conversion_of,
    empty_text,
    held,
    prefixed,
    serialise,
)
from inspector.core.formats._records import Builder, Detection, Record
from inspector.core.formats._sessions import (
    Corrupt,
    Line,
    builder,
    conversation_group,
    corrupt_notes,
    finish_lossy,
    first_record,
    iter_lines,
    parse_lines,
    read_line,
    several_note,
    snapshot,
)
from inspector.core.formats.spec import FormatSpec
from inspector.core.jsonio import read_bytes
from inspector.core.model import (
    Derivation,
    Group,
    LoadError,
    Note,
    Severity,
    Transcript,
)

KINDS = {"claude_code_record": "claude_code"}
LABEL = "Claude Code session"
#: Its records hold Anthropic content blocks: they convert, and are reported, as Anthropic's.
API = Api(anthropic.ENVELOPE, "anthropic", anthropic.STOP_REASONS, "stop_reason")

#: Record types that carry a conversation turn in `message`.
TURN_TYPES = frozenset({"user", "assistant"})
#: Record types Claude Code writes besides turns (others appear with new versions).
OTHER_TYPES = frozenset(
    {"summary", "system", "progress", "file-history-snapshot", "queue-operation", "attachment"}
)
#: Fields only Claude Code writes on a record.
_MARKS = frozenset({"uuid", "parentUuid", "sessionId", "isSidechain", "leafUuid", "userType"})
#: Tools that start a subagent (renamed from Task to Agent in later versions).
_SPAWNERS = frozenset({"Task", "Agent"})
#: The mark of every call: Claude Code keeps `input` as a parsed object.
LOSSY = Derivation(
    "arguments",
    "serialised",
    "Claude Code stores tool_use.input as an object; the model's exact argument text is not "
    "in the file, so this is a serialisation of it",
)
MAIN = "main"


def detect(obj: Any) -> Detection | None:
    """Score a parsed value as one Claude Code record, or None."""
    if not isinstance(obj, dict) or not _MARKS & obj.keys():
        return None
    kind = obj.get("type")
    if type(kind) is not str:
        return None
    if kind in TURN_TYPES and isinstance(obj.get("message"), dict):
        return 90, "claude_code_record"
    if kind in OTHER_TYPES:
        return 90, "claude_code_record"
    return None


def matches(data: bytes, first: Any) -> bool:
    """Whether a file (its bytes, its first record) is a Claude Code session or web export."""
    if first is None:
        # A pretty-printed document: the web export names its records first.
        return data.lstrip()[:1] == b"{" and b'"loglines"' in data[:1024]
    if isinstance(first, dict) and isinstance(first.get("loglines"), list):
        return True
    if (
        isinstance(first, dict)
        and type(first.get("type")) is str
        and first["type"] in (OTHER_TYPES | TURN_TYPES)
    ):
        # A file may open with a summary or snapshot record that has none of the marks.
        return detect(first) is not None or "messageId" in first or "summary" in first
    return False


def load(b: Builder, record: Record, kind: str) -> None:
    """Add one Claude Code record met among other records, as a turn of its own."""
    obj = record.obj
    if obj.get("type") not in TURN_TYPES:
        return
    line = Line(record.line, record.base, obj)
    if not b.groups or b.groups[-1].kind != "claude_code_session":
        conversation_group(b, "claude_code_session", line, envelope=API.envelope)
    conv = Converter(
        b, Record(obj, record.line, record.base), len(b.groups) - 1, API, ABSENT, hold=True
    )
    _turn(conv, [line])
    finish_lossy(conv, LOSSY, SOURCE)


# --------------------------------------------------------------------------------------------
# Turns

#: The format its converted items name as their source (their envelope is Anthropic's).
SOURCE = ("claude_code", LABEL)


def _turn(conv: Converter, run: Sequence[Line]) -> None:
    """Convert one turn: a user record, or the records of one assistant response."""
    if _plain_turn(conv, run):
        return
    first = run[0]
    role = first.obj["message"].get("role") or first.obj.get("type")
    conv.begin(role, first.base + "/message", first.obj, first.number)
    for line in run:
        content = line.obj["message"].get("content")
        anthropic.convert_content(conv, role, content, line.base + "/message/content", line.number)
    conv.end()


#: What a call of a Claude Code turn is marked with: its arguments serialised, and finished (a
#: session's calls are history, sent back to the model), as `finish_lossy` and
#: `Converter.finish` mark them.
_CALL_MARKS = (LOSSY, HISTORY_STATUS)
_TEXT_MARKS = (PARTS_CONVERTED,)
_OUTPUT_MARKS = (anthropic.OUTPUT_PARTS,)


def _plain_turn(conv: Converter, run: Sequence[Line]) -> bool:
    """Convert a turn of the blocks nearly every record holds (text, tool_use and tool_result
    blocks whose ids are there: nothing to synthesise or pair) straight into items, as
    `anthropic.convert_content` and `finish_lossy` convert them (text parts gather into a
    message until a call or result splits them; every call is history); False, and nothing
    done, for any other turn.

    The bulk of a large session: the converter's general rules (ids to synthesise or pair,
    stop reasons, blocks of other kinds) cost more than the items themselves. The turn is read
    once: what it changes in the builder waits until every block was found plain.
    """
    first = run[0]
    native = first.obj
    role = native["message"].get("role") or native.get("type")
    # A JSON Lines record's pointer is one string for all (a web export's, its own).
    at = first.base + "/message" if first.base else "/message"
    at_line = first.number if first.number is not None else conv.record.line
    text_type = "output_text" if role == "assistant" else "input_text"
    # (raw, line, pointer, native, marks, hot members) of each item, in order; text parts
    # gather in `parts`.
    made: list[tuple[Any, ...]] = []
    parts: list[Any] = []
    calls: list[tuple[Any, str]] = []
    for line in run:
        content = line.obj["message"].get("content")
        if type(content) is str:
            if parts:
                _gathered(made, parts, role, at_line, at, native)
            raw = {"type": "message", "role": role, "content": content}
            made.append((raw, at_line, at, native, (), ("message", None, None, None, role, None)))
            continue
        if type(content) is not list:
            return False
        where = line.number if line.number is not None else at_line
        base = line.base
        for j, block in enumerate(content):
            if type(block) is not dict:
                return False
            kind = block.get("type")
            if kind == "text":
                part = {"type": text_type, "text": block.get("text")}
                if len(block) != 2 or "text" not in block:
                    part.update(prefixed(block, anthropic.TEXT_KEYS, anthropic.SLUG))
                parts.append(part)
                continue
            if kind == "tool_use":
                call_id = block.get("id")
                if type(call_id) is not str or not call_id or "input" not in block:
                    return False
                if parts:
                    _gathered(made, parts, role, at_line, at, native)
                name, given = block.get("name"), block["input"]
                calls.append((name, call_id))
                arguments = given if type(given) is str else (serialise(given) or given)
                raw = {
                    "type": "function_call",
                    "status": COMPLETED,
                    "call_id": call_id,
                    "name": name,
                    "arguments": arguments,
                }
                if len(block) != 4 or "name" not in block:
                    raw.update(prefixed(block, anthropic.CALL_KEYS, anthropic.SLUG))
                hot: tuple[Any, ...] = ("function_call", None, call_id, name, None, COMPLETED)
                made.append((raw, where, _block_pointer(base, j), block, _CALL_MARKS, hot))
            elif kind == "tool_result":
                call_id = block.get("tool_use_id")
                if type(call_id) is not str or not call_id:
                    return False
                if parts:
                    _gathered(made, parts, role, at_line, at, native)
                output = block.get("content")
                marks: tuple[Derivation, ...] = ()
                if type(output) is list:
                    output = [anthropic.as_part("user", p) for p in output]
                    marks = _OUTPUT_MARKS
                raw = {"type": "function_call_output", "call_id": call_id, "output": output}
                if len(block) != 3 or "content" not in block:
                    raw.update(prefixed(block, anthropic.RESULT_KEYS, anthropic.SLUG))
                hot = ("function_call_output", None, call_id, None, None, None)
                made.append((raw, where, _block_pointer(base, j), block, marks, hot))
            else:
                return False
    if parts:
        _gathered(made, parts, role, at_line, at, native)
    if conv.pending:
        finish_lossy(conv, LOSSY, SOURCE)  # earlier turns first: the items keep file order
    b = conv.b
    turn = (conv.group, at)
    unanswered, answered = b.unanswered, b.answered
    for name, call_id in calls:
        if type(name) is str:
            unanswered.setdefault(name, []).append((call_id, turn))
    items, group, envelope = b.items, conv.group, API.envelope
    into = conv.held
    if into is None or into.first + len(into.values) != len(items):
        into = conv.held = held(b)
    put = into.add
    source, label = SOURCE
    for raw, line_number, pointer, block, marks, hot in made:
        if hot[0] == "function_call_output":
            answered.add(hot[2])
        put(
            items,
            raw,
            line_number,
            pointer,
            group,
            envelope,
            conversion_of(source, block, marks, label),
            hot,
        )
    return True


#: The pointers of a JSON Lines record's first content blocks (nearly every record's).
_BLOCK_POINTERS = [f"/message/content/{j}" for j in range(16)]


def _block_pointer(base: str, j: int) -> str:
    """The JSON Pointer of content block `j` of the record at `base`."""
    if not base and j < 16:
        return _BLOCK_POINTERS[j]
    return f"{base}/message/content/{j}"


def _gathered(
    made: list[Any], parts: list[Any], role: Any, line: int | None, at: str, native: Any
) -> None:
    """The message of the text parts gathered so far (none when they are all empty)."""
    kept = [p for p in parts if not empty_text(p)]
    if kept:
        raw = {"type": "message", "role": role, "content": kept}
        hot = ("message", None, None, None, role, None)
        made.append((raw, line, at, native, _TEXT_MARKS, hot))
    parts.clear()


# --------------------------------------------------------------------------------------------
# Conversations


class _Mark(Struct, frozen=True):
    """A builder's state before a response that may still grow was converted (to go back to)."""

    items: int
    synthesised: int
    answered: set[str]
    unanswered: dict[str, list[tuple[str, Any]]]

    @classmethod
    def of(cls, b: Builder) -> _Mark:
        """The builder's state now (copies of what converting goes on to change)."""
        return cls(
            len(b.items),
            b.synthesised,
            set(b.answered),
            {name: list(calls) for name, calls in b.unanswered.items()},
        )

    def restore(self, b: Builder) -> None:
        """Put the builder back as it was."""
        del b.items[self.items :]
        b.synthesised = self.synthesised
        b.answered = self.answered
        b.unanswered = self.unanswered


class _Live:
    """One conversation being read: its items so far and the records of its last turn."""

    # A plain slotted class: two of its members change with every record, and setting a
    # Struct's member costs several times a slot's.
    __slots__ = ("agent", "b", "conv", "key", "mark", "prompt", "prompted", "run", "run_key")

    def __init__(self, key: str, b: Builder, conv: Converter) -> None:
        self.key = key
        self.b = b
        self.conv = conv
        #: The subagent's id (`agentId`), when its records say it.
        self.agent: str | None = None
        #: The text its first user record opens with (a subagent's prompt), once that is read.
        self.prompt: str | None = None
        self.prompted = False
        #: The last turn's records (one response may be written as several), not yet
        #: converted for good: another record of the same response may follow.
        self.run: list[Line] = []
        self.run_key: Any = None
        #: Where to go back to when the last turn was converted for a snapshot and grows.
        self.mark: _Mark | None = None


class _Spawn(Struct):
    call_id: str
    name: str
    line: int | None
    conversation: str


def _is_turn(obj: dict[str, Any]) -> bool:
    return obj.get("type") in ("user", "assistant") and isinstance(obj.get("message"), dict)


def _prompt_of(obj: dict[str, Any]) -> str | None:
    """The text a user record opens with (a subagent's first record: its Task call's prompt)."""
    content = obj["message"].get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [b.get("text") for b in content if isinstance(b, dict) and "text" in b]
        return "".join(t for t in texts if isinstance(t, str)) or None
    return None


class Links(Struct):
    """How subagent conversations find the call that spawned them: by the prompt it gave, and
    by the agent id its result (or, in 2.1.x, a `progress` record) names."""

    by_prompt: dict[str, _Spawn] = field(default_factory=dict)
    by_agent: dict[str, _Spawn] = field(default_factory=dict)
    #: The subagent calls met so far, by call id.
    by_call: dict[str, _Spawn] = field(default_factory=dict)

    def take(self, line: Line, conversation: str) -> None:
        """Read one record of the main thread (of any type) for subagent calls and results."""
        obj = line.obj
        by_call = self.by_call
        content = obj["message"].get("content") if _is_turn(obj) else None
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and block.get("name") in _SPAWNERS:
                spawn = _Spawn(
                    str(block.get("id")), str(block.get("name")), line.number, conversation
                )
                by_call[spawn.call_id] = spawn
                prompt = (block.get("input") or {}).get("prompt")
                if isinstance(prompt, str):
                    self.by_prompt[prompt] = spawn
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in by_call:
                result = obj.get("toolUseResult")
                agent = obj.get("agentId") or (
                    result.get("agentId") if isinstance(result, dict) else None
                )
                if isinstance(agent, str):
                    self.by_agent[agent] = by_call[block["tool_use_id"]]
        data = obj.get("data")
        if obj.get("type") == "progress" and isinstance(data, dict):
            agent, call = data.get("agentId"), obj.get("parentToolUseID")
            if isinstance(agent, str) and call in by_call:
                self.by_agent.setdefault(agent, by_call[call])

    def find(self, conversation: _Live) -> _Spawn | None:
        """The spawning call of a subagent conversation, if the records tell."""
        if conversation.agent and conversation.agent in self.by_agent:
            return self.by_agent[conversation.agent]
        prompt = conversation.prompt
        return self.by_prompt.get(prompt) if prompt is not None else None


def _may_link(obj: dict[str, Any]) -> bool:
    """Whether `Links.take` could learn anything from a record: it holds a subagent call, a
    result that names an agent, or is a `progress` record that names one. Only those are kept
    for it (the others, most of a session, are then not held twice)."""
    if obj.get("type") == "progress":
        data = obj.get("data")
        return isinstance(data, dict) and isinstance(data.get("agentId"), str)
    message = obj.get("message")
    content = message.get("content") if type(message) is dict else None
    if not isinstance(content, list):
        return False
    result = obj.get("toolUseResult")
    names_agent = isinstance(obj.get("agentId"), str) or (
        isinstance(result, dict) and isinstance(result.get("agentId"), str)
    )
    for block in content:
        if isinstance(block, dict):
            kind = block.get("type")
            if kind == "tool_use" and block.get("name") in _SPAWNERS:
                return True
            if kind == "tool_result" and names_agent:
                return True
    return False


def _spawn_note(path: str | None, key: str, spawn: _Spawn, main_id: str) -> Note:
    where = f"{path or '<input>'}:{spawn.line}" if spawn.line is not None else path or "<input>"
    return Note(
        "subagent_conversation",
        Severity.INFO,
        f"conversation {key} is a subagent run, spawned by the {spawn.name} call "
        f"{spawn.call_id} ({where}) of conversation {main_id}",
    )


#: Record fields whose text nearly every record repeats (the session, its folder, the
#: version): the parser makes a new string for each, about half of a small record's bytes, so
#: the records kept as the items' native values hold one copy of each value instead.
_SHARED = ("sessionId", "cwd", "version", "gitBranch", "userType", "type", "slug")
_SHARED_MESSAGE = ("role", "type", "model", "stop_reason")


class Reader:
    """A session's conversations, built record by record as they are read.

    Each record is converted once, when it arrives: a followed file's new records add to the
    conversations without converting the earlier ones again. Only the last turn of a
    conversation waits: one response is written as several records, so it is converted for
    good when a record of another turn follows (a snapshot converts it for the time being, and
    goes back if the response grows). The main thread comes first, then each sidechain (a
    subagent), linked to the call that spawned it (`links`: a subagent file's are its
    session's).
    """

    #: Lines of the format that need not be parsed at all (none: every record may count).
    skip = None

    def __init__(
        self,
        path: str | None,
        *,
        links: Links | None = None,
        parent: str | None = None,
        share_values: bool = True,
    ) -> None:
        self.path = path
        self._links = links if links is not None else Links()
        self._own_links = links is None
        self._parent = parent
        self._found: dict[str, _Live] = {}
        self._of_uuid: dict[str, str] = {}
        self._session: str | None = None
        self._corrupt: list[Corrupt] = []
        #: The main thread's records that may link a subagent (`_may_link`), and how many were
        #: read for links so far: only a session with subagents needs them read.
        self._main: list[Line] = []
        self._linked = 0
        #: One copy of each value that every record repeats (see `_SHARED`), unless the
        #: conversations are not kept for long (a share's, in a worker: `share_values`).
        self._shared: dict[str, str] = {}
        self._keys = (_SHARED, _SHARED_MESSAGE) if share_values else ((), ())

    def add(self, lines: Iterable[Line], corrupt: Sequence[Corrupt] = ()) -> None:
        """Take the next records of the file (and the broken lines among them, read once the
        records were)."""
        found, of_uuid, main = self._found, self._of_uuid, self._main
        share = self._shared.setdefault
        links = self._own_links
        shared, shared_message = self._keys
        for line in lines:
            obj = line.obj
            get = obj.get
            for key in shared:
                value = get(key)
                if value.__class__ is str:
                    obj[key] = share(value, value)
            message = get("message")
            if message.__class__ is dict:
                for key in shared_message:
                    value = message.get(key)
                    if value.__class__ is str:
                        message[key] = share(value, value)
            if self._session is None and isinstance(get("sessionId"), str):
                self._session = obj["sessionId"]
            agent = get("agentId")
            if agent is not None and not isinstance(agent, str):
                agent = None
            uuid = get("uuid")
            if get("isSidechain") is True:
                parent = get("parentUuid")
                known = of_uuid.get(parent) if isinstance(parent, str) else None
                # Unknown, or the main thread's: a sidechain starts here.
                key = known or (f"agent-{agent}" if agent else f"sidechain-{uuid or line.number}")
                if isinstance(uuid, str):
                    of_uuid[uuid] = key
            else:
                key = MAIN
                if links and _may_link(obj):
                    main.append(line)
                if of_uuid and isinstance(uuid, str):
                    # Only sidechain records are looked up: a main one is as good as absent.
                    of_uuid.pop(uuid, None)
            kind = get("type")
            if message.__class__ is not dict or kind.__class__ is not str or kind not in TURN_TYPES:
                continue
            live = found.get(key)
            if live is None:
                live = found[key] = self._open(key, line)
            if agent and key != MAIN:
                live.agent = agent
            if not live.prompted and kind == "user":
                live.prompted, live.prompt = True, _prompt_of(obj)
            # One more record of the last response, or a turn of its own (`_take`).
            turn_key = message.get("id") if kind == "assistant" else None
            if live.run and live.mark is None and (turn_key is None or turn_key != live.run_key):
                _turn(live.conv, live.run)
                live.run = [line]
                live.run_key = turn_key
            else:
                self._take(live, line, turn_key)
        self._corrupt += corrupt  # after the lines: they may be read as they are parsed

    def _open(self, key: str, first: Line) -> _Live:
        b = builder(self.path)
        group = conversation_group(b, "claude_code_session", first, envelope=API.envelope)
        record = Record(first.obj, first.number, first.base)
        return _Live(key, b, Converter(b, record, group, API, ABSENT, hold=True))

    def _take(self, live: _Live, line: Line, key: Any) -> None:
        """Add a turn record (`key`: its response's message id): it ends the last turn, or is
        one more record of its response."""
        if live.run and (key is None or key != live.run_key):
            self._close(live)
        elif live.mark is not None:
            live.mark.restore(live.b)  # the response converted for a snapshot grows
            live.mark = None
        live.run.append(line)
        live.run_key = key

    def _close(self, live: _Live) -> None:
        """End the last turn: converted now (its items settle at the next snapshot), unless a
        snapshot converted it already."""
        if live.mark is None:
            _turn(live.conv, live.run)
        live.mark = None
        live.run = []

    @property
    def links(self) -> Links:
        """The calls that spawned subagents: those given, or the main thread's (its records
        are read for them when first asked, as only a session with subagents needs them)."""
        if self._own_links:
            main = self._main
            for line in main[self._linked :]:
                self._links.take(line, MAIN)
            self._linked = len(main)
        return self._links

    def transcripts(self, *, final: bool = False) -> list[Transcript]:
        """The conversations as they stand (`final`: no record follows); a LoadError when the
        records hold no turn yet."""
        found = list(self._found.values())
        corrupt = self._corrupt
        if not found:
            raise LoadError(
                "the Claude Code session has no user or assistant records"
                + (f" (and {len(corrupt)} corrupt lines)" if corrupt else ""),
                path=self.path,
            )
        for live in found:
            if live.run and live.mark is None and (final or live.run_key is None):
                self._close(live)  # a record with no message id is a whole turn
            finish_lossy(live.conv, LOSSY, SOURCE)  # the turns ended since the last snapshot
            if live.run and live.mark is None:
                live.mark = _Mark.of(live.b)
                _turn(live.conv, live.run)
                finish_lossy(live.conv, LOSSY, SOURCE)
        path = self.path
        session = _conversation_id(path, self._session)
        main_id = self._parent or session
        ids = [session if c.key == MAIN else f"{session}/{c.key}" for c in found]
        out: list[Transcript] = []
        for position, (live, key) in enumerate(zip(found, ids, strict=True)):
            notes: list[Note] = []
            if position == 0:
                if len(found) > 1:
                    notes.append(several_note(path, ids))
                notes += corrupt_notes(path, corrupt)
            if live.key != MAIN:
                spawn = self.links.find(live)
                if spawn is not None:
                    notes.append(_spawn_note(path, key, spawn, main_id))
            out.append(snapshot(live.b, "claude_code", key, notes))
        return out


def _conversation_id(path: str | None, session: str | None) -> str:
    """The main thread's conversation id: the session id its records name, else the file's."""
    return session or (Path(path).stem if path else "session")


def conversations(
    lines: Sequence[Line],
    corrupt: Sequence[Corrupt],
    path: str | None,
    *,
    links: Links | None = None,
    parent: str | None = None,
) -> list[Transcript]:
    """One transcript per conversation of the records: the main thread first, then subagents."""
    reader = Reader(path, links=links, parent=parent)
    reader.add(lines, corrupt)
    return reader.transcripts(final=True)


def export_lines(document: dict[str, Any]) -> list[Line]:
    """The records of a web export (`{"loglines": [...]}`), each with its pointer."""
    return [
        Line(None, f"/loglines/{i}", obj)
        for i, obj in enumerate(document["loglines"])
        if isinstance(obj, dict)
    ]


def load_file(
    data: bytes,
    path: str | None,
    source: Path | None = None,
    check: Callable[[int], None] | None = None,
) -> list[Transcript]:
    """Every conversation of a session file (JSONL) or web export (one JSON document).

    Given the file's `source` path, the subagent files beside it (`<session>/subagents/
    agent-*.jsonl`, 2.1.x) are read too, each linked to the call that spawned it.
    """
    document = first_record(data)
    if document is None:
        # The first line is not a whole value: a pretty-printed document (the web export).
        document = _document(data)
    if isinstance(document, dict) and isinstance(document.get("loglines"), list):
        return conversations(export_lines(document), [], path)
    corrupt: list[Corrupt] = []
    reader = Reader(path)
    # Each record converted as it is parsed: the file's records are never all held at once.
    reader.add(iter_lines(data, path, corrupt, check=check), corrupt)
    found = reader.transcripts(final=True)
    for sub in subagent_files(source) if source is not None else ():
        sub_lines, sub_corrupt = parse_lines(read_bytes(sub), str(sub))
        found += conversations(
            sub_lines, sub_corrupt, str(sub), links=reader.links, parent=found[0].conversation
        )
    return found


def _document(data: bytes) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return None


def subagent_files(path: Path) -> list[Path]:
    """A session's subagent files: `<session>/subagents/agent-*.jsonl` beside it (2.1.x)."""
    folder = path.with_suffix("") / "subagents"
    return sorted(folder.glob("agent-*.jsonl")) if folder.is_dir() else []


# --------------------------------------------------------------------------------------------
# Shares: a large session's lines converted by several processes (`core.session_gate`)


class Share(Struct, frozen=True):
    """A run of a session file's lines converted on its own (`convert_share`)."""

    #: Its turns, as the main thread's conversation, its items numbered from 0 (None: it
    #: holds no turn, or its items were left where they were converted).
    transcript: Transcript | None
    #: The conversation's group, as the share's first turn opened it.
    group: Group | None
    corrupt: tuple[Corrupt, ...]
    #: The first session id its records name.
    session: str | None


#: What a record is to the main thread's turns (`_turn_key`), besides a turn's key.
_NOT_TURN: Any = object()
_SIDECHAIN: Any = object()


def _turn_key(obj: dict[str, Any]) -> Any:
    """`_NOT_TURN`, `_SIDECHAIN` (a sidechain's turn), or the key of a main-thread turn record
    as `Reader.add` reads it: its response's message id (None: a turn of its own)."""
    message, kind = obj.get("message"), obj.get("type")
    if message.__class__ is not dict or kind.__class__ is not str or kind not in TURN_TYPES:
        return _NOT_TURN
    if obj.get("isSidechain") is True:
        return _SIDECHAIN
    return message.get("id") if kind == "assistant" else None


def _records(data: bytes, start: int, step: int, path: str | None, number: int) -> Iterator[Line]:
    """The records of the lines from the one starting at `start` (numbered `number`), read
    forward (`step` 1) or backward (-1, from the line that ends at `start`) as `iter_lines`
    reads them; broken and blank lines are passed over."""
    size = len(data)
    while (start < size) if step > 0 else (start > 0):
        if step > 0:
            end = data.find(b"\n", start)
            end = size if end < 0 else end
            raw, start = data[start:end], end + 1
        else:
            begin = data.rfind(b"\n", 0, start - 1) + 1
            raw, start = data[begin : start - 1], begin
        obj = read_line(raw, path, number)
        if type(obj) is dict:
            yield Line(number, "", obj)
        number += step


def convert_share(data: bytes, start: int, stop: int, path: str | None) -> Share | None:
    """Convert the records of a session file's lines from `start` to `stop` (line starts) as
    the whole file's load converts them, or None when they cannot be converted on their own.

    A response written as several records is converted with the run its first record is in:
    records at the start that continue the turn before are left to the run before, and the
    run reads on past `stop` for records that continue its last turn. A sidechain's turn (its
    conversation is found from earlier records), a call or result whose id is synthesised or
    paired (numbered, or found, among earlier records) or a note on the conversation cannot
    be converted on its own: None (the whole file is then loaded in one process).
    """
    number = data.count(b"\n", 0, start) + 1
    before = next(
        (
            k
            for line in _records(data, start, -1, path, number - 1)
            if (k := _turn_key(line.obj)) is not _NOT_TURN
        ),
        None,
    )
    if before is _SIDECHAIN:
        return None
    corrupt: list[Corrupt] = []
    lines = iter_lines(data, path, corrupt, number, begin=start, stop=stop)
    session: str | None = None
    # No subagent to link (none is read this way); the share's items are dropped once its
    # rows are written, so the values records repeat are not shared.
    reader = Reader(path, links=Links(), share_values=False)
    for line in lines:
        # The turn before may go on here: its records are the run's before.
        key = _turn_key(line.obj)
        if session is None and isinstance(line.obj.get("sessionId"), str):
            session = line.obj["sessionId"]
        if key is _SIDECHAIN:
            return None
        if key is _NOT_TURN or (key is not None and key == before):
            continue
        reader.add(itertools.chain((line,), lines))
        break
    session = session or reader._session
    main = reader._found.get(MAIN)
    if main is not None and main.run and main.run_key is not None:
        # Numbered from the share's end, and numbered in the file only when a record goes on
        # with the last turn (seldom): counting the share's lines is a pass over its bytes.
        first_after: int | None = None
        for line in _records(data, stop, 1, path, 0):
            key = _turn_key(line.obj)
            if key is _SIDECHAIN:
                return None
            if key is _NOT_TURN:
                continue
            if key != main.run_key:
                break
            if first_after is None:
                first_after = number + data.count(b"\n", start, stop)
            reader.add((line._replace(number=first_after + (line.number or 0)),))
    if list(reader._found) not in ([], [MAIN]) or (
        main is not None and (main.conv.paired or main.b.synthesised)
    ):
        return None
    if main is None:
        return Share(None, None, tuple(corrupt), session)
    (transcript,) = reader.transcripts(final=True)
    if transcript.groups[0].notes:
        return None
    return Share(transcript, transcript.groups[0], tuple(corrupt), session)


def joined(path: str | None, shares: Sequence[Share]) -> Transcript | None:
    """The main thread's conversation of a file converted in shares, without its items (the
    shares hold them): its group with the file's findings, its id; None when no share holds
    a turn (loading the whole file says so)."""
    group = next((s.group for s in shares if s.group is not None), None)
    if group is None:
        return None
    notes = corrupt_notes(path, [c for s in shares for c in s.corrupt])
    if notes:
        group = dataclasses.replace(group, notes=(*group.notes, *notes))
    session = next((s.session for s in shares if s.session is not None), None)
    return Transcript(
        path, "claude_code", (), (group,), conversation=_conversation_id(path, session)
    )


def can_share(data: bytes, source: Path | None) -> bool:
    """Whether a Claude Code session file may be converted in shares: a JSON Lines session
    (not a web export) without subagent files beside it."""
    first = first_record(data)
    if not isinstance(first, dict) or isinstance(first.get("loglines"), list):
        return False
    return source is None or not subagent_files(source)


FORMAT = FormatSpec(
    name="claude_code",
    label=LABEL,
    kinds=KINDS,
    detect=detect,
    load=load,
    accepts="a Claude Code session (or its web export)",
)
