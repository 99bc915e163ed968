"""The core's vocabulary: every code a result can carry, with its severity and one-line meaning.

A transcript finding, a stream violation, a change within a diff pair, a change to the documents
as a whole, and a target finding each name one code from `CODES`. A code's `severity` is the one it
has unless a rule says otherwise; `also` lists the other severities it may be given, and when (an
orphan output is a warning when the request continues a stored response, for example). Adding a
finding means adding one entry here; `tests/core/test_codes.py` checks that the README's code
tables agree with this registry and that every code is produced somewhere in the test suite.

`Severity` lives here, at the bottom of the layers, so that every module ranks severities the
same way (`Severity.rank`: errors first).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Any, ClassVar


class FrozenValue:
    """Base of a small value: frozen, compared, hashed, pickled and shown by its fields.

    A plain slotted class where a frozen dataclass was (a subclass lists its fields in order
    in `FIELDS`, makes them its `__slots__` and sets them in its own `__init__`): made at
    import for a thirtieth of a dataclass's cost, which every scan worker waits for, with no
    library behind it (the window's first paint imports these modules), and with an `__init__`
    of its own, which tests/codes_seen.py wraps to count the codes a run makes.
    """

    __slots__ = ()
    #: The fields, in the order `__init__` takes them.
    FIELDS: ClassVar[tuple[str, ...]] = ()

    def _fill(self, *values: Any) -> None:
        """Set the fields, in `FIELDS` order (what a subclass's `__init__` does)."""
        for name, value in zip(self.FIELDS, values, strict=True):
            object.__setattr__(self, name, value)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, FrozenValue)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.FIELDS)
        return f"{type(self).__qualname__}({shown})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (self.__class__, self._values())


