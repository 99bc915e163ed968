"""The replay gate: a verdict for every item, and findings about the transcript as a whole."""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import operator
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, NamedTuple

import msgspec

from inspector.core.display import cut, shorten_digits, show_int
from inspector.core.jsonio import (
    UNDECIDED,
    JSONError,
    parse_arguments,
    parse_arguments_checked,
    parse_undecided,
    strict_fast,
)
from inspector.core.lazy import LazyPattern
from inspector.core.model import (
    LEAN,
    PORTABLE_CORE,
    ArgumentsError,
    Cancelled,
    Envelope,
    Item,
    Severity,
    Tool,
    Transcript,
    effective_type,
    json_kind,
    paused_gc,
    stored_raw,
)
from inspector.core.schema import (
    DEFAULT_BUDGET,
    ENGINE_RS,
    FileBudget,
    SchemaIssue,
    compile_schema,
    current_file_budget,
    file_budget,
    refusal,
    validate,
)
from inspector.core.verdicts import PASSING as PASSING  # re-exported: callers import them here
from inspector.core.verdicts import VERDICT_ORDER as VERDICT_ORDER
from inspector.core.verdicts import Verdict as Verdict


class _VerdictFields(msgspec.Struct, frozen=True):
    # The stored fields; `ItemVerdict` adds what a dataclass gave it (equality and hash
    # without `source`, a repr without `given` and `source`). A msgspec struct is made in C:
    # a frozen dataclass's __init__ sets each field through object.__setattr__, about ten
    # times the cost, and a large log makes tens of thousands of verdicts and findings.
    verdict: Verdict
    detail: str
    errors: tuple[SchemaIssue, ...] = ()
    tool: str | None = None
    #: The parsed arguments, when the verdict keeps them (see `parsed`).
    given: Any = None
    #: Why `arguments` did not parse (verdict arguments_parse), with line and column.
    parse_error: ArgumentsError | None = None
    #: An item with these arguments: a transcript's verdicts parse them again when asked
    #: rather than hold every call's parsed arguments.
    source: Item | None = None


class ItemVerdict(_VerdictFields, frozen=True):
    """The gate's answer for one item, with a one-line reason and any schema errors."""

    @property
    def parsed(self) -> Any:
        """The parsed arguments the schema was checked against (None before that check)."""
        if self.source is None:
            return self.given
        return parse_arguments(self.source.get("arguments"))

    def _compared(self) -> tuple[Any, ...]:
        return (self.verdict, self.detail, self.errors, self.tool, self.given, self.parse_error)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._compared() == other._compared()

    def __hash__(self) -> int:
        return hash(self._compared())

    def __repr__(self) -> str:
        return (
            f"ItemVerdict(verdict={self.verdict!r}, detail={self.detail!r}, "
            f"errors={self.errors!r}, tool={self.tool!r}, parse_error={self.parse_error!r})"
        )


@dataclass(frozen=True, slots=True)
class Finding:
    """Something about the transcript as a whole (pairing, ordering, envelopes, errors)."""

    code: str
    severity: Severity
    items: tuple[int, ...]
    message: str

    def to_json(self) -> dict[str, Any]:
        """Return the CLI's JSON form."""
        return {
            "code": self.code,
            "severity": str(self.severity),
            "items": list(self.items),
            "message": self.message,
        }


# Findings made by setting their slots directly (as `formats.otel` makes Origins): a frozen
# dataclass's `__init__` sets each field through `object.__setattr__`, and the findings' pass
# over a large log makes a finding for every call whose output answers a blocked call.
_NEW = object.__new__
_F_CODE, _F_SEVERITY, _F_ITEMS, _F_MESSAGE = (
    Finding.__dict__[f.name].__set__ for f in fields(Finding)
)


def _finding(code: str, severity: Severity, items: tuple[int, ...], message: str) -> Finding:
    """`Finding(code, severity, items, message)`."""
    made: Finding = _NEW(Finding)
    _F_CODE(made, code)
    _F_SEVERITY(made, severity)
    _F_ITEMS(made, items)
    _F_MESSAGE(made, message)
    return made


#: Enum members looked up once: a member read from its class is a descriptor call in 3.11.
_ERROR, _WARNING, _INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
_OK, _UNKNOWN_TOOL = Verdict.OK, Verdict.UNKNOWN_TOOL


@dataclass(frozen=True, slots=True)
class ToolSet:
    """The tools a gate run knows, and the names `tool_choice.allowed_tools` permits (if any)."""

    tools: Mapping[str, Tool] = field(default_factory=lambda: MappingProxyType({}))
    allowed: frozenset[str] | None = None

    def names(self) -> list[str]:
        """Return the known tool names, sorted."""
        return sorted(self.tools)


@dataclass(frozen=True, slots=True)
class GateResult:
    """Verdicts for every item of a transcript, and its findings."""

    transcript: Transcript
    verdicts: tuple[ItemVerdict, ...]
    findings: tuple[Finding, ...]
    toolset: ToolSet
    #: The items of each verdict word (`verdict_tally`), when the verdicts were tallied where
    #: they were made (a gate by runs: a tally a run); None: tallied from `verdicts`.
    tally: Mapping[Verdict, int] | None = None

    def tallies(self) -> Mapping[Verdict, int]:
        """The items of each verdict word, in the order each word first comes."""
        return verdict_tally(self.verdicts) if self.tally is None else self.tally

    def summary(self) -> dict[str, int]:
        """Count items per verdict, in verdict order (zero counts left out)."""
        counts = self.tallies()
        return {v.value: counts[v] for v in VERDICT_ORDER if v in counts}

    def problems(self) -> list[int]:
        """Items a person should look at: a blocking verdict, or named by an error or warning."""
        flagged = {i for i, v in enumerate(self.verdicts) if v.verdict not in PASSING}
        for finding in self.findings:
            if finding.severity in (Severity.ERROR, Severity.WARNING):
                flagged.update(finding.items)
        return sorted(flagged)


