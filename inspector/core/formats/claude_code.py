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

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from inspector.core.formats import anthropic
from inspector.core.formats._convert import ABSENT, Api, Converter
from inspector.core.formats._records import Builder, Detection, Record
from inspector.core.formats._sessions import (
    Corrupt,
    Line,
    builder,
    conversation_group,
    corrupt_notes,
    finish,
    finish_lossy,
    first_record,
    parse_lines,
    several_note,
)
from inspector.core.formats.spec import FormatSpec
from inspector.core.jsonio import read_bytes
from inspector.core.model import (
    Derivation,
    LoadError,
    Note,
    Severity,
    Transcript,
)

KINDS = {"claude_code_record": "claude_code"}
LABEL = "Claude Code session"
#: Bytes a session file or web export shows near its start.
MARKERS = (b'"sessionId"', b'"parentUuid"', b'"leafUuid"', b'"messageId"', b'"loglines"')
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
    if not b.groups or b.groups[-1].kind != "claude_code_session":
        conversation_group(
            b, "claude_code_session", Line(record.line, record.base, obj), envelope=API.envelope
        )
    _convert(b, len(b.groups) - 1, [Line(record.line, record.base, obj)])


# --------------------------------------------------------------------------------------------
# Turns


def _turn(conv: Converter, run: Sequence[Line]) -> None:
    """Convert one turn: a user record, or the records of one assistant response."""
    first = run[0]
    role = first.obj["message"].get("role") or first.obj.get("type")
    conv.begin(role, first.base + "/message", first.obj, first.number)
    for line in run:
        content = line.obj["message"].get("content")
        anthropic.convert_content(conv, role, content, line.base + "/message/content", line.number)
    conv.end()


def _convert(b: Builder, group: int, lines: Sequence[Line]) -> None:
    """Convert a conversation's turn records; its calls settle at the end (all are history)."""
    first = lines[0]
    conv = Converter(b, Record(first.obj, first.number, first.base), group, API, ABSENT)
    for run in _turns(lines):
        _turn(conv, run)
    finish_lossy(conv, LOSSY, ("claude_code", LABEL))


def _message_id(line: Line) -> Any:
    return line.obj["message"].get("id") if line.obj.get("type") == "assistant" else None


def _turns(lines: Sequence[Line]) -> Iterator[list[Line]]:
    """Group a conversation's turn records: consecutive records of one response are one turn."""
    run: list[Line] = []
    previous: Any = None
    for line in lines:
        key = _message_id(line)
        if run and (key is None or key != previous):
            yield run
            run = []
        run.append(line)
        previous = key
    if run:
        yield run


# --------------------------------------------------------------------------------------------
# Conversations


@dataclass
class _Conversation:
    key: str
    lines: list[Line] = field(default_factory=list)
    #: The subagent's id (`agentId`), when its records say it.
    agent: str | None = None


@dataclass
class _Spawn:
    call_id: str
    name: str
    line: int | None
    conversation: str


def _is_turn(obj: dict[str, Any]) -> bool:
    return obj.get("type") in ("user", "assistant") and isinstance(obj.get("message"), dict)


def _split(lines: Sequence[Line]) -> list[_Conversation]:
    """Sort records into conversations: the main thread, and each sidechain (a subagent)."""
    found: dict[str, _Conversation] = {}
    of_uuid: dict[str, str] = {}
    for line in lines:
        obj = line.obj
        agent = obj.get("agentId") if isinstance(obj.get("agentId"), str) else None
        if obj.get("isSidechain") is True:
            parent = obj.get("parentUuid")
            key = of_uuid.get(parent) if isinstance(parent, str) else None
            if key is None or key == MAIN:  # a sidechain starts here, whoever its parent is
                uuid = obj.get("uuid")
                key = f"agent-{agent}" if agent else f"sidechain-{uuid or line.number}"
        else:
            key = MAIN
        uuid = obj.get("uuid")
        if isinstance(uuid, str):
            of_uuid[uuid] = key
        if not _is_turn(obj):
            continue
        conversation = found.setdefault(key, _Conversation(key))
        if key != MAIN and agent:
            conversation.agent = agent
        conversation.lines.append(line)
    return list(found.values())


def _first_prompt(lines: Sequence[Line]) -> str | None:
    """The text a subagent conversation opens with (the prompt its Task call gave)."""
    for line in lines:
        if line.obj.get("type") != "user":
            continue
        content = line.obj["message"].get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            texts = [b.get("text") for b in content if isinstance(b, dict) and "text" in b]
            return "".join(t for t in texts if isinstance(t, str)) or None
        return None
    return None


