"""Codex CLI rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).

Each line is `{timestamp, type, payload}`. `response_item` payloads are Responses-API items, and
they are the transcript, as they are: no envelope to convert. The other lines say things about
the session (`session_meta`, `turn_context`) or repeat it for the terminal (`event_msg` echoes
user and agent messages and tool runs); they add no items, so nothing is counted twice. A
`compacted` line carries the replacement history Codex sent from then on: items already in the
file, noted and not added again. Only `type` and `payload` are relied upon: session metadata
changed across versions (`instructions` became `base_instructions`, `model_provider` and `source`
appeared later). Codex-only item types (`custom_tool_call`, `local_shell_call`, `ghost_snapshot`,
`web_search_call` …) stay as they are; the gate calls them vendor items.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from inspector.core.formats._records import CERTAIN, Builder, Detection, Record
from inspector.core.formats._sessions import (
    Corrupt,
    Line,
    builder,
    conversation_group,
    corrupt_notes,
    finish,
    parse_lines,
)
from inspector.core.formats.spec import FormatSpec
from inspector.core.model import Conversion, Derivation, Note, Origin, Severity, Transcript

KINDS = {"codex_line": "codex"}
LABEL = "Codex CLI rollout"
#: Bytes every rollout shows near its start (its first line is a typed, payload-carrying line).
MARKERS = (b'"payload"',)
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


def _answered(lines: Sequence[Line]) -> set[str]:
    """The call ids that an output item of the rollout answers."""
    found: set[str] = set()
    for line in lines:
        payload = line.obj.get("payload")
        if (
            line.obj.get("type") == "response_item"
            and isinstance(payload, dict)
            and payload.get("type") in _OUTPUTS
            and isinstance(payload.get("call_id"), str)
        ):
            found.add(payload["call_id"])
    return found


def _add_line(b: Builder, line: Line, group: int, answered: set[str]) -> str | None:
    """Add a line's item (a `response_item`); return a note's text for a `compacted` line.

    A function_call that an output answers ran to completion: its status, which Codex never
    writes, is derived (and marked) so the gate judges its arguments, as for a call in a
    request's history.
    """
    obj = line.obj
    kind, payload = obj.get("type"), obj.get("payload")
    if kind == "response_item" and isinstance(payload, dict):
        raw: Any = payload
        marks: list[Derivation] = []
        if payload.get("type") == "function_call":
            if "status" not in payload and payload.get("call_id") in answered:
                raw = {**payload, "status": "completed"}
                marks.append(_STATUS_RAN)
            if redacted(payload.get("arguments")):
                marks.append(_ARGUMENTS_REDACTED)
        conversion = Conversion("codex", payload, tuple(marks), LABEL) if marks else None
        origin = Origin(b.path, line.number, line.base + "/payload")
        b.add_item(raw, origin, group, conversion=conversion)
    elif kind == "compacted" and isinstance(payload, dict):
        history = payload.get("replacement_history")
        count = len(history) if isinstance(history, list) else 0
        return (
            f"{b.path or '<input>'}:{line.number}: Codex compacted the history here; its "
            f"replacement history ({count} items) repeats items already read and is not "
            "counted again"
        )
    return None


def _session_id(lines: Sequence[Line]) -> str | None:
    for line in lines:
        if line.obj.get("type") == "session_meta":
            payload = line.obj.get("payload")
            meta = payload.get("meta", payload) if isinstance(payload, dict) else None
            if isinstance(meta, dict) and isinstance(meta.get("id"), str):
                return str(meta["id"])
    return None


def conversations(
    lines: Sequence[Line], corrupt: Sequence[Corrupt], path: str | None
) -> list[Transcript]:
    """The rollout as one transcript (a rollout is one conversation)."""
    b = builder(path)
    group = conversation_group(b, "codex_session", lines[0] if lines else None)
    notes: list[Note] = []
    answered = _answered(lines)
    for line in lines:
        said = _add_line(b, line, group, answered)
        if said is not None:
            notes.append(Note("compacted_history", Severity.INFO, said))
    notes += corrupt_notes(path, corrupt)
    return [finish(b, "codex", _session_id(lines), notes)]


def load_file(
    data: bytes,
    path: str | None,
    source: Path | None = None,
    check: Callable[[int], None] | None = None,
) -> list[Transcript]:
    """The rollout file's conversation (`source`, the file's own path, is not needed)."""
    lines, corrupt = parse_lines(data, path, check=check, skip=repeats)
    return conversations(lines, corrupt, path)


#: Line types that add no item: their lines need not be parsed (about half of a rollout).
_UNREAD = (b'"type":"event_msg"', b'"type":"turn_context"')


def repeats(raw: bytes) -> bool:
    """Whether a line is an `event_msg` or `turn_context` one, by its bytes: its top-level type
    comes before its payload, and the line ends whole (a line cut short is still parsed, so
    it is reported as corrupt)."""
    head = raw[:160]
    payload = head.find(b'"payload"')
    for marker in _UNREAD:
        at = head.find(marker)
        if at >= 0 and (payload < 0 or at < payload):
            return raw.rstrip().endswith(b"}")
    return False


FORMAT = FormatSpec(
    name="codex",
    label=LABEL,
    kinds=KINDS,
    detect=detect,
    load=load,
    accepts="a Codex CLI rollout (session file)",
)