def _quote(value: Any, limit: int = 60) -> str:
    if isinstance(value, str):
        text = repr(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        text = show_int(value)
    else:
        text = shorten_digits(json.dumps(value, default=repr))
    return cut(text, limit)


def verdict_tally(verdicts: Iterable[ItemVerdict]) -> dict[Verdict, int]:
    """How many of `verdicts` there are of each word, in the order each word first comes."""
    # Counted in C: a Python loop over the verdicts of a large file was a serial tail.
    return dict(Counter(map(_WORD, verdicts)))


_WORD = operator.attrgetter("verdict")


def gate_item(
    raw: Any,
    tools: ToolSet,
    *,
    budget: float = DEFAULT_BUDGET,
    cancel: threading.Event | None = None,
) -> ItemVerdict:
    """Run the replay gate on one raw item; the first failing check decides the verdict."""
    item_type = effective_type(raw)
    if item_type != "function_call":
        return _type_verdict(item_type)
    return _call_verdict(
        raw.get("status", _ABSENT),
        raw.get("arguments", _ABSENT),
        raw.get("name"),
        tools,
        budget,
        cancel,
    )


def _call_verdict(
    status: Any,
    arguments: Any,
    name: Any,
    tools: ToolSet,
    budget: float,
    cancel: threading.Event | None,
    source: Item | None = None,
) -> ItemVerdict:
    """Rows 3–7 of the gate for a function_call's status, arguments and name (_ABSENT: absent)."""
    if status != "completed":
        if status is _ABSENT:
            why = "status is missing"
        elif status is None:
            why = "status is null"
        else:
            why = f"status is {_quote(status)}"
        return ItemVerdict(Verdict.STATUS, f"{why}; only a completed call may run")
    if not isinstance(arguments, str):
        kind = "missing" if arguments is _ABSENT else f"a JSON {json_kind(arguments)}"
        return ItemVerdict(Verdict.ARGUMENTS_TYPE, f"arguments is {kind}, not a string")
    try:
        parsed, writable = parse_arguments_checked(arguments)
    except ArgumentsError as exc:
        return _parse_failure(exc, redacted_arguments(source))
    return _check_arguments(name, parsed, tools, budget, cancel, source, writable)


def arguments_verdict(
    text: str,
    name: Any,
    tools: ToolSet,
    *,
    budget: float = DEFAULT_BUDGET,
    cancel: threading.Event | None = None,
    redacted: bool = False,
) -> ItemVerdict:
    """Judge an `arguments` string for the named tool (rows 5–7 of the gate); `redacted`: the
    text is a publisher's redaction marker (`redacted_arguments` of its item).

    The Arguments panel calls this on every edit, so the panel and `gate` cannot disagree.
    """
    try:
        parsed = parse_arguments(text)
    except ArgumentsError as exc:
        return _parse_failure(exc, redacted)
    return check_arguments(name, parsed, tools, budget=budget, cancel=cancel)


def redacted_arguments(item: Item | None) -> bool:
    """Whether an item's `arguments` are a marker its file's publisher put in their place
    (its conversion says so: a Codex rollout's `[REDACTED_ARGUMENTS …]`)."""
    conversion = None if item is None else item.conversion
    if conversion is None:
        return False
    return any(d.field == "arguments" and d.how == "redacted" for d in conversion.derived)


def _parse_failure(exc: ArgumentsError, redacted: bool = False) -> ItemVerdict:
    # The verdict outlives the gate: the tracebacks of the error and of the one it replaced
    # would keep the gate's frames, and with them every call's arguments, alive.
    exc.__traceback__ = exc.__context__ = None
    what = "a publisher's redaction marker, not JSON" if redacted else "not JSON"
    return ItemVerdict(
        Verdict.ARGUMENTS_PARSE, f"arguments are {what}: {exc.describe()}", parse_error=exc
    )


_TYPE_VERDICTS: dict[str, ItemVerdict] = {}


def _type_verdict(item_type: Any) -> ItemVerdict:
    """The verdict of an item that is not a function_call, which depends on its type alone."""
    if not isinstance(item_type, str):
        what = "missing" if item_type is None else f"not a string ({_quote(item_type)})"
        return ItemVerdict(Verdict.NAMESPACED, f"type is {what}; not a portable item")
    # Verdicts are frozen values: one per type serves every message, output and reasoning item.
    found = _TYPE_VERDICTS.get(item_type)
    if found is not None:
        return found
    if ":" in item_type:
        slug = item_type.split(":", 1)[0]
        found = ItemVerdict(
            Verdict.NAMESPACED,
            f"{item_type!r} is provider-prefixed ({slug!r}); it replays only to that provider",
        )
    elif item_type in PORTABLE_CORE:
        found = ItemVerdict(Verdict.NOT_FUNCTION_CALL, f"{item_type} item; nothing to run")
    else:
        found = ItemVerdict(
            Verdict.NOT_FUNCTION_CALL,
            f"{item_type!r} is a provider-specific type; not a portable function_call",
        )
    if len(_TYPE_VERDICTS) < 4096:  # types come from files: keep the table bounded
        _TYPE_VERDICTS[item_type] = found
    return found


def check_arguments(
    name: Any,
    parsed: Any,
    tools: ToolSet,
    *,
    budget: float = DEFAULT_BUDGET,
    cancel: threading.Event | None = None,
) -> ItemVerdict:
    """Check parsed arguments against the named tool (rows 6 and 7 of the gate)."""
    return _check_arguments(name, parsed, tools, budget, cancel, None)


def _check_arguments(
    name: Any,
    parsed: Any,
    tools: ToolSet,
    budget: float,
    cancel: threading.Event | None,
    source: Item | None,
    writable: bool = False,
) -> ItemVerdict:
    """check_arguments; a verdict with a `source` parses its arguments again when asked.

    `writable`: orjson is known to write `parsed` back (see `schema.validate`).
    """
    given = None if source is not None else parsed
    tool = tools.tools.get(name) if isinstance(name, str) else None
    if not isinstance(name, str):
        return ItemVerdict(Verdict.UNKNOWN_TOOL, f"name is {_quote(name)}, not a tool name")
    if tools.allowed is not None and name not in tools.allowed:
        return ItemVerdict(
            Verdict.UNKNOWN_TOOL, f"{name!r} is outside tool_choice.allowed_tools", tool=name
        )
    if tool is None:
        lookalike = _lookalike(name, tools.tools)
        return ItemVerdict(
            Verdict.UNKNOWN_TOOL, f"no schema is known for tool {name!r}{lookalike}", tool=name
        )
    if not tool.has_schema:
        return ItemVerdict(
            Verdict.UNKNOWN_TOOL, f"tool {name!r} declares no parameters schema", tool=name
        )
    compiled = compile_schema(tool.parameters)
    if not compiled.usable:
        refused = compiled.code is not None
        return ItemVerdict(
            Verdict.ARGUMENTS_SCHEMA,
            f"the schema of {name!r} is {'refused' if refused else 'broken'}: {compiled.problem}",
            errors=(refusal(compiled),) if refused else (),
            tool=name,
            given=given,
            source=source,
        )
    issues = validate(compiled, parsed, budget=budget, cancel=cancel, writable=writable)
    if issues:
        first = issues[0]
        where = first.path or "/"
        more = f" (+{len(issues) - 1} more)" if len(issues) > 1 else ""
        return ItemVerdict(
            Verdict.ARGUMENTS_SCHEMA,
            f"{where}: {first.keyword}: {first.message}{more}",
            errors=issues,
            tool=name,
            given=given,
            source=source,
        )
    return ItemVerdict(_OK, _matches(name), tool=name, given=given, source=source)


def ok_verdict(name: str, source: Item) -> ItemVerdict:
    """The ok verdict of a call to `name` whose arguments are `source`'s."""
    return ItemVerdict(_OK, _matches(name), tool=name, source=source)


_ABSENT: Any = object()
#: The detail of a call sent back as history with its answer but without its status.
HISTORY_DETAIL = "status is missing; status not recorded (answered in this request)"

#: The code points of Unicode's general categories Cc, Cf, Zl and Zp (`regex`'s
#: `[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]`, whose Unicode is newer than the standard library's: Python
#: 3.11's `unicodedata` lacks U+13439-1343F), spelled out for stdlib `re`: importing `regex` is
#: a tenth of a command's start-up, paid by every process that first checks a name.
_INVISIBLE_RANGES = """
0000-001F 007F-009F 00AD 0600-0605 061C 06DD 070F 0890-0891 08E2 180E 200B-200F 2028-202E
2060-2064 2066-206F FEFF FFF9-FFFB 110BD 110CD 13430-1343F 1BCA0-1BCA3 1D173-1D17A E0001
E0020-E007F
"""


def _code_class(ranges: str) -> str:
    """A character class of `re` holding the code points of `ranges` ('0000-001F 00AD …')."""
    spelled = (
        "-".join(f"\\U{int(end, 16):08X}" for end in part.split("-")) for part in ranges.split()
    )
    return f"[{''.join(spelled)}]"


#: Characters a reader cannot see, or that reorder what follows them: Unicode control and format
#: characters (bidi embeddings, overrides and isolates, U+200E/F, zero-width ones) and the line
#: and paragraph separators. A tool name holding one can pass for another when it is shown.
#: (Compiled when first used: no command's start-up pays for it.)
INVISIBLE = LazyPattern(_code_class(_INVISIBLE_RANGES))
#: A right-to-left override up to its pop (or the end): drawn reversed in a left-to-right line.
_OVERRIDE = LazyPattern("\u202e([^\u202c]*)\u202c?")
#: Non-Latin letters drawn like ASCII ones: the Cyrillic and Greek entries of Unicode's
#: confusables.txt (UTS #39, https://www.unicode.org/Public/security/latest/confusables.txt)
#: whose prototype is one ASCII letter. NFKC folds fullwidth and compatibility forms first.
_CONFUSABLE_TABLE = """
0430:a 0435:e 04BB:h 0456:i 0458:j 043E:o 0440:p 0441:c 0455:s 0443:y 0445:x 0501:d 051B:q
051D:w 03B1:a 03B9:i 03BD:v 03BF:o 03C1:p 0410:A 0412:B 0415:E 0405:S 0406:I 0408:J 041A:K
041C:M 041D:H 041E:O 0420:P 0421:C 0422:T 0425:X 04AE:Y 0391:A 0392:B 0395:E 0396:Z 0397:H
0399:I 039A:K 039C:M 039D:N 039F:O 03A1:P 03A4:T 03A5:Y 03A7:X
"""
_CONFUSABLES = {
    int(code, 16): letter
    for code, letter in (pair.split(":") for pair in _CONFUSABLE_TABLE.split())
}


def _skeleton(text: str) -> str:
    return unicodedata.normalize("NFKC", text).translate(_CONFUSABLES)


def lookalike(name: str, names: Iterable[str]) -> str:
    """The note "it differs from 'known' by U+…" when `name` reads as one of `names`, else ''."""
    return _lookalike(name, dict.fromkeys(n for n in names if n != name)).removeprefix("; ")


def _lookalike(name: str, tools: Mapping[str, object]) -> str:
    """'; it differs from 'known' by U+…' when an unknown name reads as a known tool's."""
    if name.isascii() and name.isprintable():
        return ""  # plain ASCII can only match itself
    # The name as stored without its invisible characters, and as a line would draw it.
    shown = {INVISIBLE.sub("", name), INVISIBLE.sub("", _OVERRIDE.sub(lambda m: m[1][::-1], name))}
    skeletons = {_skeleton(form) for form in shown}
    names = sorted(tools)
    known = next((k for k in names if k in shown), None) or next(
        (k for k in names if _skeleton(k) in skeletons), None
    )
    if known is None:
        return ""
    odd = dict.fromkeys(ch for ch in name if INVISIBLE.match(ch) or ch not in known)
    return f"; it differs from {known!r} by " + ", ".join(f"U+{ord(ch):04X}" for ch in odd)


def allowed_tool_names(tool_choice: Any) -> frozenset[str] | None:
    """Return the names `tool_choice.allowed_tools` permits, or None when it sets no limit."""
    if not isinstance(tool_choice, dict) or tool_choice.get("type") != "allowed_tools":
        return None
    listed = tool_choice.get("tools")
    if not isinstance(listed, list):
        return frozenset()
    return frozenset(
        t["name"] for t in listed if isinstance(t, dict) and isinstance(t.get("name"), str)
    )


def make_toolset(
    transcript: Transcript | None, extra: Mapping[str, Tool] | None = None
) -> tuple[ToolSet, list[str]]:
    """Merge the transcript's tools with extra ones (which win); return the set and overrides."""
    if transcript is not None and not extra and type(transcript.tools) is MappingProxyType:
        # Read-only already, and nothing to merge: shared, not copied (a trace gates one
        # transcript per conversation).
        return ToolSet(transcript.tools, allowed_tool_names(transcript.tool_choice)), []
    tools: dict[str, Tool] = dict(transcript.tools) if transcript is not None else {}
    overridden: list[str] = []
    for name, tool in (extra or {}).items():
        if name in tools and tools[name].parameters != tool.parameters:
            overridden.append(name)
        tools[name] = tool
    allowed = allowed_tool_names(transcript.tool_choice) if transcript is not None else None
    return ToolSet(MappingProxyType(tools), allowed), overridden


def gate_transcript(
    transcript: Transcript,
    extra_tools: Mapping[str, Tool] | None = None,
    *,
    budget: float = DEFAULT_BUDGET,
    cancel: threading.Event | None = None,
    progress: Callable[[int, int], None] | None = None,
    verdicts: Sequence[ItemVerdict] | None = None,
    rest: Callable[[], Sequence[ItemVerdict]] | None = None,
    started: float | None = None,
) -> GateResult:
    """Gate every item of a transcript and collect the transcript findings.

    Between items, a set `cancel` stops the work (Cancelled) and `progress` hears how many of
    the items are done. `verdicts`: the verdicts of the first items, already made
    (`item_verdicts`), and `rest()` those of the others, asked for once the findings' pass
    over the items is done (worker processes make them meanwhile: see `core.parallel`);
    `started`: when the file's validation budget began (`schema.FileBudget`), when it began
    there.
    """
    budget_of_file = FileBudget() if started is None else FileBudget(started=started)
    # Paused already (a trace's conversations, gated one after another): pausing again would
    # change nothing, for a generator's context manager per conversation.
    paused = paused_gc() if gc.isenabled() else contextlib.nullcontext()
    with paused, file_budget(budget_of_file):
        toolset, overridden = make_toolset(transcript, extra_tools)
        if verdicts is None:
            made = item_verdicts(
                transcript.items, toolset, budget=budget, cancel=cancel, progress=progress
            )
        else:
            made = list(verdicts)
        findings = transcript_findings(transcript, made, toolset, overridden, rest)
        # Tallied once here, where they are made: the summary and the decision both read it.
        return GateResult(transcript, tuple(made), tuple(findings), toolset, verdict_tally(made))


#: Items gated between two looks at the cancel flag and two progress reports.
_CHECK_EVERY = 1024


def item_verdicts(
    items: Sequence[Item],
    toolset: ToolSet,
    *,
    budget: float = DEFAULT_BUDGET,
    cancel: threading.Event | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[ItemVerdict]:
    """The verdict of each item (all of a transcript's, or a run of them), in order.

    Logs repeat the same call many times; a completed call's verdict depends only on its name
    and arguments, so each pair is judged once and its verdict shared.
    """
    memo: dict[tuple[str, str], ItemVerdict] = {}
    #: Each tool name's jsonschema-rs check, when its calls go straight to it (`_ready_check`).
    checks: dict[str, Callable[[Any], bool] | None] = {}
    spending = current_file_budget()
    verdicts: list[ItemVerdict] = []
    append = verdicts.append
    total = len(items)
    # In slices of _CHECK_EVERY items, so that no count is kept and tested for every item.
    for done in range(0, total, _CHECK_EVERY):
        if cancel is not None and cancel.is_set():
            raise Cancelled("gating was cancelled")
        if progress is not None:
            progress(done, total)
        _judge_slice(
            items[done : done + _CHECK_EVERY],
            toolset,
            budget,
            cancel,
            memo,
            checks,
            spending,
            append,
        )
    return verdicts


def _judge_slice(
    items: Sequence[Item],
    toolset: ToolSet,
    budget: float,
    cancel: threading.Event | None,
    memo: dict[tuple[str, str], ItemVerdict],
    checks: dict[str, Callable[[Any], bool] | None],
    spending: FileBudget | None,
    append: Callable[[ItemVerdict], None],
) -> None:
    """`item_verdicts` for a slice of the items: each verdict appended, in order."""
    shared = _TYPE_VERDICTS
    for item in items:
        kind = item.type
        if kind != "function_call":
            # Most items of a log: a message, an output, a reasoning item, whose one verdict
            # per type is shared (see `_type_verdict`). A type met first, or not a string
            # (one that cannot be a key among them), goes the whole way.
            try:
                append(shared[kind])
            except (KeyError, TypeError):
                append(_type_verdict(kind))
            continue
        status = item.status  # as `get` has it, unless None (null, or absent: `get` tells)
        if status is None:
            status = item.get("status", _ABSENT)
        name = item.name
        if status != "completed":
            # The status decides (row 3), whatever the arguments: they are not read.
            append(_call_verdict(status, _ABSENT, name, toolset, budget, cancel, item))
            continue
        # A lean item's arguments straight from its source, as `Item.get` would read them
        # after looking at the hot members, which `arguments` is not one of.
        arguments = (
            stored_raw(item).field(item.index, "arguments", _ABSENT)
            if item._mask & LEAN
            else item.get("arguments", _ABSENT)
        )
        if type(name) is not str or type(arguments) is not str:
            append(_call_verdict(status, arguments, name, toolset, budget, cancel, item))
            continue
        key = (name, arguments)
        found = memo.get(key)
        if found is None:
            # The verdict keeps the item as its way back to the arguments, not every call's
            # parsed arguments.
            check = (
                checks[name]
                if name in checks
                else checks.setdefault(name, _ready_check(name, toolset))
            )
            if check is None:
                found = _call_verdict(status, arguments, name, toolset, budget, cancel, item)
            else:
                found = _ready_verdict(
                    check, arguments, name, toolset, budget, cancel, item, spending
                )
            memo[key] = found
        append(found)


def _undecided_verdict(
    arguments: str,
    refused: bool,
    name: str,
    tools: ToolSet,
    budget: float,
    cancel: threading.Event | None,
    source: Item,
) -> ItemVerdict:
    """`_call_verdict` of a completed call whose arguments `strict_fast` left UNDECIDED
    (`refused`: its flag), without asking it again."""
    try:
        parsed = parse_undecided(arguments, refused)
    except ArgumentsError as exc:
        return _parse_failure(exc, redacted_arguments(source))
    return _check_arguments(name, parsed, tools, budget, cancel, source, False)


def _passes(check: Callable[[Any], bool], parsed: Any) -> bool:
    """Whether jsonschema-rs's `check` takes `parsed` as valid (False when it cannot say)."""
    try:
        return check(parsed)
    except Exception:  # `validate` says what jsonschema-rs cannot take
        return False


def _ready_check(name: str, tools: ToolSet) -> Callable[[Any], bool] | None:
    """The jsonschema-rs `is_valid` that `_check_arguments` comes to for a call to `name`
    (allowed, a known tool, a usable schema jsonschema-rs runs), else None."""
    if tools.allowed is not None and name not in tools.allowed:
        return None
    tool = tools.tools.get(name)
    if tool is None or not tool.has_schema:
        return None
    compiled = compile_schema(tool.parameters)
    if compiled.validator is None or compiled.engine != ENGINE_RS:
        return None
    check: Callable[[Any], bool] = compiled.validator.is_valid
    return check


def _ready_verdict(
    check: Callable[[Any], bool],
    arguments: str,
    name: str,
    tools: ToolSet,
    budget: float,
    cancel: threading.Event | None,
    source: Item,
    total: FileBudget | None,
) -> ItemVerdict:
    """`_call_verdict` of a completed call to a tool with a `_ready_check`: valid arguments
    that orjson writes back, with the file's budget left and no cancel, are ok after the
    strict fast parse and one `check`, as `validate` finds them; anything else takes the whole
    way (a text the fast parse left undecided without asking it again)."""
    try:
        parsed, writable = strict_fast(arguments)
    except JSONError:  # nested too deeply: the full parser words it
        parsed, writable = UNDECIDED, False
    if parsed is UNDECIDED:
        # (`writable` says here whether orjson refused the text.)
        return _undecided_verdict(arguments, writable, name, tools, budget, cancel, source)
    if (
        writable
        and (cancel is None or not cancel.is_set())
        and (total is None or total.overrun() is None)
        and _passes(check, parsed)
    ):
        # Positional: msgspec matches keyword arguments to fields one by one.
        return ItemVerdict(_OK, _matches(name), (), name, None, None, source)
    return _check_arguments(name, parsed, tools, budget, cancel, source, writable)


_MATCHES: dict[str, str] = {}


def _matches(name: str) -> str:
    """The detail of an ok verdict, one string per tool rather than one per call."""
    found = _MATCHES.get(name)
    if found is None:
        found = f"arguments match the schema of {name!r}"
        if len(_MATCHES) < 4096:  # names come from files: keep the table bounded
            _MATCHES[name] = found
    return found


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        message = error.get("message")
        bits = [str(error[k]) for k in ("type", "code") if isinstance(error.get(k), str)]
        prefix = f"[{', '.join(bits)}] " if bits else ""
        return prefix + (message if isinstance(message, str) else json.dumps(error, default=repr))
    return json.dumps(error, default=repr)


#: Response statuses the specification defines; anything else is reported, conservatively.
RESPONSE_STATUSES = frozenset({"completed", "incomplete", "in_progress", "queued", "failed"})
#: Group statuses that give no finding of their own.
_QUIET_STATUSES = frozenset({"completed", "in_progress", "queued"})


def _group_findings(transcript: Transcript, by_group: Mapping[int, list[int]]) -> list[Finding]:
    out: list[Finding] = []
    portable_groups = None
    for group in transcript.groups:
        members = tuple(by_group.get(group.index, ()))
        # Each format declares its envelope's finding (formats.spec.FormatSpec); the gate
        # reads it from the record, so a format cannot be added without one.
        code, api = group.envelope.finding, group.envelope.wording
        status = group.status
        if (
            code is None
            and group.kind != "error"
            and (status is None or (type(status) is str and status in _QUIET_STATUSES))
        ):
            # Nothing to say of the group but its notes (most groups: one per span or record).
            out.extend(Finding(n.code, n.severity, members, n.message) for n in group.notes)
            continue
        where = group.origin.describe()
        if code is not None and portable_groups is None:
            portable_groups = any(
                g.envelope == Envelope.OPEN_RESPONSES and g.kind != "error"
                for g in transcript.groups
            )
        if code is not None:
            if portable_groups:
                text = f"{where}: {api} record inside an Open Responses log"
            else:
                text = f"{where}: the file is {api} record, not Open Responses"
            out.append(
                Finding(
                    code,
                    Severity.ERROR,
                    members,
                    text + "; replaying it would send the wrong envelope to the next provider",
                )
            )
        out.extend(Finding(n.code, n.severity, members, n.message) for n in group.notes)
        if group.kind == "error":
            out.append(
                Finding(
                    "provider_error",
                    Severity.ERROR,
                    members,
                    f"{where}: provider error body: {_error_text(group.error)}",
                )
            )
        elif group.status == "failed":
            detail = f": {_error_text(group.error)}" if group.error else ""
            out.append(
                Finding(
                    "response_failed", Severity.ERROR, members, f"{where}: response failed{detail}"
                )
            )
        elif group.status == "incomplete":
            reason = group.incomplete_details
            if isinstance(reason, dict) and isinstance(reason.get("reason"), str):
                reason = reason["reason"]
            because = f" ({reason})" if isinstance(reason, str) else ""
            out.append(
                Finding(
                    "response_incomplete",
                    Severity.WARNING,
                    members,
                    f"{where}: response ended incomplete{because}; its output is partial",
                )
            )
        elif (
            group.kind in ("response", "compaction")
            and group.status is not None
            and group.status not in RESPONSE_STATUSES
        ):
            out.append(
                Finding(
                    "response_status_unknown",
                    Severity.ERROR,
                    members,
                    f"{where}: response status {_quote(group.status)} is not one the "
                    "specification defines (completed, incomplete, in_progress, queued, "
                    "failed); its output cannot be taken as finished",
                )
            )
    return out


def _duplicate_call(first: int, first_label: str, index: int, label: str, call_id: str) -> Finding:
    return _finding(
        "duplicate_call_id",
        _ERROR,
        (first, index),
        f"{label} reuses call_id {call_id!r} of {first_label}; "
        "a function_call_output could answer either",
    )


def _no_call_id(index: int, label: str, call_id: Any) -> Finding:
    return _finding(
        "orphan_output",
        _ERROR,
        (index,),
        f"{label} has no call_id string ({_quote(call_id)})",
    )


def _blocked_answer(
    call: int, call_label: str, verdict: ItemVerdict, index: int, label: str
) -> Finding:
    # A call blocked only because the file holds no schema for it may well have been right to
    # run: its answer is worth a warning, not a second error.
    severity = _WARNING if verdict.verdict == _UNKNOWN_TOOL else _ERROR
    return _finding(
        "output_for_blocked_call",
        severity,
        (call, index),
        f"{label} answers {call_label}, whose verdict is {verdict.verdict} ({verdict.detail}); "
        "only an ok call may be followed by its output",
    )


def _incomplete_not_last(index: int, label: str) -> Finding:
    text = "is incomplete but is not the last item of its response (an incomplete item must end"
    return _finding("incomplete_not_last", _ERROR, (index,), f"{label} {text} the response)")


def _missing_output(index: int, label: str, call_id: str) -> Finding:
    text = f"(call_id {call_id!r}) has no function_call_output in this file"
    return _finding("missing_output", _INFO, (index,), f"{label} {text}")


def _unanswered(
    index: int, label: str, call_id: Any, later: int | None, previous: str | None
) -> Finding:
    """The finding of an output with no earlier call: its call comes later (at `later`), or
    none does (`previous`: the previous response id of the output's group)."""
    if later is not None:
        return _finding(
            "output_before_call",
            _ERROR,
            (index, later),
            f"{label} answers call_id {call_id!r} before the function_call at #{later}",
        )
    if previous:
        return _finding(
            "orphan_output",
            _WARNING,
            (index,),
            f"{label} answers call_id {call_id!r}, which is not in this file (it may be in "
            f"previous response {previous!r})",
        )
    return _finding(
        "orphan_output",
        _ERROR,
        (index,),
        f"{label} answers call_id {call_id!r}, but no earlier function_call has that call_id",
    )


def _duplicate_id(first: int, first_label: str, index: int, label: str, item_id: str) -> Finding:
    return _finding(
        "duplicate_item_id",
        _ERROR,
        (first, index),
        f"{label} has the same id {item_id!r} as {first_label}",
    )


def _non_portable(kind: str, members: Sequence[int]) -> Finding:
    count = f"{len(members)} item{'s' if len(members) != 1 else ''}"
    return _finding(
        "non_portable_type",
        _WARNING,
        tuple(members),
        f"{kind!r} ({count}) is outside the Open Responses core and has no provider prefix: it "
        "is vendor-specific and will not replay on another provider",
    )


def _unprefixed(kind: str, envelope: Envelope) -> bool:
    """Whether a type outside the Open Responses core has no provider prefix (in an Open
    Responses envelope): vendor-specific without saying so."""
    return ":" not in kind and envelope == Envelope.OPEN_RESPONSES


class _Pending(NamedTuple):
    """A finding that waits for the rest of the transcript: the item it is about."""

    item: Item


class _Answer(NamedTuple):
    """An output whose call's verdict is looked at once every verdict is known."""

    call: Item
    item: Item


class _ItemFindings:
    """The findings about items, gathered in one pass over them (see `transcript_findings`).

    Each kind keeps its own list in item order, as the report lists them. A finding that
    depends on later items (an incomplete item that may be last of its response, an output
    whose call may come later) holds its place as `_Pending` until the pass is over. The pass
    needs the verdicts of the first `known` items only (all when None): an output from there
    on holds its place as `_Answer` until every verdict is in `verdicts`.
    """

    def __init__(
        self,
        transcript: Transcript,
        verdicts: Sequence[ItemVerdict],
        toolset: ToolSet,
        known: int | None = None,
        *,
        items: Iterable[Item] | None = None,
    ) -> None:
        self.verdicts = verdicts
        self.toolset = toolset
        if known is None:
            known = len(verdicts) if items is not None else len(transcript.items)
        self.known = known
        #: Calls with no status answered in their own request: history that already ran.
        self.history: list[Item] = []
        self.groups = {g.index: g for g in transcript.groups}
        #: Item indexes of each group, and the last item of each.
        self.by_group: dict[int, list[int]] = {}
        self.status: list[Finding | _Pending] = []
        self.pairing: list[Finding | _Pending | _Answer] = []
        self.identity: list[Finding] = []
        #: The first call with each call_id, and the answered ones.
        self.calls: dict[str, Item] = {}
        self.answered: set[str] = set()
        self.ids: dict[str, Item] = {}
        self.foreign: dict[str, list[int]] = {}
        self._look(transcript.items if items is None else items, grouped=items is None)

    def _look(self, items: Iterable[Item], *, grouped: bool) -> None:
        """Look at each item, in transcript order (`grouped`: and list each group's members).

        One loop with the common case inline: most items of a large log need nothing but
        their group's list, a first call_id or id, or an output answering an ok call, and a
        Python call an item was a third of the findings' time. Anything else goes the whole
        way (`_status`, `_repeated_call`, `_output`, `_repeated_id`).
        """
        by_group, calls, ids, answered = self.by_group, self.calls, self.ids, self.answered
        pairing = self.pairing
        verdicts, known, ok = self.verdicts, self.known, _OK
        last: int | None = None
        members: list[int] = []
        core = PORTABLE_CORE
        for item in items:
            index, kind = item.index, item.type
            if grouped:
                group = item.group
                if group != last:
                    found = by_group.get(group)
                    members = by_group[group] = [] if found is None else found
                    last = group
                members.append(index)
            status = item.status
            if status is not None and (status == "incomplete" or status == "in_progress"):
                self._status(item, status)
            if kind == "function_call":
                call_id = item.call_id
                # The first call with its call_id (nearly all) is only kept.
                if type(call_id) is str and (first := calls.setdefault(call_id, item)) is not item:
                    self._repeated_call(first, item, call_id)
            elif kind == "function_call_output":
                call_id = item.call_id
                call = calls.get(call_id) if type(call_id) is str else None
                if call is not None and index < known:
                    # `_output` of an answer whose call's verdict is known, inline.
                    answered.add(call_id)
                    if verdicts[call.index].verdict != ok:  # an ok call's answer: nothing to say
                        found_answer = self._answer(call, item)
                        if found_answer is not None:
                            pairing.append(found_answer)
                else:
                    self._output(item, call_id)
            elif type(kind) is str and kind not in core and _unprefixed(kind, item.envelope):
                # (Calls and outputs are core types.)
                self.foreign.setdefault(kind, []).append(index)
            item_id = item.id
            # The first item with its id (nearly all) is only kept.
            if (
                type(item_id) is str
                and item_id
                and (first := ids.setdefault(item_id, item)) is not item
            ):
                self._repeated_id(first, item, item_id)

    def _status(self, item: Item, status: str) -> None:
        if status == "incomplete":
            self.status.append(_Pending(item))  # incomplete_not_last, once the group is known
        group = self.groups.get(item.group)
        if group is None or group.kind != "response" or group.status is None:
            return
        if status == "incomplete" and group.status != "incomplete":
            self.status.append(
                Finding(
                    "response_status_mismatch",
                    Severity.ERROR,
                    (item.index,),
                    f"{item_label(item)} is incomplete inside a response whose status is "
                    f"{group.status!r} (must be 'incomplete')",
                )
            )
        elif status == "in_progress" and group.status == "completed":
            # As in a stream: a provider-specific (hosted) item's lifecycle is the provider's
            # to drive, so leaving it in_progress is a warning; a core item's is an error.
            kind = item.type
            hosted = not (isinstance(kind, str) and kind in PORTABLE_CORE)
            self.status.append(
                Finding(
                    "response_status_mismatch",
                    Severity.WARNING if hosted else Severity.ERROR,
                    (item.index,),
                    f"{item_label(item)} is still in_progress inside a completed response"
                    + (" (a provider-driven item the provider never closed)" if hosted else ""),
                )
            )

    def _repeated_call(self, first: Item, item: Item, call_id: str) -> None:
        """A call with the call_id of an earlier one (`first`)."""
        if first.group == item.group or (first.name, first.get("arguments")) != (
            item.name,
            item.get("arguments"),
        ):
            self.pairing.append(
                _duplicate_call(
                    first.index, item_label(first), item.index, item_label(item), call_id
                )
            )

    def _output(self, item: Item, call_id: Any) -> None:
        if type(call_id) is not str:
            self.pairing.append(_no_call_id(item.index, item_label(item), call_id))
            return
        call = self.calls.get(call_id)
        if call is None:
            self.pairing.append(_Pending(item))  # output_before_call, or an orphan
            return
        self.answered.add(call_id)
        if item.index >= self.known:
            # Resolved in item order with the others from here on (the history finding lists
            # its calls in the order their answers come).
            self.pairing.append(_Answer(call, item))
            return
        found = self._answer(call, item)
        if found is not None:
            self.pairing.append(found)

    def _answer(self, call: Item, item: Item) -> Finding | None:
        """The finding of an output for a call that is not ok, given the call's verdict."""
        call_verdict = self.verdicts[call.index]
        if call_verdict.verdict == _OK:
            return None
        group = self.groups.get(call.group)
        if (  # a call without status answered by an output in the same request
            group is not None
            and group.kind == "request"
            and item.group == call.group
            and call.get("status", _ABSENT) is _ABSENT
        ):
            # The request sends back a call that already ran, with its answer: the SDKs omit
            # the call's status there, so the status is not recorded, not in progress.
            as_completed = _call_verdict(
                "completed",
                call.get("arguments", _ABSENT),
                call.name,
                self.toolset,
                DEFAULT_BUDGET,
                None,
                call,
            )
            if as_completed.verdict == Verdict.OK:
                if call not in self.history:
                    self.history.append(call)
                self.verdicts[call.index] = ItemVerdict(  # type: ignore[index]
                    Verdict.STATUS, HISTORY_DETAIL, source=call_verdict.source
                )
                return None
            call_verdict = as_completed
        return _blocked_answer(
            call.index, item_label(call), call_verdict, item.index, item_label(item)
        )

    def history_findings(self) -> list[Finding]:
        """One status_not_recorded warning listing the calls answered in their own request."""
        if not self.history:
            return []
        calls = ", ".join(item_label(c) for c in self.history[:5])
        more = f" (+{len(self.history) - 5} more)" if len(self.history) > 5 else ""
        return [
            Finding(
                "status_not_recorded",
                Severity.WARNING,
                tuple(c.index for c in self.history),
                f"{calls}{more}: no status recorded, but answered in this request (history "
                "that already ran; the OpenAI SDKs omit status there); blocks only under "
                "--strict",
            )
        ]

    def _repeated_id(self, first: Item, item: Item, item_id: str) -> None:
        """An item with the id of an earlier one (`first`)."""
        if first.group == item.group or first.type != item.type:
            # The same item replayed in a later request is expected; only a clash counts.
            self.identity.append(
                _duplicate_id(first.index, item_label(first), item.index, item_label(item), item_id)
            )

    def status_findings(self) -> list[Finding]:
        """incomplete_not_last and response_status_mismatch, in item order."""
        out: list[Finding] = []
        for entry in self.status:
            if not isinstance(entry, _Pending):
                out.append(entry)
                continue
            item = entry.item
            if self.by_group[item.group][-1] != item.index:
                out.append(_incomplete_not_last(item.index, item_label(item)))
        return out

    def pairing_findings(self) -> list[Finding]:
        """Call and output pairing, in item order, then the calls left unanswered."""
        out: list[Finding] = []
        for entry in self.pairing:
            if isinstance(entry, _Pending):
                out.append(self._unanswered(entry.item))
            elif isinstance(entry, _Answer):
                found = self._answer(entry.call, entry.item)
                if found is not None:
                    out.append(found)
            else:
                out.append(entry)
        if self.answered.issuperset(self.calls):
            return out  # every call answered (most files): no loop over the calls
        for call_id, call in self.calls.items():
            if call_id not in self.answered:
                out.append(_missing_output(call.index, item_label(call), call_id))
        return out

    def _unanswered(self, item: Item) -> Finding:
        """The finding of an output with no earlier call: its call comes later, or none does."""
        call_id = item.call_id
        call = self.calls.get(call_id)
        group = self.groups.get(item.group)
        return _unanswered(
            item.index,
            item_label(item),
            call_id,
            None if call is None else call.index,
            group.previous_response_id if group is not None else None,
        )

    def identity_findings(self) -> list[Finding]:
        """Repeated item ids in item order, then the unprefixed non-portable types."""
        out = list(self.identity)
        out.extend(_non_portable(kind, members) for kind, members in self.foreign.items())
        return out


def transcript_findings(
    transcript: Transcript,
    verdicts: list[ItemVerdict],
    toolset: ToolSet,
    overridden: Iterable[str] = (),
    rest: Callable[[], Sequence[ItemVerdict]] | None = None,
) -> list[Finding]:
    """Collect the findings about a transcript as a whole.

    `rest`: `verdicts` are only the first items'; `rest()` gives the others' (which `verdicts`
    is then extended with), asked for once the pass over the items is done.
    """
    out: list[Finding] = []
    for name in overridden:
        source = toolset.tools[name].source
        out.append(
            Finding(
                "tool_override",
                Severity.INFO,
                (),
                f"tool {name!r} from {source} overrides the transcript's definition",
            )
        )
    # One pass over the items gathers what every kind of finding needs.
    found = _ItemFindings(transcript, verdicts, toolset, None if rest is None else len(verdicts))
    if rest is not None:
        verdicts.extend(rest())
    out.extend(_group_findings(transcript, found.by_group))
    out.extend(found.status_findings())
    out.extend(found.pairing_findings())
    out.extend(found.history_findings())
    out.extend(found.identity_findings())
    return out


class ItemFacts(NamedTuple):
    """What the transcript findings read of an item, for items held in another process.

    Enough for a file that is one group of bare items (`item_facts`); an item of a request
    would also need its members (answered history), so such a file is never given as facts.
    """

    index: int  # type: ignore[assignment]  # the field, not tuple.index
    type: Any
    group: int
    status: Any
    call_id: Any
    id: Any
    envelope: Envelope
    name: Any
    role: Any
    type_label: str

    def get(self, key: str, default: Any = None) -> Any:
        """A hot member (the others are not held: `LookupError`)."""
        if key in ("type", "id", "call_id", "name", "role", "status"):
            value = getattr(self, key)
            return default if value is None else value
        raise LookupError(f"item facts hold no {key!r}")


#: Statuses the findings look at.
_LOOKED_AT = frozenset({"incomplete", "in_progress"})


def item_facts(items: Iterable[Item]) -> list[ItemFacts]:
    """The facts of the items the findings' pass has something to look at (`_ItemFindings._look`
    does nothing with the others)."""
    out: list[ItemFacts] = []
    core, looked_at, made = PORTABLE_CORE, _LOOKED_AT, tuple.__new__
    for item in items:
        kind, item_id, status = item.type, item.id, item.status
        if not (
            kind == "function_call"
            or kind == "function_call_output"
            or (type(item_id) is str and item_id)
            or (type(status) is str and status in looked_at)
            or (type(kind) is str and kind not in core and ":" not in kind)
        ):
            continue
        out.append(
            made(
                ItemFacts,
                (
                    item.index,
                    kind,
                    item.group,
                    status,
                    item.call_id,
                    item_id,
                    item.envelope,
                    item.name,
                    item.role,
                    item.type_label,
                ),
            )
        )
    return out


#: Makes an `ItemFacts` of a tuple of its fields without a call of its Python `__new__` (a
#: file's facts are made by the hundred thousand).
facts_of = functools.partial(tuple.__new__, ItemFacts)


def facts_findings(
    transcript: Transcript,
    verdicts: Sequence[ItemVerdict],
    toolset: ToolSet,
    facts: Iterable[ItemFacts],
    members: Sequence[int],
) -> list[Finding]:
    """`transcript_findings` of a file of one group of bare items held elsewhere: `transcript`
    has its group and no items, `verdicts` every item's, `facts` the `item_facts` of every
    item in order, `members` the indexes of its items.
    """
    if len(transcript.groups) != 1 or transcript.tools or transcript.tool_choice is not None:
        raise ValueError("facts stand for a file of one group of bare items")
    found = _ItemFindings(transcript, verdicts, toolset, items=facts)  # type: ignore[arg-type]
    found.by_group = {transcript.groups[0].index: members}  # type: ignore[dict-item]
    out = _group_findings(transcript, found.by_group)
    out.extend(found.status_findings())
    out.extend(found.pairing_findings())
    out.extend(found.history_findings())
    out.extend(found.identity_findings())
    return out


class _Open(NamedTuple):
    """An output that no call before it in its run answers: the runs before decide."""

    index: int  # type: ignore[assignment]  # the field, not tuple.index
    call_id: str
    label: str


class _RunPass:
    """The findings' pass over the items of a file of one group of bare items, from where the
    items before left it: a run's own (in the process that judged it, from nothing) or the
    file's, in the process that joins the runs (`FileFindings`).

    What `_ItemFindings` does for such a file, kept as item indexes rather than items, since
    the items of earlier runs are gone: `verdict_of` and `label_of` give an earlier item's
    verdict and label. An output no call seen so far answers is kept `_Open`.
    """

    def __init__(
        self, verdict_of: Callable[[int], ItemVerdict], label_of: Callable[[int], str]
    ) -> None:
        self.verdict_of, self.label_of = verdict_of, label_of
        self.status: list[Finding] = []
        self.pairing: list[Finding | _Open] = []
        self.identity: list[Finding] = []
        #: The first call of each call_id, and those no output answers yet (in call order).
        self.calls: dict[str, int] = {}
        self.unanswered: dict[str, int] = {}
        self.ids: dict[str, int] = {}
        self.foreign: dict[str, list[int]] = {}

    def look(self, items: Iterable[Item]) -> None:
        """Look at each item, in order (the common case inline, as in `_ItemFindings._look`)."""
        calls, unanswered, ids, pairing = self.calls, self.unanswered, self.ids, self.pairing
        verdict_of, core = self.verdict_of, PORTABLE_CORE
        for item in items:
            index, kind = item.index, item.type
            if item.status == "incomplete":
                # Not last of the file's one group unless it is the file's last item: the
                # join leaves that one out (`FileFindings.findings`).
                self.status.append(_incomplete_not_last(index, item_label(item)))
            if kind == "function_call":
                call_id = item.call_id
                if type(call_id) is str:
                    first = calls.setdefault(call_id, index)
                    if first == index:
                        unanswered[call_id] = index
                    else:
                        pairing.append(
                            _duplicate_call(
                                first, self.label_of(first), index, item_label(item), call_id
                            )
                        )
            elif kind == "function_call_output":
                call_id = item.call_id
                if type(call_id) is not str:
                    pairing.append(_no_call_id(index, item_label(item), call_id))
                else:
                    call = calls.get(call_id)
                    if call is None:
                        pairing.append(_Open(index, call_id, item_label(item)))
                    elif verdict_of(call).verdict == _OK:
                        unanswered.pop(call_id, None)  # `answer`, with nothing to say
                    else:
                        self.answer(call, call_id, index, item)
            elif type(kind) is str and kind not in core and _unprefixed(kind, item.envelope):
                # (Calls and outputs are core types.)
                self.foreign.setdefault(kind, []).append(index)
            item_id = item.id
            if type(item_id) is str and item_id:
                first = ids.setdefault(item_id, index)
                if first != index:
                    self.identity.append(
                        _duplicate_id(first, self.label_of(first), index, item_label(item), item_id)
                    )

    def answer(self, call: int, call_id: str, index: int, output: Item | str) -> None:
        """An output (an item, or its label) answers the first call with its call_id."""
        self.unanswered.pop(call_id, None)
        verdict = self.verdict_of(call)
        if verdict.verdict != _OK:
            label = output if isinstance(output, str) else item_label(output)
            self.pairing.append(_blocked_answer(call, self.label_of(call), verdict, index, label))


@dataclass(slots=True)
class RunFindings:
    """What one run of a file of one group of bare items brings to the file's findings, made
    where the run was judged (`run_findings`); `FileFindings` joins the runs' in order."""

    #: The run's first item index, and the index after its last.
    start: int
    stop: int
    status: list[Finding]
    #: In item order; an output that no call before it in the run answers is `_Open`.
    pairing: list[Finding | _Open]
    identity: list[Finding]
    #: The call_id of each call first with it in the run, in order, and its item index.
    calls: list[str]
    call_at: list[int]
    #: Those of them no output of the run answers, in that order.
    unanswered: list[str]
    #: The labels of the calls later runs' findings most likely name: those unanswered here
    #: (any other is loaded again when a finding names it).
    labels: dict[int, str]
    #: The id of each item first with it in the run, and its index.
    ids: list[str]
    id_at: list[int]
    foreign: dict[str, list[int]]

    def __reduce__(self) -> tuple[Any, ...]:
        # Its findings go as plain tuples: a slotted dataclass is unpickled by a Python
        # `__setstate__` that looks its fields up each time (about 10 us a finding).
        fields = [getattr(self, name) for name in self.__slots__]
        for number in _FINDINGS_AT:
            fields[number] = [
                entry if isinstance(entry, _Open) else _plain(entry) for entry in fields[number]
            ]
        return _received, tuple(fields)


def _plain(finding: Finding) -> tuple[Any, ...]:
    return finding.code, finding.severity, finding.items, finding.message


def _received(*fields: Any) -> RunFindings:
    """A run's findings as they were sent (`RunFindings.__reduce__`)."""
    made = list(fields)
    for number in _FINDINGS_AT:
        made[number] = [
            _finding(*entry) if type(entry) is tuple else entry for entry in made[number]
        ]
    return RunFindings(*made)


#: Where a `RunFindings` holds findings, among its fields.
_FINDINGS_AT = tuple(
    RunFindings.__slots__.index(name) for name in ("status", "pairing", "identity")
)


def run_findings(items: Sequence[Item], verdicts: Sequence[ItemVerdict]) -> RunFindings:
    """What a run of consecutive items of a file of one group of bare items (with their
    verdicts) brings to the file's findings."""
    start = items[0].index if items else 0

    def label_of(index: int) -> str:
        return item_label(items[index - start])

    found = _RunPass(lambda index: verdicts[index - start], label_of)
    found.look(items)
    labels = {index: label_of(index) for index in found.unanswered.values()}
    return RunFindings(
        start,
        start + len(items),
        found.status,
        found.pairing,
        found.identity,
        list(found.calls),
        list(found.calls.values()),
        list(found.unanswered),
        labels,
        list(found.ids),
        list(found.ids.values()),
        found.foreign,
    )


class FileFindings:
    """`transcript_findings` of a file of one group of bare items, joined from its runs'
    `RunFindings` in order (`add`), without the items: `head` has the file's group and no
    items, `verdicts` every item's.

    A run that repeats a call_id or an id of an earlier run names items of those runs in its
    findings: its items are looked at again here from where the runs before left off, and any
    earlier item whose label a finding needs is loaded again (`reload`: the items of the run
    that holds an item index). `reloaded` counts those loads.
    """

    def __init__(
        self,
        head: Transcript,
        verdicts: Sequence[ItemVerdict],
        reload: Callable[[int], Sequence[Item]],
    ) -> None:
        if len(head.groups) != 1 or head.groups[0].kind in ("request", "response"):
            raise ValueError("runs' findings stand for a file of one group of bare items")
        self.head, self.verdicts, self.reload = head, verdicts, reload
        self.labels: dict[int, str] = {}
        self.found = _RunPass(verdicts.__getitem__, self._label)
        self.reloaded = 0
        self._items: Sequence[Item] = ()

    def _reloaded(self, index: int) -> Sequence[Item]:
        items = self._items
        if not items or not items[0].index <= index <= items[-1].index:
            items = self._items = self.reload(index)
            self.reloaded += 1
        return items

    def _label(self, index: int) -> str:
        label = self.labels.get(index)
        if label is None:
            items = self._reloaded(index)
            label = item_label(items[index - items[0].index])
        return label

    def add(self, run: RunFindings) -> None:
        """Join the next run's findings."""
        found = self.found
        calls = found.calls
        self.labels.update(run.labels)
        if not (calls.keys().isdisjoint(run.calls) and found.ids.keys().isdisjoint(run.ids)):
            if run.stop > run.start:
                found.look(self._reloaded(run.start))
            return
        pairing = found.pairing
        for entry in run.pairing:
            if type(entry) is _Open:
                call = calls.get(entry.call_id)
                if call is not None:  # answers a call of an earlier run
                    found.answer(call, entry.call_id, entry.index, entry.label)
                    continue
            pairing.append(entry)
        found.status.extend(run.status)
        found.identity.extend(run.identity)
        calls.update(zip(run.calls, run.call_at, strict=True))
        found.unanswered.update((call_id, calls[call_id]) for call_id in run.unanswered)
        found.ids.update(zip(run.ids, run.id_at, strict=True))
        foreign = found.foreign
        for kind, members in run.foreign.items():
            foreign.setdefault(kind, []).extend(members)

    def findings(self) -> list[Finding]:
        """The file's findings, once every run is joined."""
        found, group, count = self.found, self.head.groups[0], len(self.verdicts)
        out = _group_findings(self.head, {group.index: range(count)})  # type: ignore[dict-item]
        status = found.status
        if status and status[-1].items == (count - 1,):
            status = status[:-1]  # the file's last item is the last of its group
        out.extend(status)
        calls, previous = found.calls, group.previous_response_id
        out.extend(
            _unanswered(entry.index, entry.label, entry.call_id, calls.get(entry.call_id), previous)
            if isinstance(entry, _Open)
            else entry
            for entry in found.pairing
        )
        out.extend(
            _missing_output(call, self._label(call), call_id)
            for call_id, call in found.unanswered.items()
        )
        out.extend(found.identity)
        out.extend(_non_portable(kind, members) for kind, members in found.foreign.items())
        return out


def answered_history(result: GateResult) -> frozenset[int]:
    """The calls found answered in their own request (the `status_not_recorded` finding)."""
    return frozenset(i for f in result.findings if f.code == "status_not_recorded" for i in f.items)


def item_label(item: Item) -> str:
    """Return a short label for messages: '#index type name'."""
    kind, name = item.type, item.name
    if type(kind) is str:
        # The common case at once (a finding names one or two items).
        if type(name) is str:
            return f"#{item.index} {kind} {name}"
        if name is None and type(item.role) is str:
            return f"#{item.index} {kind} {item.role}"
    parts = [f"#{item.index}", item.type_label]
    if isinstance(item.name, str):
        parts.append(item.name)
    elif isinstance(item.role, str):
        parts.append(item.role)
    return " ".join(parts)


__all__ = [
    "PASSING",
    "ArgumentsError",
    "Envelope",
    "FileFindings",
    "Finding",
    "GateResult",
    "ItemFacts",
    "ItemVerdict",
    "RunFindings",
    "Severity",
    "ToolSet",
    "Verdict",
    "allowed_tool_names",
    "answered_history",
    "check_arguments",
    "facts_findings",
    "facts_of",
    "gate_item",
    "gate_transcript",
    "item_facts",
    "item_label",
    "item_verdicts",
    "lookalike",
    "make_toolset",
    "ok_verdict",
    "parse_arguments",
    "run_findings",
    "transcript_findings",
    "verdict_tally",
]
