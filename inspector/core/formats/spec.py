"""The format contract: what one format module declares, as one frozen `FormatSpec`.

Every format module ends with `FORMAT = FormatSpec(...)`; `formats/__init__.py` lists those in
one tuple and derives everything else from it (labels, the "expected one of …" text, the stream
formats, the kind maps). A spec that breaks the contract raises TypeError when it is made, that
is when its module is imported (a bug in the module, never bad input).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from msgspec import Struct
from msgspec.structs import force_setattr

from inspector.core.formats._records import Builder, Detection, Record
from inspector.core.model import Envelope

if TYPE_CHECKING:
    from inspector.core.stream.events import StreamEvent

__all__ = ["Envelope", "FormatSpec"]


class FormatSpec(Struct, frozen=True, kw_only=True):
    """One input format: its names, envelope, record kinds, detection, loading and stream hooks."""

    #: The transcript format of its records, also its stream dialect (`chat_completions`).
    name: str
    #: The one display name. A format with an envelope takes the envelope's label (leave it out).
    label: str = ""
    #: Record kind → the transcript's format name (`{"chat_request": "chat_completions"}`).
    kinds: Mapping[str, str]
    #: Score a parsed value: `(0–100, kind)` or None (see `_records.CERTAIN`).
    detect: Callable[[Any], Detection | None]
    #: Add one record of a detected kind to the builder.
    load: Callable[[Builder, Record, str], None]
    #: The envelope of its records; None when they are Open Responses (replayable as they are).
    #: A foreign envelope names its gate finding and the finding's wording (see `Envelope`).
    envelope: Envelope | None = None
    #: What the loader accepts of this format, for "expected …"; None: "a <label> record".
    accepts: str | None = None
    #: Its requests declare tools in a shape of their own: a tools file that is one of them is
    #: read through `load` (Gemini `functionDeclarations`, Bedrock `toolConfig.tools`).
    declares_tools: bool = False
    #: Streams of its own: whether events are this format's (True / False / None: cannot tell).
    detect_stream: Callable[[Sequence[StreamEvent]], bool | None] | None = None
    #: Rebuild the final record a stream delivered (needed with `detect_stream`).
    assemble_stream: Callable[[Sequence[StreamEvent], str | None], dict[str, Any]] | None = None
    #: Whether one JSON value is one event of its stream as SDKs record them (one per line).
    is_event: Callable[[Any], bool] | None = None
    #: The kind `detect` gives a whole stream recorded as one JSON array of events or chunks.
    array_stream_kind: str | None = None

    def __post_init__(self) -> None:
        def fail(why: str) -> TypeError:
            return TypeError(f"format {self.name!r}: {why}")

        envelope = self.envelope
        if envelope is not None:
            if self.label and self.label != envelope.label:
                raise fail("its label is its envelope's: leave `label` out")
            force_setattr(self, "label", envelope.label)
            if envelope.name != self.name:
                raise fail(f"its envelope is named {envelope.name!r}, not {self.name!r}")
            if envelope == Envelope.OPEN_RESPONSES:
                raise fail("Open Responses records take envelope=None")
            if not (envelope.finding and envelope.wording):
                raise fail("a foreign envelope needs its gate finding (code and wording)")
        if not self.label:
            raise fail("it has no label (its one display name)")
        if not self.kinds:
            raise fail("it declares no record kinds")
        force_setattr(self, "kinds", MappingProxyType(dict(self.kinds)))
        if (self.detect_stream is None) != (self.assemble_stream is None):
            raise fail("detect_stream and assemble_stream come together")
        if self.detect_stream is not None and envelope is None:
            raise fail("a stream of its own is another API's: it needs an envelope")
        if self.array_stream_kind is not None and self.array_stream_kind not in self.kinds:
            raise fail(f"array_stream_kind {self.array_stream_kind!r} is not one of its kinds")
        if self.array_stream_kind is not None and self.assemble_stream is None:
            raise fail("an array stream needs assemble_stream")

    @property
    def has_stream(self) -> bool:
        """Whether the format has streams of its own (another API's events)."""
        return self.assemble_stream is not None

    @property
    def envelope_wording(self) -> str:
        """How text names a record of this format, with its article (`an Anthropic Messages`)."""
        if self.envelope is not None and self.envelope.wording:
            return self.envelope.wording
        article = "an" if self.label[:1].lower() in "aeiou" else "a"
        return f"{article} {self.label}"
