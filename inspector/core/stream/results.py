"""What a reduced stream is: violations, reduced items, per-response results, the whole stream."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from msgspec import Struct

from inspector.core.codes import FrozenValue
from inspector.core.model import Group, Item, Origin, Severity, Tool, Transcript, join_pointer

#: Every violation code the reducer can report.
VIOLATION_CODES: frozenset[str] = frozenset(
    {
        "malformed_event",
        "invalid_utf8",
        "missing_sequence_number",
        "sequence_not_increasing",
        "sequence_gap",
        "stream_resumed",
        "event_name_mismatch",
        "response_not_started",
        "response_out_of_order",
        "unknown_item",
        "item_index_mismatch",
        "unknown_content_part",
        "duplicate_item",
        "duplicate_content_part",
        "item_closed",
        "open_content_part",
        "text_mismatch",
        "arguments_mismatch",
        "snapshot_mismatch",
        "open_item_at_completion",
        "incomplete_item_not_last",
        "incomplete_item_in_completed_response",
        "event_after_terminal",
        "missing_terminal",
        "missing_done_sentinel",
        "error_without_failed",
        "unknown_event",
        "vendor_event",
        "extension_event",
        "foreign_stream",
    }
)


#: Violations a reduced stream holds one by one: the first this many, and the first of each code
#: and severity after them; the rest are counted (a stream where every event breaks a rule
#: would otherwise hold one per event).
VIOLATIONS_KEPT = 10_000


class Violation(FrozenValue):
    """One broken rule: what, how bad, and where in the stream."""

    FIELDS = ("code", "severity", "event_index", "sequence_number", "line", "message")
    __slots__ = FIELDS
    code: str
    severity: Severity
    event_index: int | None
    sequence_number: int | None
    line: int | None
    message: str

    def __init__(
        self,
        code: str,
        severity: Severity,
        event_index: int | None,
        sequence_number: int | None,
        line: int | None,
        message: str,
    ) -> None:
        self._fill(code, severity, event_index, sequence_number, line, message)

    def to_json(self) -> dict[str, Any]:
        """Return the violation as a JSON object."""
        return {
            "code": self.code,
            "severity": self.severity,
            "event_index": self.event_index,
            "sequence_number": self.sequence_number,
            "line": self.line,
            "message": self.message,
        }


class OutputItem(Struct, frozen=True):
    """A reduced output item: the dict the events built and where it was added."""

    output_index: int
    event_index: int
    line: int | None
    done: bool
    item: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """Return the item and its position as a JSON object."""
        return {
            "output_index": self.output_index,
            "event_index": self.event_index,
            "line": self.line,
            "done": self.done,
            "item": self.item,
        }


class ExtensionRecord(Struct, frozen=True):
    """A `slug:`-prefixed event, kept opaque."""

    event_index: int
    line: int | None
    type: str
    sequence_number: int | None
    data: Any


class ResponseResult(Struct, frozen=True):
    """One response of the stream: terminal outcome, reduced items and terminal snapshot."""

    index: int
    response_id: str | None
    status: str
    first_event: int
    last_event: int
    line: int | None
    terminal_event: int | None
    items: tuple[OutputItem, ...]
    snapshot: Mapping[str, Any] | None
    last_response: Mapping[str, Any] | None
    event_counts: tuple[tuple[str, int], ...]
    extensions: tuple[ExtensionRecord, ...]
    done_sentinel: bool

    @property
    def partial(self) -> bool:
        """Whether the response has no terminal event (its items are a partial snapshot)."""
        return self.terminal_event is None

    @property
    def usage(self) -> Any:
        """The terminal snapshot's `usage` as recorded (None when absent or null)."""
        return self.snapshot.get("usage") if self.snapshot else None

    def to_json(self) -> dict[str, Any]:
        """Return the response result as a JSON object; `usage` only when it was recorded."""
        doc: dict[str, Any] = {
            "index": self.index,
            "response_id": self.response_id,
            "status": self.status,
            "partial": self.partial,
            "first_event": self.first_event,
            "last_event": self.last_event,
            "line": self.line,
            "terminal_event": self.terminal_event,
            "done_sentinel": self.done_sentinel,
            "event_counts": dict(self.event_counts),
            "items": [it.to_json() for it in self.items],
            "extensions": [
                {
                    "event_index": x.event_index,
                    "line": x.line,
                    "type": x.type,
                    "sequence_number": x.sequence_number,
                }
                for x in self.extensions
            ],
        }
        if self.snapshot is not None and "usage" in self.snapshot:
            doc["usage"] = self.snapshot["usage"]
        return doc


