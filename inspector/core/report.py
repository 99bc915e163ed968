"""JSON renderings of core results: the documents the CLI prints and the GUI exports."""

from __future__ import annotations

from typing import Any

from inspector.core.gate import GateResult
from inspector.core.model import LoadError, Transcript


def item_rows(result: GateResult) -> list[dict[str, Any]]:
    """Return one JSON object per item: identity, verdict, detail, schema errors, source."""
    rows = []
    for item, verdict in zip(result.transcript.items, result.verdicts, strict=True):
        rows.append(
            {
                "index": item.index,
                "type": item.type if isinstance(item.type, str) else item.type_label,
                "id": item.id,
                "call_id": item.call_id,
                "name": item.name,
                "role": item.role,
                "status": item.status,
                "verdict": str(verdict.verdict),
                "detail": verdict.detail,
                "errors": [e.to_json() for e in verdict.errors],
                "source": {
                    "line": item.origin.line,
                    "pointer": item.origin.pointer,
                    **(
                        {"event_index": item.origin.event_index}
                        if item.origin.event_index is not None
                        else {}
                    ),
                },
                "envelope": str(item.envelope),
            }
        )
    return rows


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


def gate_document(path: str, result: GateResult) -> dict[str, Any]:
    """Return the JSON object for one gated file."""
    info = transcript_info(result.transcript)
    document: dict[str, Any] = {
        "path": path,
        "format": info["format"],
        "items": item_rows(result),
        "findings": [f.to_json() for f in result.findings],
        "summary": result.summary(),
        "groups": info["groups"],
        "tools": info["tools"],
    }
    stream = result.transcript.stream
    if stream is not None:
        document["stream"] = stream.to_json()
    return document


def error_document(path: str, error: LoadError) -> dict[str, Any]:
    """Return the JSON object for a file that could not be read."""
    return {"path": path, "error": error.to_json()}