class Severity(StrEnum):
    """How much a finding or violation matters for the replay decision."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """Sort key: errors first, then warnings, then information."""
        return _RANK[self]


_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def severity_rank(severity: str) -> int:
    """`Severity.rank` of a severity given as its word (unknown words sort last)."""
    try:
        return Severity(severity).rank
    except ValueError:
        return len(_RANK)


class Kind(StrEnum):
    """Which result carries a code."""

    FINDING = "finding"  # about a transcript as a whole (gate)
    VIOLATION = "violation"  # a stream's event lifecycle (reducer)
    CHANGE = "change"  # a difference within one aligned pair (diff)
    DOCUMENT = "document"  # a difference between the two documents as a whole (diff)
    TARGET = "target"  # what a target provider would reject or silently change (targets)


class Code(FrozenValue):
    """One code: its name, what carries it, its usual and other severities, its meaning."""

    FIELDS = ("name", "kinds", "severity", "meaning", "also")
    __slots__ = FIELDS
    name: str
    kinds: tuple[Kind, ...]
    severity: Severity
    meaning: str
    also: tuple[Severity, ...]

    def __init__(
        self,
        name: str,
        kinds: tuple[Kind, ...],
        severity: Severity,
        meaning: str,
        also: tuple[Severity, ...] = (),
    ) -> None:
        self._fill(name, kinds, severity, meaning, also)

    @property
    def severities(self) -> tuple[Severity, ...]:
        """Every severity this code may be given, its usual one first."""
        return (self.severity, *self.also)


# kind, name, severity (the usual one first, then any other it may take), meaning.
_TABLE = """
finding   orphan_output                           error,warning  a function_call_output whose call_id matches no earlier function_call
finding   output_before_call                      error          an output comes before its call
finding   duplicate_call_id                       error          two different calls share a call_id
finding   output_for_blocked_call                 error,warning  the call that an output answers is not ok (a warning when only its schema is unknown)
finding   missing_output                          info           a call with no output in the file
finding   incomplete_not_last                     error          an incomplete item is not the last item of its response
finding   response_status_mismatch                error,warning  an item's status contradicts its response's status
finding   duplicate_item_id                       error          two different items share an id
finding   chat_completions_envelope               error          a Chat Completions record where an Open Responses one belongs
finding   anthropic_envelope                      error          an Anthropic Messages record where an Open Responses one belongs
finding   cohere_envelope                         error          a Cohere v2 chat record where an Open Responses one belongs
finding   gemini_envelope                         error          a Gemini generateContent record where an Open Responses one belongs
finding   bedrock_envelope                        error          a Bedrock Converse record where an Open Responses one belongs
finding   extra_choices                           warning        a response with several choices: only the first is read
finding   extra_candidates                        warning        a response with several candidates: only the first is read
finding   list_order                              info           the order an OpenAI list was read in, and why
finding   provider_error                          error          the file is a provider's HTTP error body
finding   response_failed                         error          the response's own status says it failed
finding   response_incomplete                     warning        the response's own status says it is incomplete
finding   response_status_unknown                 error          a response status outside the specification's five
finding   non_portable_type                       warning        an unprefixed type outside the Open Responses core: vendor-specific
finding   tool_override                           info           a tool from --tools replaces the transcript's own definition
finding   corrupt_line                            warning        a session-file line that is not a JSON record: skipped, the rest loads
finding   several_conversations                   info           the file holds several conversations, each a transcript of its own
finding   subagent_conversation                   info           a subagent's conversation, and the call that spawned it
finding   content_not_captured                    warning        the source recorded no content (capture off, or a log without samples)
finding   compacted_history                       info           Codex compacted the history: its replacement history is not counted again
finding   har_entries_ignored                     info           HAR entries that are not provider API calls: ignored and counted
violation malformed_event                         error          an event that is not a JSON object with a type
violation invalid_utf8                            error          an event's data is not valid UTF-8
violation missing_sequence_number                 error,warning  events without sequence_number (a warning when no event has one)
violation sequence_not_increasing                 error          a sequence_number that repeats or goes back
violation sequence_gap                            error          sequence numbers skip events
violation stream_resumed                          info           the stream starts after sequence 0 (resumed with starting_after)
violation event_name_mismatch                     error          the SSE event name differs from data.type
violation response_not_started                    error          an event before any response was opened
violation response_out_of_order                   error          response lifecycle events out of their order
violation unknown_item                            error          an event names an item that was never added
violation item_index_mismatch                     error          an event's output_index disagrees with its item's
violation unknown_content_part                    error          an event names a content part that was never added
violation duplicate_item                          error          an item is added twice
violation duplicate_content_part                  error          a content part is added twice
violation item_closed                             error          an event for an item that is already done
violation open_content_part                       error          a content part still open when its item is done
violation text_mismatch                           error          the deltas do not add up to the final text
violation arguments_mismatch                      error          the deltas do not add up to the final arguments
violation snapshot_mismatch                       error          a snapshot disagrees with what the events built
violation open_item_at_completion                 error,warning  an item still open at completion (a warning for provider-specific items)
violation incomplete_item_not_last                error          an incomplete item that is not the response's last
violation incomplete_item_in_completed_response   error          an incomplete item in a completed response
violation event_after_terminal                    error,warning  an event after the response's terminal event
violation missing_terminal                        error          the stream ends without a terminal event
violation missing_done_sentinel                   warning        an SSE stream without data: [DONE]
violation error_without_failed                    error          an error event that is not followed by response.failed
violation unknown_event                           warning,error  an unprefixed event type outside the specification (an error under --strict)
violation vendor_event                            info,warning   OpenAI's unprefixed hosted-tool events (a warning under --strict)
violation extension_event                         info           a slug-prefixed extension event, kept opaque
violation foreign_stream                          error          another API's stream, assembled into its record: the wrong envelope to replay
change    type_changed                            warning        the item's type changed
change    became_namespaced                       error          a portable item became provider-prefixed
change    became_portable                         warning        a provider-prefixed item became portable
change    became_non_portable                     error          a portable item became an unprefixed vendor-specific type
change    call_id_changed                         error          replay: the call_id changed
change    call_id_renamed                         info           compare: the call ids were renamed consistently
change    calls_reordered                         info           compare: the same calls and results in another order (parallel against sequential)
change    call_id_mismatch                        error          compare: the call ids were not renamed consistently
change    name_changed                            warning,error  the tool name changed (compare: an error, another call)
change    role_changed                            warning,info   the message role changed (compare: info between system and developer)
change    status_changed                          warning,info   the item's status changed (compare: info for a message or reasoning)
change    arguments_changed                       warning,error  a value in the parsed arguments changed (compare: an error, the runs diverged)
change    arguments_reformatted                   info           the same arguments value, written differently
change    output_changed                          warning,error  a tool result changed (compare: an error, the runs diverged)
change    content_changed                         warning,info   a message's content changed (compare: info, the wording)
change    content_reformatted                     info           compare: the same text, as a string or as text parts
change    output_reformatted                      info           compare: the same result, as a string, as parts or in a required wrapper
finding,change status_not_recorded              info,warning   compare: a status not recorded (info); a finding: calls answered in their own request without status (warning)
change    verdict_changed                         error,warning  the item's gate verdict changed (an error when ok became blocked)
change    field_changed                           info           another field of the item changed
change    extension_field_changed                 info           a provider-prefixed field changed
change    item_changed                            warning        a value that is not an item changed
change    only_left                               error,warning,info  the item exists only on the left (a warning for items that are not calls; compare: info for reasoning and an assistant's words)
change    only_right                              error,warning,info  the item exists only on the right (a warning for items that are not calls; compare: info for reasoning and an assistant's words)
document  format_changed                          info           the two files are in different formats
document  foreign_envelope                        error          replay: the right side is not an Open Responses envelope
target    target_tool_schema                      error          the target rejects a tool's schema
target    target_tool_schema_altered              warning        the target accepts a tool's schema but silently changes it
target    target_tool_name                        error          the target rejects a tool or call name
target    target_call_id                          error          the target rejects a call id
target    target_order                            error          the target rejects the order of calls and results
target    target_reasoning                        error,warning  the target rejects (or, as a warning, drops) another provider's reasoning
target    target_call_as_text                     error          the target answers with HTTP 200 but turns a call into text: the tool never runs, and nothing says so
"""


def _registry(table: str) -> dict[str, Code]:
    out: dict[str, Code] = {}
    for line in table.strip().splitlines():
        kinds, name, severities, meaning = line.split(None, 3)
        if name in out:
            raise ValueError(f"code {name!r} is registered twice")
        first, *also = (Severity(word) for word in severities.split(","))
        out[name] = Code(
            name, tuple(Kind(k) for k in kinds.split(",")), first, meaning, tuple(also)
        )
    return out


#: Every code, by name.
CODES: Mapping[str, Code] = MappingProxyType(_registry(_TABLE))


def codes_of(kind: Kind) -> frozenset[str]:
    """The names of every code of one kind."""
    return frozenset(name for name, code in CODES.items() if kind in code.kinds)


def code(name: str) -> Code:
    """The registered code of this name (KeyError names it when it is not registered)."""
    try:
        return CODES[name]
    except KeyError:
        raise KeyError(f"{name!r} is not a registered code (add it to codes.py)") from None


def severity_of(name: str) -> Severity:
    """The usual severity of a registered code."""
    return code(name).severity