def _spawns(lines: Sequence[Line], conversation: str) -> Links:
    """The subagent calls of a conversation: by the prompt they gave, and by the agent id their
    result (or, in 2.1.x, a `progress` record) names."""
    links = Links()
    by_call: dict[str, _Spawn] = {}
    for line in lines:
        obj = line.obj
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
                    links.by_prompt[prompt] = spawn
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in by_call:
                result = obj.get("toolUseResult")
                agent = obj.get("agentId") or (
                    result.get("agentId") if isinstance(result, dict) else None
                )
                if isinstance(agent, str):
                    links.by_agent[agent] = by_call[block["tool_use_id"]]
        data = obj.get("data")
        if obj.get("type") == "progress" and isinstance(data, dict):
            agent, call = data.get("agentId"), obj.get("parentToolUseID")
            if isinstance(agent, str) and call in by_call:
                links.by_agent.setdefault(agent, by_call[call])
    return links


@dataclass
class Links:
    """How subagent conversations find the call that spawned them."""

    by_prompt: dict[str, _Spawn] = field(default_factory=dict)
    by_agent: dict[str, _Spawn] = field(default_factory=dict)

    def find(self, conversation: _Conversation) -> _Spawn | None:
        """The spawning call of a subagent conversation, if the records tell."""
        if conversation.agent and conversation.agent in self.by_agent:
            return self.by_agent[conversation.agent]
        prompt = _first_prompt(conversation.lines)
        return self.by_prompt.get(prompt) if prompt is not None else None


def _links(lines: Sequence[Line]) -> Links:
    """The links of the main thread's subagent calls (records of every type are looked at)."""
    main = [ln for ln in lines if ln.obj.get("isSidechain") is not True]
    return _spawns(main, MAIN)


def _transcript(
    conversation: _Conversation, key: str, path: str | None, notes: list[Note]
) -> Transcript:
    b = builder(path)
    group = conversation_group(
        b, "claude_code_session", conversation.lines[0], envelope=API.envelope
    )
    _convert(b, group, conversation.lines)
    return finish(b, "claude_code", key, notes)


def _spawn_note(path: str | None, key: str, spawn: _Spawn, main_id: str) -> Note:
    where = f"{path or '<input>'}:{spawn.line}" if spawn.line is not None else path or "<input>"
    return Note(
        "subagent_conversation",
        Severity.INFO,
        f"conversation {key} is a subagent run, spawned by the {spawn.name} call "
        f"{spawn.call_id} ({where}) of conversation {main_id}",
    )


def conversations(
    lines: Sequence[Line],
    corrupt: Sequence[Corrupt],
    path: str | None,
    *,
    links: Links | None = None,
    parent: str | None = None,
) -> list[Transcript]:
    """One transcript per conversation of the records: the main thread first, then subagents."""
    stem = Path(path).stem if path else "session"
    found = _split(lines)
    if not found:
        raise LoadError(
            "the Claude Code session has no user or assistant records"
            + (f" (and {len(corrupt)} corrupt lines)" if corrupt else ""),
            path=path,
        )
    session = next(
        (ln.obj["sessionId"] for ln in lines if isinstance(ln.obj.get("sessionId"), str)), stem
    )
    if links is None:
        # Only subagent conversations need the calls that spawned them.
        links = _links(lines) if any(c.key != MAIN for c in found) else Links()
    main_id = parent or session
    ids = [session if c.key == MAIN else f"{session}/{c.key}" for c in found]
    out: list[Transcript] = []
    for position, (conversation, key) in enumerate(zip(found, ids, strict=True)):
        notes: list[Note] = []
        if position == 0:
            if len(found) > 1:
                notes.append(several_note(path, ids))
            notes += corrupt_notes(path, corrupt)
        if conversation.key != MAIN:
            spawn = links.find(conversation)
            if spawn is not None:
                notes.append(_spawn_note(path, key, spawn, main_id))
        out.append(_transcript(conversation, key, path, notes))
    return out


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
    lines, corrupt = parse_lines(data, path, check=check)
    found = conversations(lines, corrupt, path)
    for sub in subagent_files(source) if source is not None else ():
        sub_lines, sub_corrupt = parse_lines(read_bytes(sub), str(sub))
        found += conversations(
            sub_lines, sub_corrupt, str(sub), links=_links(lines), parent=found[0].conversation
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


FORMAT = FormatSpec(
    name="claude_code",
    label=LABEL,
    kinds=KINDS,
    detect=detect,
    load=load,
    accepts="a Claude Code session (or its web export)",
)
