"""The checked reducer: one state machine over stream events → response snapshots + violations."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any

from inspector.core.codes import Severity, severity_of
from inspector.core.display import shorten_digits
from inspector.core.model import PORTABLE_CORE, effective_type
from inspector.core.stream.events import SPEC_EVENT_TYPES, TERMINAL_EVENTS, StreamEvent
from inspector.core.stream.results import (
    VIOLATIONS_KEPT,
    ExtensionRecord,
    OutputItem,
    ResponseResult,
    StreamResult,
    Violation,
)

# Unprefixed OpenAI event families outside the catalogue: hosted-tool progress
# (`response.<tool>_call[_<part>].<phase>`), MCP tool listing, audio, raw reasoning text.
_VENDOR_EVENT = re.compile(
    r"response\.(?:[a-z][a-z0-9_]*_call(?:_[a-z0-9_]+)?|mcp_list_tools|reasoning_text"
    r"|audio|audio\.transcript|output_text_annotation)\.[a-z_]+"
)

# Events that may open a response when none is open (created, queued and in_progress are each
# optional in the lifecycle; failed may come first).
_OPENERS = frozenset(
    {"response.created", "response.queued", "response.in_progress", "response.failed"}
)

# Response lifecycle order; index = phase number (0: nothing seen yet).
_PHASES = ("(start)", "response.created", "response.queued", "response.in_progress")

_IID = ("item_id", str)
_OI = ("output_index", int)
_DELTA = ("delta", str)
_PART_KEYS = {"content_index": ("content_index", int), "summary_index": ("summary_index", int)}
_Fields = tuple[tuple[str, type], ...]

# Streamed texts: event prefix, which parts it addresses, the part type it streams into, and
# the field of its `.done` event holding the full text.
_TEXT_STREAMS = (
    ("response.output_text", "content_index", "output_text", "text"),
    ("response.refusal", "content_index", "refusal", "refusal"),
    ("response.reasoning", "content_index", "reasoning_text", "text"),
    ("response.reasoning_text", "content_index", "reasoning_text", "text"),  # OpenAI's name
    ("response.reasoning_summary_text", "summary_index", "summary_text", "text"),
)
# Handled like catalogue events but named outside it (OpenAI's raw reasoning text).
_VENDOR_ALIASES = (
    frozenset(f"{prefix}.{end}" for prefix, *_ in _TEXT_STREAMS for end in ("delta", "done"))
    - SPEC_EVENT_TYPES
)

# The field of a content part that holds its text.
_PART_TEXT_FIELD = {"refusal": "refusal"}


def _part_text_field(part_type: Any) -> str:
    return _PART_TEXT_FIELD.get(part_type, "text") if isinstance(part_type, str) else "text"


# --------------------------------------------------------------------------------------------
# Reduction state


class _Text:
    """Streamed text: delta chunks joined once, and the done value when it disagreed."""

    __slots__ = ("chunks", "claimed", "done", "streamed")

    def __init__(self, initial: Any) -> None:
        self.chunks: list[str] = [initial] if isinstance(initial, str) and initial else []
        self.streamed = False  # a delta arrived
        self.done = False  # the `.done` event arrived
        self.claimed: str | None = None  # a done value that disagreed with the deltas

    def value(self, claimed: bool = False) -> str:
        """The text so far (or the disagreeing done value, when `claimed`)."""
        if claimed and self.claimed is not None:
            return self.claimed
        if len(self.chunks) > 1:
            self.chunks = ["".join(self.chunks)]
        return self.chunks[0] if self.chunks else ""

    def settle(self, final: str) -> bool:
        """Reconcile a done value; False when it disagrees with the deltas and earlier claims."""
        if not (self.streamed or self.done):
            # Nothing streamed to disagree with: the done value is the text.
            self.chunks = [final] if final else []
            return True
        if final == self.value() or final == self.claimed:
            return True
        # Remember the claim so the same disagreement is reported once, where it first shows.
        self.claimed = final
        return False


class _Part:
    """A content or summary part: its dicts, streamed text and whether it is done."""

    __slots__ = ("closed", "done_part", "kind", "part", "text")

    def __init__(self, part: dict[str, Any]) -> None:
        self.part = part
        self.kind = part.get("type")
        self.text = _Text(part.get(_part_text_field(self.kind)))
        self.closed = False
        self.done_part: dict[str, Any] | None = None

    def build(self, claimed: bool = False) -> dict[str, Any]:
        """The part as a dict with its text filled in."""
        base = dict(self.done_part if self.done_part is not None else self.part)
        base[_part_text_field(self.kind)] = self.text.value(claimed)
        return base


class _Item:
    """An output item being built from events."""

    __slots__ = (
        "annotations",
        "args",
        "closed",
        "content",
        "done_item",
        "event_index",
        "id",
        "item",
        "line",
        "output_index",
        "summary",
        "type",
    )

    def __init__(self, item: dict[str, Any], output_index: int, ev: StreamEvent) -> None:
        self.item = item
        self.id = item.get("id")
        self.type = item.get("type")
        self.output_index = output_index
        self.event_index = ev.index
        self.line = ev.line
        self.closed = False
        self.done_item: dict[str, Any] | None = None
        self.content: dict[int, _Part] = {}
        self.summary: dict[int, _Part] = {}
        self.annotations: dict[int, dict[int, Any]] = {}
        self.args = _Text(item.get("arguments"))

    def build(self, claimed: bool = False) -> dict[str, Any]:
        """The item as the events describe it; `claimed` uses done values that disagreed."""
        out = dict(self.item)
        if self.type == "function_call":
            out["arguments"] = self.args.value(claimed)
        if self.content:
            out["content"] = [self._content_part(ci, claimed) for ci in sorted(self.content)]
        if self.summary:
            out["summary"] = [self.summary[si].build(claimed) for si in sorted(self.summary)]
        return out

    def _content_part(self, ci: int, claimed: bool) -> dict[str, Any]:
        part = self.content[ci].build(claimed)
        notes = self.annotations.get(ci)
        if notes:
            part["annotations"] = [notes[k] for k in sorted(notes)]
        return part


class _Response:
    """A response being reduced."""

    def __init__(self, index: int, ev: StreamEvent) -> None:
        self.index = index
        self.first_event = ev.index
        self.last_event = ev.index
        self.line = ev.line
        self.response_id: str | None = None
        self.status = "none"
        self.terminal_event: StreamEvent | None = None
        self.ended = False  # terminal event seen, or closed by [DONE] without one
        self.phase = 0  # 0 nothing, 1 created, 2 queued, 3 in_progress
        self.snapshot: dict[str, Any] | None = None
        self.last_response: dict[str, Any] | None = None
        self.items_by_id: dict[Any, _Item] = {}
        self.items_by_index: dict[int, _Item] = {}
        self.counts: dict[str, int] = {}
        self.extensions: list[ExtensionRecord] = []
        self.done_sentinel = False
        self.not_started_reported = False
        self.last_seq: int | None = None
        self.summaries: dict[tuple[str, str], list[Any]] = {}  # (code, type) → [event, count]

    def result(self) -> ResponseResult:
        """Freeze the response into its result."""
        items = [self.items_by_index[oi] for oi in sorted(self.items_by_index)]
        return ResponseResult(
            index=self.index,
            response_id=self.response_id,
            status=self.status,
            first_event=self.first_event,
            last_event=self.last_event,
            line=self.line,
            terminal_event=self.terminal_event.index if self.terminal_event else None,
            items=tuple(
                OutputItem(it.output_index, it.event_index, it.line, it.closed, it.build())
                for it in items
            ),
            snapshot=self.snapshot,
            last_response=self.last_response,
            event_counts=tuple(self.counts.items()),
            extensions=tuple(self.extensions),
            done_sentinel=self.done_sentinel,
        )


def _seq_of(ev: StreamEvent) -> int | None:
    data = ev.data
    if type(data) is dict:
        seq = data.get("sequence_number")
        if type(seq) is int:
            return seq
    return None


def _norm_parts(parts: Any) -> list[tuple[Any, Any]]:
    if not isinstance(parts, list):
        return []
    out = []
    for p in parts:
        if isinstance(p, dict):
            kind = p.get("type")
            out.append((kind, p.get(_part_text_field(kind))))
        else:
            out.append((None, p))
    return out


#: Opaque blobs the provider re-issues on every emission: a real OpenAI stream's terminal
#: snapshot carries another `encrypted_content` than its output_item.done (the same reasoning).
_OPAQUE = frozenset({"encrypted_content"})


def item_differences(
    built: Mapping[str, Any], other: Any, *, status: bool = True, others: bool = True
) -> list[str]:
    """Return the fields in which `other` disagrees with the event-built item.

    `others`: also every other field both carry (only once the item is done: before, what
    nothing streams is only on the done item, which is authoritative for it).
    """
    if not isinstance(other, dict):
        return ["(not an object)"]
    diffs = []
    for key in ("type", "id") + (("status",) if status else ()):
        if key in built and key in other and built[key] != other[key]:
            diffs.append(key)
    kind = built.get("type")
    if kind == "function_call":
        diffs.extend(k for k in ("name", "call_id", "arguments") if built.get(k) != other.get(k))
    elif kind == "message":
        if _norm_parts(built.get("content")) != _norm_parts(other.get("content")):
            diffs.append("content")
    elif kind == "reasoning":
        for key in ("summary", "content"):
            if _norm_parts(built.get(key)) != _norm_parts(other.get(key)):
                diffs.append(key)
    if not others:
        return diffs
    # Every other field both carry (a hosted call's arguments or output, …) must agree too.
    seen = {"type", "id", "status", "content", "summary", *diffs, *_OPAQUE}
    if kind == "function_call":
        seen.update(("name", "call_id", "arguments"))
    diffs.extend(
        key for key in built if key not in seen and key in other and built[key] != other[key]
    )
    return diffs


class _Reducer:
    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.violations: list[Violation] = []
        self.kept_kinds: set[tuple[str, Severity]] = set()  # (code, severity) of a kept one
        self.more: dict[tuple[str, Severity], int] = {}  # counted past VIOLATIONS_KEPT
        self.responses: list[_Response] = []
        self.current: _Response | None = None
        self.pending_error: StreamEvent | None = None
        self.first_unnumbered: StreamEvent | None = None  # first event without sequence_number
        self.unnumbered = 0
        self.seq_present = 0
        self.framing = "sse"
        # Event type → (handler, fields it requires with their JSON types).
        self.handlers: dict[str, tuple[Callable[..., None], _Fields]] = {
            "response.created": (self._lifecycle, ()),
            "response.queued": (self._lifecycle, ()),
            "response.in_progress": (self._lifecycle, ()),
            "response.completed": (self._terminal, ()),
            "response.incomplete": (self._terminal, ()),
            "response.failed": (self._terminal, ()),
            "response.output_item.added": (self._item_added, (_OI, ("item", dict))),
            "response.output_item.done": (self._item_done, (_OI, ("item", dict))),
            "response.output_text.annotation.added": (
                self._annotation,
                (_IID, _OI, _PART_KEYS["content_index"], ("annotation_index", int)),
            ),
            "response.function_call_arguments.delta": (self._args_delta, (_IID, _OI, _DELTA)),
            "response.function_call_arguments.done": (
                self._args_done,
                (_IID, _OI, ("arguments", str)),
            ),
            "error": (self._error, ()),
        }
        for prefix, key in (
            ("response.content_part", "content_index"),
            ("response.reasoning_summary_part", "summary_index"),
        ):
            fields = (_IID, _OI, _PART_KEYS[key], ("part", dict))
            self.handlers[prefix + ".added"] = (partial(self._part_added, key=key), fields)
            self.handlers[prefix + ".done"] = (partial(self._part_done, key=key), fields)
        for prefix, key, kind, field in _TEXT_STREAMS:
            where = (_IID, _OI, _PART_KEYS[key])
            self.handlers[prefix + ".delta"] = (
                partial(self._text_delta, key=key, kind=kind),
                (*where, _DELTA),
            )
            self.handlers[prefix + ".done"] = (
                partial(self._text_done, key=key, kind=kind, field=field),
                (*where, (field, str)),
            )

    # -- reporting ------------------------------------------------------------------------

    def report(
        self,
        code: str,
        ev: StreamEvent | None,
        message: str,
        severity: Severity | str | None = None,
    ) -> None:
        """Record one violation at an event, with its code's registered severity unless given."""
        severity = severity_of(code) if severity is None else Severity(severity)
        kind = (code, severity)
        if len(self.violations) >= VIOLATIONS_KEPT and kind in self.kept_kinds:
            self.more[kind] = self.more.get(kind, 0) + 1
            return
        self.kept_kinds.add(kind)
        # Indexes and sequence numbers come from the file: a 5,000-digit one is shown by length.
        message = shorten_digits(message)
        self.violations.append(
            Violation(
                code,
                severity,
                ev.index if ev is not None else None,
                _seq_of(ev) if ev is not None else None,
                ev.line if ev is not None else None,
                message,
            )
        )

    def summarise(self, resp: _Response, code: str, kind: str, ev: StreamEvent) -> None:
        """Count an event reported once per type and response (at its first occurrence)."""
        entry = resp.summaries.get((code, kind))
        if entry is None:
            resp.summaries[(code, kind)] = [ev, 1]
        else:
            entry[1] += 1

    # -- driver -------------------------------------------------------------------------------

    def run(self, events: Iterable[StreamEvent]) -> StreamResult:
        """Apply every event, close the last response and freeze the result."""
        count = 0
        last: StreamEvent | None = None
        handlers = self.handlers
        for ev in events:
            count += 1
            last = ev
            if ev.framing != "sse":
                self.framing = ev.framing
            if ev.done:
                self._done_sentinel(ev)
                continue
            if ev.invalid_utf8:
                self.report("invalid_utf8", ev, "data is not valid UTF-8 (replaced)")
            data = ev.data
            if type(data) is not dict:
                self._malformed_data(ev)
                continue
            kind = data.get("type")
            if type(kind) is not str or not kind:
                self._malformed(ev, "the event has no `type` string")
                continue
            if ev.name is not None and ev.name != kind:
                self.report(
                    "event_name_mismatch", ev, f"`event: {ev.name}` but data.type is {kind!r}"
                )
            resp = self.current
            if resp is None or kind in _OPENERS:
                resp = self._response_for(ev, kind)
            # The common case inline: the next number of an open response.
            seq = data.get("sequence_number")
            if (
                resp is not None
                and resp.last_seq is not None
                and seq == resp.last_seq + 1
                and type(seq) is int
            ):
                resp.last_seq = seq
                self.seq_present += 1
            else:
                self._sequence(ev, data, resp)
            if resp is not None:
                resp.last_event = ev.index
                resp.counts[kind] = resp.counts.get(kind, 0) + 1
                if resp.ended and kind != "error":
                    self._after_terminal(ev, resp, kind)
                    continue
            entry = handlers.get(kind)
            if entry is None:
                self._outside_catalogue(ev, data, kind, resp)
                continue
            if resp is not None and kind in _VENDOR_ALIASES:
                self.summarise(resp, "vendor_event", kind, ev)
            handler, required = entry
            for name, json_type in required:
                if type(data.get(name)) is not json_type:
                    self._bad_fields(ev, data, kind, required)
                    break
            else:
                handler(ev, data, resp)
        if self.current is not None:
            self._end_response(self.current, last)
        if self.pending_error is not None:
            self._error_unfailed(self.pending_error, "the stream ended")
        self._sequence_summary()
        self.violations.sort(key=lambda v: (v.event_index is None, v.event_index or 0))
        results = tuple(r.result() for r in self.responses)
        return StreamResult(
            responses=results,
            status=results[-1].status if results else "none",
            events=count,
            violations=tuple(self.violations),
            strict=self.strict,
            framing=self.framing,
            more=tuple((code, severity, n) for (code, severity), n in self.more.items()),
        )

    def _outside_catalogue(
        self, ev: StreamEvent, data: dict[str, Any], kind: str, resp: _Response | None
    ) -> None:
        if ":" in kind:
            self._extension(ev, data, kind, resp)
        elif _VENDOR_EVENT.fullmatch(kind):
            if resp is not None:
                self.summarise(resp, "vendor_event", kind, ev)
            self._vendor(ev, data, resp)
        else:
            self.report(
                "unknown_event",
                ev,
                f"unknown event type {kind!r} (not in the 2026-04-24 catalogue and not "
                "slug-prefixed)",
                "error" if self.strict else "warning",
            )

    def _malformed(self, ev: StreamEvent, message: str) -> None:
        self.report("malformed_event", ev, message)

    def _malformed_data(self, ev: StreamEvent) -> None:
        if ev.parse_error is not None:
            self._malformed(ev, f"data is not usable JSON: {ev.parse_error}")
        else:
            self._malformed(ev, f"data is a JSON {type(ev.data).__name__}, not an object")

    def _bad_fields(
        self, ev: StreamEvent, data: dict[str, Any], kind: str, required: _Fields
    ) -> None:
        detail = ", ".join(
            f"`{name}` " + ("missing" if name not in data else f"is {type(data[name]).__name__}")
            for name, json_type in required
            if type(data.get(name)) is not json_type
        )
        self._malformed(ev, f"{kind}: {detail}")

    # -- responses and sequence numbers -----------------------------------------------------

    def _response_for(self, ev: StreamEvent, kind: str) -> _Response | None:
        cur = self.current
        if kind == "response.created" or (kind in _OPENERS and (cur is None or cur.ended)):
            if cur is not None and not cur.ended:
                self._end_response(cur, ev, interrupted_by=ev)
            elif cur is not None:
                self._end_response(cur, ev)
            if self.pending_error is not None and kind != "response.failed":
                self._error_unfailed(self.pending_error, f"{kind} started a new response")
            return self._open(ev)
        if cur is None:
            if kind == "error" or ":" in kind:
                return None
            resp = self._open(ev)
            resp.not_started_reported = True
            self.report(
                "response_not_started", ev, f"{kind} before response.created / queued / in_progress"
            )
            return resp
        return cur

    def _open(self, ev: StreamEvent) -> _Response:
        resp = _Response(len(self.responses), ev)
        self.responses.append(resp)
        self.current = resp
        return resp

    def _sequence(self, ev: StreamEvent, data: dict[str, Any], resp: _Response | None) -> None:
        if "sequence_number" not in data:
            if self.first_unnumbered is None:
                self.first_unnumbered = ev
            self.unnumbered += 1
            return
        seq = data["sequence_number"]
        if type(seq) is not int:
            self._malformed(ev, f"sequence_number is a {type(seq).__name__}, not an integer")
            return
        self.seq_present += 1
        if resp is None:
            return
        last = resp.last_seq
        if last is None:
            if seq != 0:
                self.report(
                    "stream_resumed",
                    ev,
                    f"numbering starts at {seq}: events 0..{seq - 1} are not in the recording "
                    "(a resumed stream)"
                    if seq > 0
                    else f"numbering starts at {seq}",
                )
            resp.last_seq = seq
        elif seq <= last:
            self.report(
                "sequence_not_increasing",
                ev,
                f"sequence_number {seq} after {last}"
                + (" (duplicate)" if seq == last else " (goes back)"),
            )
        else:
            if seq != last + 1:
                missing = seq - last - 1
                self.report(
                    "sequence_gap",
                    ev,
                    f"sequence_number jumps from {last} to {seq}: "
                    f"{missing} event{'s' if missing != 1 else ''} missing",
                )
            resp.last_seq = seq

    def _sequence_summary(self) -> None:
        first, missing = self.first_unnumbered, self.unnumbered
        if not missing:
            return
        total = missing + self.seq_present
        if self.seq_present:
            self.report(
                "missing_sequence_number",
                first,
                f"{missing} of {total} events have no sequence_number while the others do",
            )
        else:
            self.report(
                "missing_sequence_number",
                first,
                f"none of the {total} events has a sequence_number (required since the "
                "2026-04-24 schema; early 2025 streams lack it): order and gaps cannot be checked",
                Severity.WARNING,
            )

    def _after_terminal(self, ev: StreamEvent, resp: _Response, kind: str) -> None:
        why = (
            f"after {resp.terminal_event.data.get('type')} (event {resp.terminal_event.index})"
            if resp.terminal_event is not None
            else "after data: [DONE]"
        )
        self.report("event_after_terminal", ev, f"{kind} {why}: not applied")

    def _done_sentinel(self, ev: StreamEvent) -> None:
        resp = self.current
        if resp is None:
            if not self.responses:
                # `[DONE]` alone, or before the first event: a stream with no response.
                self.report(
                    "response_not_started", ev, "data: [DONE] before any response was opened"
                )
            return
        resp.counts["[DONE]"] = resp.counts.get("[DONE]", 0) + 1
        resp.last_event = ev.index
        if resp.done_sentinel:
            self.report("event_after_terminal", ev, "a second data: [DONE]", Severity.WARNING)
            return
        resp.done_sentinel = True
        if not resp.ended:
            self._missing_terminal(resp, ev, "data: [DONE] arrived")
            resp.ended = True

    def _end_response(
        self, resp: _Response, last: StreamEvent | None, interrupted_by: StreamEvent | None = None
    ) -> None:
        """Close a response at EOF or when the next one starts."""
        if not resp.ended:
            if interrupted_by is not None:
                self._missing_terminal(resp, interrupted_by, "a new response.created arrived")
            else:
                self._missing_terminal(resp, last, "the stream ended")
            resp.ended = True
        elif self.framing == "sse" and not resp.done_sentinel and resp.terminal_event is not None:
            self.report(
                "missing_done_sentinel",
                resp.terminal_event,
                "no data: [DONE] after the terminal event (the specification ends each stream "
                "with it)",
            )
        for (code, kind), (first, count) in resp.summaries.items():
            if code == "vendor_event":
                self.report(
                    code,
                    first,
                    f"{kind} ×{count}: provider event outside the 2026-04-24 catalogue "
                    "(unprefixed); kept opaque",
                    "warning" if self.strict else "info",
                )
            else:
                self.report(
                    code,
                    first,
                    f"{kind} ×{count}: extension event, kept as an opaque record",
                    Severity.INFO,
                )

    def _missing_terminal(self, resp: _Response, ev: StreamEvent | None, why: str) -> None:
        open_items = [it for it in resp.items_by_index.values() if not it.closed]
        detail = (
            "; open items: " + ", ".join(f"#{it.output_index} {it.id}" for it in open_items)
            if open_items
            else ""
        )
        self.report(
            "missing_terminal",
            ev,
            f"{why} before response.completed / incomplete / failed: the items are a partial "
            f"snapshot{detail}",
        )

    # -- lifecycle events -------------------------------------------------------------------

    def _take_snapshot(
        self, ev: StreamEvent, data: dict[str, Any], resp: _Response
    ) -> dict[str, Any] | None:
        snap = data.get("response")
        if not isinstance(snap, dict):
            self._malformed(ev, f"{data['type']} without a `response` object")
            return None
        resp.last_response = snap
        rid = snap.get("id")
        if isinstance(rid, str):
            if resp.response_id is None:
                resp.response_id = rid
            elif rid != resp.response_id:
                self.report(
                    "snapshot_mismatch",
                    ev,
                    f"response id {rid!r} differs from {resp.response_id!r} earlier in this "
                    "response",
                )
        return snap

    def _lifecycle(self, ev: StreamEvent, data: dict[str, Any], resp: _Response | None) -> None:
        assert resp is not None  # lifecycle events always open or continue a response
        self._take_snapshot(ev, data, resp)
        kind = data["type"]
        phase = _PHASES.index(kind)
        if phase <= resp.phase:
            self.report("response_out_of_order", ev, f"{kind} after {_PHASES[resp.phase]}")
        elif resp.items_by_index:
            self.report("response_out_of_order", ev, f"{kind} after output items")
        resp.phase = max(resp.phase, phase)

    def _terminal(self, ev: StreamEvent, data: dict[str, Any], resp: _Response | None) -> None:
        assert resp is not None
        kind = data["type"]
        status = TERMINAL_EVENTS[kind]
        snap = self._take_snapshot(ev, data, resp)
        if kind != "response.failed" and resp.phase < 3 and not resp.not_started_reported:
            self.report("response_out_of_order", ev, f"{kind} without response.in_progress")
        resp.status = status
        resp.terminal_event = ev
        resp.ended = True
        resp.snapshot = snap
        if snap is not None and snap.get("status") != status:
            self.report(
                "snapshot_mismatch", ev, f"{kind} carries response.status {snap.get('status')!r}"
            )
        if self.pending_error is not None:
            if status == "failed":
                self.pending_error = None
            else:
                self._error_unfailed(self.pending_error, f"the response ended {status}")
        self._check_terminal_items(ev, resp, status, snap)

    def _check_terminal_items(
        self, ev: StreamEvent, resp: _Response, status: str, snap: dict[str, Any] | None
    ) -> None:
        items = [resp.items_by_index[oi] for oi in sorted(resp.items_by_index)]
        last_index = items[-1].output_index if items else None
        for it in items:
            if not it.closed:
                portable = isinstance(it.type, str) and it.type in PORTABLE_CORE
                severity = (
                    Severity.ERROR if status == "completed" and portable else Severity.WARNING
                )
                self.report(
                    "open_item_at_completion",
                    ev,
                    f"item #{it.output_index} {it.type} {it.id} was never done "
                    f"(no output_item.done) when the response ended {status}",
                    severity,
                )
            elif it.item.get("status") == "incomplete":
                if it.output_index != last_index:
                    self.report(
                        "incomplete_item_not_last",
                        ev,
                        f"item #{it.output_index} {it.id} is incomplete but not the last item",
                    )
                if status == "completed":
                    self.report(
                        "incomplete_item_in_completed_response",
                        ev,
                        f"item #{it.output_index} {it.id} is incomplete in a completed response",
                    )
        output = snap.get("output") if snap is not None else None
        if not isinstance(output, list):
            if items:
                self.report("snapshot_mismatch", ev, "the terminal response has no output list")
            return
        for position, it in enumerate(items):
            if position >= len(output):
                self.report(
                    "snapshot_mismatch",
                    ev,
                    f"item #{it.output_index} {it.id} is missing from the terminal output",
                )
                continue
            other = output[position]
            closed = it.closed
            diffs = item_differences(it.build(), other, status=closed, others=closed)
            if diffs:
                earlier = it.done_item if it.done_item is not None else it.build(True)
                diffs = _common(
                    diffs, item_differences(earlier, other, status=closed, others=closed)
                )
            if diffs:
                self.report(
                    "snapshot_mismatch",
                    ev,
                    f"terminal output[{position}] differs from item #{it.output_index} "
                    f"{it.id} built from the events in: {', '.join(diffs)}",
                )
        for position in range(len(items), len(output)):
            other = output[position]
            oid = other.get("id") if isinstance(other, dict) else None
            self.report(
                "snapshot_mismatch",
                ev,
                f"terminal output[{position}] ({effective_type(other)} {oid}) was never streamed",
            )

    def _error(self, ev: StreamEvent, data: dict[str, Any], resp: _Response | None) -> None:
        if not isinstance(data.get("error"), dict) and not isinstance(data.get("message"), str):
            self._malformed(ev, "error event without an `error` object")
        if resp is not None and resp.ended:
            self._after_terminal(ev, resp, "error")
            return
        if self.pending_error is None:
            self.pending_error = ev

    def _error_unfailed(self, ev: StreamEvent, why: str) -> None:
        self.pending_error = None
        self.report(
            "error_without_failed", ev, f"error event not followed by response.failed ({why})"
        )

    # -- items ------------------------------------------------------------------------------

    def _item_added(self, ev: StreamEvent, data: dict[str, Any], resp: _Response | None) -> None:
        assert resp is not None
        oi = data["output_index"]
        item = data["item"]
        iid = item.get("id")
        if iid is not None and not isinstance(iid, str):
            self._malformed(ev, f"output item at output_index {oi} has an id that is not a string")
            return
        if iid is not None and iid in resp.items_by_id:
            self.report("duplicate_item", ev, f"item id {iid!r} was already added")
            return
        if oi in resp.items_by_index:
            other = resp.items_by_index[oi]
            self.report(
                "duplicate_item",
                ev,
                f"output_index {oi} already holds {other.id!r} (event {other.event_index})",
            )
            return
        if not isinstance(iid, str):
            self._malformed(ev, f"output item at output_index {oi} has no string id")
        state = _Item(item, oi, ev)
        resp.items_by_index[oi] = state
        if iid is not None:
            resp.items_by_id[iid] = state

    def _item_done(self, ev: StreamEvent, data: dict[str, Any], resp: _Response | None) -> None:
        assert resp is not None
        oi = data["output_index"]
        item = data["item"]
        iid = item.get("id")
        state = resp.items_by_id.get(iid) if isinstance(iid, str) else None
        if state is None:
            state = resp.items_by_index.get(oi)
            if state is None:
                self.report(
                    "unknown_item",
                    ev,
                    f"output_item.done for {iid!r} at output_index {oi}, never added",
                )
                return
        elif state.output_index != oi:
            self._index_mismatch(ev, state, oi)
        if state.closed:
            self.report("item_closed", ev, f"item {state.id!r} was already done")
            return
        for label, parts in (("content part", state.content), ("summary part", state.summary)):
            for index, part in parts.items():
                if not part.closed:
                    self.report(
                        "open_content_part",
                        ev,
                        f"{label} {index} of {state.id!r} was not done before output_item.done",
                    )
        built = state.build()
        # Done is where status changes, and the item's other fields arrive.
        diffs = item_differences(built, item, status=False, others=False)
        if diffs:
            # A disagreement already reported at a text/arguments .done is not reported again.
            claimed = state.build(True)
            diffs = _common(diffs, item_differences(claimed, item, status=False, others=False))
        if diffs:
            self.report(
                "snapshot_mismatch",
                ev,
                f"output_item.done for {state.id!r} differs from what the events built in: "
                f"{', '.join(diffs)}",
            )
        # The done item carries the fields nothing streams (status, encrypted_content, hosted
        # tool results); what was streamed stays as built. Type and id keep the added values.
        merged = dict(item)
        for key in ("type", "id", "content", "summary", "arguments"):
            if key == "arguments" and state.type != "function_call":
                continue  # only a function_call's arguments are built from deltas (mcp_call's
                # come whole with the done item, which is authoritative for them)
            if key in ("content", "summary") and isinstance(built.get(key), list):
                merged[key] = _with_done_fields(built[key], item.get(key))
            elif key in built:
                merged[key] = built[key]
        state.item = merged
        state.done_item = item
        state.closed = True

    def _index_mismatch(self, ev: StreamEvent, state: _Item, oi: Any) -> None:
        self.report(
            "item_index_mismatch",
            ev,
            f"item {state.id!r} is at output_index {state.output_index}, the event says {oi}",
        )

    def _open_item(
        self, ev: StreamEvent, data: dict[str, Any], resp: _Response | None
    ) -> _Item | None:
        """The open item an event names, or None after reporting why not."""
        assert resp is not None
        iid = data["item_id"]
        state = resp.items_by_id.get(iid)
        if state is None:
            self.report("unknown_item", ev, f"{data['type']} for item {iid!r}, never added")
            return None
        if state.output_index != data["output_index"]:
            self._index_mismatch(ev, state, data["output_index"])
        if state.closed:
            self.report(
                "item_closed", ev, f"{data['type']} for item {iid!r} after its output_item.done"
            )
            return None
        return state

    # -- content parts ----------------------------------------------------------------------

    def _part_added(
        self, ev: StreamEvent, data: dict[str, Any], resp: _Response | None, *, key: str
    ) -> None:
        state = self._open_item(ev, data, resp)
        if state is None:
            return
        parts = state.content if key == "content_index" else state.summary
        index = data[key]
        if index in parts:
            self.report(
                "duplicate_content_part", ev, f"{key} {index} of {state.id!r} was already added"
            )
            return
        parts[index] = _Part(data["part"])

    def _part(
        self,
        ev: StreamEvent,
        data: dict[str, Any],
        resp: _Response | None,
        key: str,
        kind: str | None,
    ) -> _Part | None:
        """The open part an event names (checked against the part type it streams into)."""
        state = self._open_item(ev, data, resp)
        if state is None:
            return None
        parts = state.content if key == "content_index" else state.summary
        index = data[key]
        part = parts.get(index)
        if part is None or (kind is not None and part.kind != kind):
            what = f"{kind} part" if kind else "part"
            found = f" (it is {part.kind!r})" if part is not None else ""
            self.report(
                "unknown_content_part",
                ev,
                f"{data['type']}: no {what} at {key} {index} of {state.id!r}{found}",
            )
            return None
        if part.closed:
            self.report(
                "item_closed",
                ev,
                f"{data['type']} for {key} {index} of {state.id!r} after its part was done",
            )
            return None
        return part

    def _part_done(
        self, ev: StreamEvent, data: dict[str, Any], resp: _Response | None, *, key: str
    ) -> None:
        part = self._part(ev, data, resp, key, None)
        if part is None:
            return
        done = data["part"]
        final = done.get(_part_text_field(part.kind))
        if done.get("type") != part.kind:
            self.report(
                "snapshot_mismatch",
                ev,
                f"{data['type']} part type {done.get('type')!r}, added as {part.kind!r}",
            )
        elif isinstance(final, str):
            self._settle(ev, data, part.text, final, "text_mismatch")
        part.done_part = done
        part.closed = True

    def _settle(
        self, ev: StreamEvent, data: dict[str, Any], text: _Text, final: str, code: str
    ) -> None:
        built = text.value()
        if not text.settle(final):
            self.report(
                code,
                ev,
                f"{data['type']}: the deltas give {len(built)} characters {_clip(built)!r}, "
                f"the done value has {len(final)} {_clip(final)!r}"
                f"{_first_difference(built, final)}",
                Severity.ERROR,
            )

    def _delta(self, ev: StreamEvent, data: dict[str, Any], text: _Text | None) -> None:
        if text is None:
            return
        if text.done:
            self.report("item_closed", ev, f"{data['type']} after its .done event")
            return
        text.chunks.append(data["delta"])
        text.streamed = True

    def _text_end(
        self, ev: StreamEvent, data: dict[str, Any], text: _Text | None, field: str, code: str
    ) -> None:
        if text is None:
            return
        if text.done:
            self.report("item_closed", ev, f"a second {data['type']}")
            return
        self._settle(ev, data, text, data[field], code)
        text.done = True

    def _text_delta(
        self, ev: StreamEvent, data: dict[str, Any], resp: _Response | None, *, key: str, kind: str
    ) -> None:
        part = self._part(ev, data, resp, key, kind)
        self._delta(ev, data, part.text if part is not None else None)

    def _text_done(
        self,
        ev: StreamEvent,
        data: dict[str, Any],
        resp: _Response | None,
        *,
        key: str,
        kind: str,
        field: str,
    ) -> None:
        part = self._part(ev, data, resp, key, kind)
        self._text_end(ev, data, part.text if part is not None else None, field, "text_mismatch")

    def _annotation(self, ev: StreamEvent, data: dict[str, Any], resp: _Response | None) -> None:
        part = self._part(ev, data, resp, "content_index", "output_text")
        if part is None:
            return
        state = resp.items_by_id[data["item_id"]]  # type: ignore[union-attr]
        notes = state.annotations.setdefault(data["content_index"], {})
        index = data["annotation_index"]
        if index in notes:
            self.report(
                "duplicate_content_part",
                ev,
                f"annotation {index} of content part {data['content_index']} was already added",
            )
            return
        notes[index] = data.get("annotation")

    # -- function call arguments --------------------------------------------------------------

    def _args(self, ev: StreamEvent, data: dict[str, Any], resp: _Response | None) -> _Text | None:
        state = self._open_item(ev, data, resp)
        if state is None:
            return None
        if state.type != "function_call":
            self.report(
                "unknown_item",
                ev,
                f"{data['type']}: item {state.id!r} is a {state.type}, not a function_call",
            )
            return None
        return state.args

    def _args_delta(self, ev: StreamEvent, data: dict[str, Any], resp: _Response | None) -> None:
        self._delta(ev, data, self._args(ev, data, resp))

    def _args_done(self, ev: StreamEvent, data: dict[str, Any], resp: _Response | None) -> None:
        self._text_end(ev, data, self._args(ev, data, resp), "arguments", "arguments_mismatch")

    # -- events outside the catalogue ---------------------------------------------------------

    def _vendor(self, ev: StreamEvent, data: dict[str, Any], resp: _Response | None) -> None:
        iid = data.get("item_id")
        if resp is None or not isinstance(iid, str):
            return
        state = resp.items_by_id.get(iid)
        if state is None:
            self.report("unknown_item", ev, f"{data['type']} for item {iid!r}, never added")
        elif state.closed:
            self.report(
                "item_closed", ev, f"{data['type']} for item {iid!r} after its output_item.done"
            )

    def _extension(
        self, ev: StreamEvent, data: dict[str, Any], kind: str, resp: _Response | None
    ) -> None:
        if resp is None:
            # An extension before any response: keep it with the next one that opens.
            resp = self.current
        if resp is None:
            self.report("extension_event", ev, f"{kind}: extension event, kept opaque")
            return
        self.summarise(resp, "extension_event", kind, ev)
        seq = data.get("sequence_number")
        resp.extensions.append(
            ExtensionRecord(ev.index, ev.line, kind, seq if type(seq) is int else None, data)
        )


def _with_done_fields(built: list[Any], done: Any) -> list[Any]:
    """Built parts, with the fields only the done item has (a part's `logprobs`, …) filled in.

    The streamed text stays as built; a field the events left empty takes the done value.
    """
    if not isinstance(done, list):
        return built
    out = []
    for position, part in enumerate(built):
        other = done[position] if position < len(done) else None
        if isinstance(part, dict) and isinstance(other, dict):
            part = {**other, **{k: v for k, v in part.items() if not _empty(v) or k not in other}}
        out.append(part)
    return out


def _empty(value: Any) -> bool:
    return value is None or value == [] or value == {}


def _common(first: list[str], second: list[str]) -> list[str]:
    return [d for d in first if d in second]


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first_difference(a: str, b: str) -> str:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f" (first difference at character {i})"
    return f" (one is a prefix of the other; lengths {len(a)} and {len(b)})"


def reduce_stream(events: Iterable[StreamEvent], *, strict: bool = False) -> StreamResult:
    """Reduce streaming events to per-response snapshots and every lifecycle violation."""
    return _Reducer(strict).run(events)


# --------------------------------------------------------------------------------------------
# Transcript
