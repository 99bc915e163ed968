"""The conversations of a file as the pane's picker lists them (Qt-free)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from inspector.core.model import Transcript


def conversation_labels(transcripts: Sequence[Transcript]) -> list[str]:
    """One label per conversation: its id and how many items it holds (in file order)."""
    labels = []
    for number, transcript in enumerate(transcripts, start=1):
        name = transcript.conversation or f"conversation {number}"
        count = len(transcript.items)
        labels.append(f"{name} ({count} item{'' if count == 1 else 's'})")
    return labels
