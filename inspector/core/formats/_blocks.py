"""The one block assembler of other APIs' streams: blocks by index, started, added to, stopped.

Anthropic Messages and Bedrock ConverseStream stream a message as content blocks (a start,
deltas, a stop); Chat Completions streams choices and tool calls by index, and Gemini its
candidates, with deltas alone. Each assembler keeps its blocks here, so the lifecycle errors
are said one way and at the event: a block started twice, a delta before its start (where a
start is required), a delta or a stop for a block that is no longer open.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from msgspec import Struct, field

from inspector.core.model import LoadError
from inspector.core.stream.events import StreamEvent, append_text, event_error

T = TypeVar("T")


class Block(Struct):
    """One block being assembled: its value, its streamed texts by key, its latest event."""

    value: dict[str, Any]
    last: StreamEvent
    texts: dict[str, list[str]] = field(default_factory=dict)
    stopped: bool = False

    def append(self, key: str, text: Any) -> None:
        """Collect a streamed text chunk under `key` (non-strings are ignored)."""
        append_text(self.texts, key, text)

    def joined(self, key: str) -> str | None:
        """The text streamed under `key`, or None when none was."""
        parts = self.texts.get(key)
        return None if parts is None else "".join(parts)


class Blocks:
    """The blocks of one streamed record by index, checked as they start, grow and stop.

    `opens_on_delta`: a delta for an unknown index opens it (the API streams no start events
    for such blocks); otherwise a delta before a start is an error.
    """

    def __init__(
        self, path: str | None, what: str = "content block", *, opens_on_delta: bool = False
    ) -> None:
        self.path = path
        self.what = what
        self.opens_on_delta = opens_on_delta
        self._blocks: dict[int, Block] = {}

    def _fail(self, ev: StreamEvent, message: str) -> LoadError:
        return event_error(ev, message, self.path)

    def start(self, ev: StreamEvent, index: int, value: dict[str, Any]) -> Block:
        """Open block `index` with its first value."""
        if index in self._blocks:
            raise self._fail(ev, f"{self.what} {index} started twice")
        block = self._blocks[index] = Block(value, ev)
        return block

    def delta(self, ev: StreamEvent, index: int, new: Callable[[], dict[str, Any]] = dict) -> Block:
        """The open block `index` a delta adds to (opened with `new()` if it may be)."""
        block = self._blocks.get(index)
        if block is None:
            if not self.opens_on_delta:
                raise self._fail(ev, f"delta for {self.what} {index} before its start")
            block = self._blocks[index] = Block(new(), ev)
        elif block.stopped:
            raise self._fail(ev, f"delta for {self.what} {index}, which is not open")
        block.last = ev
        return block

    def stop(self, ev: StreamEvent, index: int) -> Block:
        """Close block `index`."""
        block = self._blocks.get(index)
        if block is None:
            raise self._fail(ev, f"stop for {self.what} {index} before its start")
        if block.stopped:
            raise self._fail(ev, f"stop for {self.what} {index}, which is not open")
        block.stopped = True
        block.last = ev
        return block

    def __len__(self) -> int:
        return len(self._blocks)

    def __iter__(self) -> Iterator[tuple[int, Block]]:
        """The blocks in index order."""
        return iter(sorted(self._blocks.items()))

    def finish(self, build: Callable[[Block], T]) -> list[T]:
        """Build each block's final value, in index order."""
        return [build(block) for _, block in self]
