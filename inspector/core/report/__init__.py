"""JSON renderings of core results: the documents the CLI prints and the GUI exports."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from inspector.core.decision import Decision
from inspector.core.gate import GateResult, ItemVerdict, Verdict
from inspector.core.model import Item, LoadError, Transcript


class Streamed:
    """A JSON array to be written element by element as it is produced, never held whole.

    `nested` says its elements are objects that hold Streamed arrays of their own (at their top
    level); otherwise each element is written at once, without looking inside it.
    """

    __slots__ = ("elements", "encoded", "nested")

    def __init__(
        self, elements: Iterable[Any], *, nested: bool = False, encoded: int | None = None
    ) -> None:
        self.elements = elements
        self.nested = nested
        #: The elements are already encoded for this level of the document: `elements` are
        #: parts, each blocks of bytes, each part some elements as the writer joins them.
        self.encoded = encoded


#: Each verdict's word in JSON output.
_WORDS = {verdict: verdict.value for verdict in Verdict}


def item_rows(result: GateResult) -> Iterator[dict[str, Any]]:
    """Yield one JSON object per item: identity, verdict, detail, schema errors, source."""
    for item, verdict in zip(result.transcript.items, result.verdicts, strict=True):
        yield item_row(item, verdict)


def item_row(item: Item, verdict: ItemVerdict) -> dict[str, Any]:
    """One item's JSON object (see `item_rows`)."""
    kind = item.type
    lean = item.lean_source
    if lean is not None:
        # A lean item's origin is made only to be read here: its line and pointer suffice.
        line, pointer = lean.place(item.index)
        source: dict[str, Any] = {"line": line, "pointer": pointer}
    else:
        origin = item.origin
        source = {"line": origin.line, "pointer": origin.pointer}
        if origin.event_index is not None:
            source["event_index"] = origin.event_index
    errors = verdict.errors
    row: dict[str, Any] = {
        "index": item.index,
        "type": kind if type(kind) is str else item.type_label,
        "id": item.id,
        "call_id": item.call_id,
        "name": item.name,
        "role": item.role,
        "status": item.status,
        "verdict": _WORDS[verdict.verdict],
        "detail": verdict.detail,
        "errors": [e.to_json() for e in errors] if errors else [],
        "source": source,
        "envelope": item.envelope.name,
    }
    if item.conversion is not None:
        # Converted from another API: what was derived (the native block is at `source`).
        row["converted"] = item.conversion.to_json()
    return row


def transcript_info(transcript: Transcript) -> dict[str, Any]:
    """Return the transcript-level facts: format, groups and tools."""
    return {
        "format": transcript.format,
        "groups": [
            {
                "kind": g.kind,
                "envelope": str(g.envelope),
                "status": g.status,
                "line": g.origin.line,
                "response_id": g.response_id,
            }
            for g in transcript.groups
        ],
        "tools": sorted(transcript.tools),
    }


def gate_document(
    path: str, result: GateResult, decision: Decision | None = None, rows: Streamed | None = None
) -> dict[str, Any]:
    """Return the JSON object for one gated file (with its decision, when given).

    `rows`: the item rows, already encoded (a file gated by runs; its transcript has no items).
    """
    info = transcript_info(result.transcript)
    document: dict[str, Any] = {
        "path": path,
        "format": info["format"],
        "items": Streamed(item_rows(result)) if rows is None else rows,
        "findings": [f.to_json() for f in result.findings],
        "summary": result.summary(),
        "groups": info["groups"],
        "tools": info["tools"],
    }
    stream = result.transcript.stream
    if stream is not None:
        document["stream"] = stream.to_json()
    if decision is not None:
        document["replay_safe"] = decision.replay_safe
        document["verdict_summary"] = decision.to_json()
    return document


def error_document(path: str, error: LoadError) -> dict[str, Any]:
    """Return the JSON object for a file that could not be read."""
    return {"path": path, "error": error.to_json()}