class StreamResult(Struct, frozen=True):
    """The whole stream: per-response results, overall status, event count and violations."""

    responses: tuple[ResponseResult, ...]
    status: str
    events: int
    violations: tuple[Violation, ...]
    strict: bool = False
    framing: str = "sse"
    #: The API the stream speaks: `open_responses`, or the format module of a foreign stream.
    dialect: str = "open_responses"
    #: A foreign stream's final record, assembled from its events (None for Open Responses).
    assembled: Any = None
    #: Violations past VIOLATIONS_KEPT, counted: (code, severity, how many), in first-seen order.
    more: tuple[tuple[str, Severity, int], ...] = ()

    @property
    def left_out(self) -> int:
        """How many violations were counted but not kept (past VIOLATIONS_KEPT)."""
        return sum(n for _, _, n in self.more)

    @property
    def total_violations(self) -> int:
        """Every violation found, kept or counted."""
        return len(self.violations) + self.left_out

    def left_out_by_code(self) -> dict[str, int]:
        """The violations not kept, counted by code (most first)."""
        counts: dict[str, int] = {}
        for code, _, n in self.more:
            counts[code] = counts.get(code, 0) + n
        return dict(sorted(counts.items(), key=lambda kv: -kv[1]))

    @property
    def items(self) -> list[OutputItem]:
        """Every reduced output item, response by response."""
        return [it for r in self.responses for it in r.items]

    def count(self, severity: Severity) -> int:
        """Return how many violations have the severity (those counted past the kept ones too)."""
        kept = sum(1 for v in self.violations if v.severity == severity)
        return kept + sum(n for _, s, n in self.more if s == severity)

    @property
    def blocking(self) -> bool:
        """Whether a violation fails the check: any error, or any warning under strict."""
        bad = ("error", "warning") if self.strict else ("error",)
        return any(v.severity in bad for v in self.violations) or any(
            s in bad for _, s, _ in self.more
        )

    def to_json(self) -> dict[str, Any]:
        """Return the result as the `events` command's JSON document.

        `more_violations` (only when some were not kept): how many, and how many of each code.
        """
        document = {
            "status": self.status,
            "strict": self.strict,
            "framing": self.framing,
            "events": self.events,
            "counts": {str(s): self.count(s) for s in Severity},
            "violations": [v.to_json() for v in self.violations],
            "responses": [r.to_json() for r in self.responses],
        }
        if self.more:
            document["more_violations"] = {
                "count": self.left_out,
                "codes": self.left_out_by_code(),
            }
        return document


def stream_transcript(result: StreamResult, path: str | None, format: str) -> Transcript:
    """Turn reduced streams into a Transcript: items in output order, one group per response."""
    items: list[Item] = []
    groups: list[Group] = []
    tools: dict[str, Tool] = {}
    tool_choice: Any = None
    for gi, resp in enumerate(result.responses):
        snap = resp.snapshot or {}
        groups.append(
            Group(
                index=gi,
                kind="response",
                origin=Origin(path, resp.line, "", resp.first_event),
                status=resp.status if resp.status != "none" else None,
                incomplete_details=snap.get("incomplete_details"),
                error=snap.get("error"),
                response_id=resp.response_id,
            )
        )
        for out in resp.items:
            items.append(
                Item(
                    index=len(items),
                    raw=out.item,
                    origin=Origin(path, out.line, f"/output/{out.output_index}", out.event_index),
                    group=gi,
                )
            )
        described = resp.snapshot or resp.last_response
        if described is None:
            continue
        event = resp.terminal_event if resp.snapshot is not None else resp.first_event
        for ti, tool in enumerate(described.get("tools") or ()):
            if not isinstance(tool, dict) or tool.get("type") != "function":
                continue
            name = tool.get("name")
            if isinstance(name, str):
                tools[name] = Tool(
                    name,
                    tool.get("parameters"),
                    kind="function",
                    source="transcript",
                    origin=Origin(path, None, join_pointer("/response/tools", ti), event),
                    strict=tool.get("strict") if isinstance(tool.get("strict"), bool) else None,
                )
        if "tool_choice" in described:
            tool_choice = described["tool_choice"]
    return Transcript(
        path=path,
        format=format,
        items=tuple(items),
        groups=tuple(groups),
        tools=MappingProxyType(tools),
        tool_choice=tool_choice,
        stream=result,
    )
