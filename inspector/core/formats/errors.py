"""Provider HTTP error bodies (`{"error": {...}}`, or `{"error": "text"}` alone): a group with the
error, no items."""

from __future__ import annotations

from typing import Any

from inspector.core.formats._records import Builder, Detection, Record
from inspector.core.formats.spec import FormatSpec
from inspector.core.model import Origin

KINDS = {"error": "error"}


def detect(obj: Any) -> Detection | None:
    """Score a parsed value as an error body, or None."""
    if (
        isinstance(obj, dict)
        and isinstance(obj.get("error"), dict)
        and not ({"output", "input", "type"} & obj.keys())
    ):
        return 75, "error"
    # Ollama's and LM Studio's shape: the message alone (https://docs.ollama.com/api/errors; LM
    # Studio answers a path it does not serve so, samples/sessions/har/lmstudio-polly.har).
    if isinstance(obj, dict) and len(obj) == 1 and isinstance(obj.get("error"), str):
        return 75, "error"
    return None


def load(b: Builder, record: Record, kind: str) -> None:
    """Add the error body as a group of its own."""
    b.group("error", Origin(b.path, record.line, record.base), error=record.obj.get("error"))


FORMAT = FormatSpec(
    name="error",
    label="provider error body",
    kinds=KINDS,
    detect=detect,
    load=load,
    accepts="an error body",
)
