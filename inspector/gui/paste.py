"""What pasted text is: items or a transcript, a bare arguments object, or a tool schema.

Qt-free; the loaders and classifier of the core decide, this module only routes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inspector.core.formats import classify
from inspector.core.jsonio import load_json
from inspector.core.model import LoadError
from inspector.gui.json_text import pretty


class PasteKind(StrEnum):
    """Where pasted text goes."""

    TRANSCRIPT = "transcript"
    ARGUMENTS = "arguments"
    SCHEMA = "schema"


@dataclass(frozen=True, slots=True)
class Pasted:
    """Pasted text routed: its kind, the text for the target box, and a tool name if known."""

    kind: PasteKind
    text: str
    tool: str | None = None


def _looks_like_schema(value: dict[str, Any]) -> bool:
    return "$schema" in value or (
        value.get("type") == "object" and isinstance(value.get("properties"), dict)
    )


def route_paste(text: str) -> Pasted:
    """Decide where pasted text belongs (anything unparsable goes to the scratch loader)."""
    try:
        value = load_json(text.strip(), "<pasted>")
    except LoadError:
        # JSONL, an SSE recording, or broken JSON: the loader gives the precise error.
        return Pasted(PasteKind.TRANSCRIPT, text)
    if isinstance(value, dict):
        if value.get("type") == "function" and "parameters" in value:
            name = value.get("name")
            return Pasted(
                PasteKind.SCHEMA,
                pretty(value["parameters"]),
                name if isinstance(name, str) else None,
            )
        if _looks_like_schema(value):
            return Pasted(PasteKind.SCHEMA, text)
        if classify(value) == "unknown":
            return Pasted(PasteKind.ARGUMENTS, text)
    return Pasted(PasteKind.TRANSCRIPT, text)
