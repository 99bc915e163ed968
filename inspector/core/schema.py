"""Tool schemas → cached validators, and ranked validation errors with JSON Pointers.

jsonschema-rs validates every schema whose patterns run in linear time (the regex crate's engine:
no lookaround, no backreferences), which is nearly every tool schema: `format` is an annotation
only, and its retriever refuses every remote `$ref`, so nothing is ever fetched. It holds the GIL
and cannot be stopped while it validates: linear time bounds that by the instance's size.

python-jsonschema takes what jsonschema-rs refuses: a schema with backtracking patterns, an
unknown `$schema`, a remote `$ref`, a broken schema (which it then explains), and an instance Rust
cannot hold (lone surrogates, integers past 64 bits). Its `pattern` keywords match with fancy-regex
through jsonschema-rs under a backtrack limit, whose overrun is a `budget` error naming the
pattern. Other threads run between its matches, and each match looks at the item's time budget
and cancel flag first.
Patterns are ECMA-262 regexes, as JSON Schema specifies, whichever validator answers.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import json
import math
import re
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn

import msgspec
import orjson

# jsonschema-rs and python-jsonschema are imported on first use: the desktop window should paint
# before any schema is compiled, and python-jsonschema is needed only for the rare fallback.
if TYPE_CHECKING:
    import jsonschema_rs
    import referencing
    from jsonschema.exceptions import ValidationError

from inspector.core.display import cut, shorten_digits
from inspector.core.errors import Location
from inspector.core.model import InspectorError, join_pointer, json_kind

#: Longest message text kept per error; instance reprs in messages can be megabytes.
MAX_MESSAGE = 400
#: Most errors reported per item; the rest are counted, not listed.
MAX_ERRORS = 200
_CACHE_SIZE = 1024
#: Seconds one item's validation may take when its schema has backtracking patterns (see
#: `validate`).
DEFAULT_BUDGET = 2.0
#: Backtracking steps one regex match may take before it is stopped and reported as a `budget`
#: error (fancy-regex's own default, made explicit). A catastrophic pattern reaches it in about
#: 20 ms; legitimate lookaround and backreference patterns stay far below it on 100 kB strings.
BACKTRACK_LIMIT = 1_000_000

#: The validators that answer for a compiled schema.
ENGINE_RS = "jsonschema-rs"
ENGINE_PY = "jsonschema"

# Dialect URIs of the jsonschema-rs validator classes (from the JSON Schema specifications).
_RS_DIALECTS = {
    "Draft4Validator": "http://json-schema.org/draft-04/schema#",
    "Draft6Validator": "http://json-schema.org/draft-06/schema#",
    "Draft7Validator": "http://json-schema.org/draft-07/schema#",
    "Draft201909Validator": "https://json-schema.org/draft/2019-09/schema",
    "Draft202012Validator": "https://json-schema.org/draft/2020-12/schema",
}
# Keywords that only need one branch to pass: their own error says least about what is wrong.
_WEAK = frozenset({"anyOf", "oneOf"})
# jsonschema-rs names these error kinds after the keyword family (`contains` for minContains,
# `required` for dependentRequired); the last evaluation-path step names the keyword itself.
_FAMILY_KINDS = frozenset({"contains", "required"})


class SchemaIssue(msgspec.Struct, frozen=True):
    """One validation error: where in the instance, where in the schema, which keyword, why."""

    # A msgspec struct, made in C (a frozen dataclass sets each field through
    # object.__setattr__): the invalid calls of a large log list tens of thousands.

    path: str
    schema_path: str
    keyword: str
    message: str

    def to_json(self) -> dict[str, str]:
        """Return the CLI's JSON form."""
        return {
            "path": self.path,
            "schema_path": self.schema_path,
            "keyword": self.keyword,
            "message": self.message,
        }


class RemoteReferenceRefused(InspectorError):
    """Raised by the retrievers instead of fetching anything from the network or the disk."""


class BudgetExceeded(InspectorError):
    """A pattern overran the backtrack limit, or validation was cancelled or ran out of time."""


def _refuse_remote(uri: Any) -> NoReturn:
    # Remote $refs are never fetched: a transcript must not make the inspector touch the network.
    raise RemoteReferenceRefused(f"remote $ref {str(uri)!r} is not fetched (no network access)")


@functools.cache
def _registry() -> referencing.Registry[Any]:
    import referencing

    return referencing.Registry(retrieve=_refuse_remote)  # type: ignore[call-arg]


@functools.cache
def _linear_options() -> jsonschema_rs.RegexOptions:
    import jsonschema_rs

    return jsonschema_rs.RegexOptions()


@functools.cache
def _backtracking_options() -> jsonschema_rs.FancyRegexOptions:
    import jsonschema_rs

    return jsonschema_rs.FancyRegexOptions(backtrack_limit=BACKTRACK_LIMIT)


def _short(message: str) -> str:
    # Clipped here, before any report redacts it: `cut` never keeps part of a token.
    return cut(shorten_digits(message), MAX_MESSAGE)


def _overrun_message(pattern: str) -> str:
    return (
        f"matching the pattern {_short(repr(pattern))} exceeded the backtrack limit of "
        f"{BACKTRACK_LIMIT:,} steps (it backtracks catastrophically)"
    )


class CompiledSchema(msgspec.Struct, frozen=True):
    """A checked, ready validator for one schema, or the reason the schema is unusable."""

    # The classes of this module are msgspec Structs, made in C at import (a dataclass writes
    # out and compiles its methods, about 6 M instructions each, which a scan's workers wait for).

    schema: Any
    #: A jsonschema-rs validator, or a python-jsonschema one for what jsonschema-rs refuses.
    validator: Any | None
    problem: str | None
    dialect: str
    #: ENGINE_RS or ENGINE_PY; None when the schema is unusable.
    engine: str | None = None
    #: Why a refused schema is refused (`schema_too_complex`, `schema_invalid`), and where.
    code: str | None = None
    pointer: str | None = None

    @property
    def usable(self) -> bool:
        """Whether the schema can validate anything."""
        return self.validator is not None


def _schema_key(schema: Any) -> str:
    # Canonical text so equal schemas from different files share one compiled validator.
    return json.dumps(schema, sort_keys=True, separators=(",", ":"), default=repr)


def _pointer(parts: Iterable[Any]) -> str:
    return join_pointer("", *parts)


# --------------------------------------------------------------------------------------------
# Bounding a schema before it runs
#
# A validator's work per instance value grows with the schema as it is *expanded*: every `$ref`
# inlined where it is used, every combinator branch walked. `$defs` where each level is
# `allOf: [{$ref: next}, {$ref: next}]` is 70 lines of JSON and 2^32 subschemas. The expansion is
# counted once per schema (memoised per node, saturating at the limit) and a schema past it is
# refused with the pointer where it first grows too large.

#: Subschemas a schema may expand to (each `$ref` counted where it is used). The tool schemas
#: in the samples and the corpus expand to fewer than ten; a bomb to 2^depth.
MAX_EXPANSION = 20_000
#: Keywords whose values are data, not subschemas: never walked for expansion.
_DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples", "$comment", "description"})
#: Keywords whose values are subschemas only when reached through a `$ref`.
_DEFINITIONS = frozenset({"$defs", "definitions"})
#: Keywords that re-walk their schema's other applicators for every property or item
#: (python-jsonschema finds the evaluated keys again): they double the expansion below them.
_REWALK = frozenset({"unevaluatedProperties", "unevaluatedItems"})
_REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")
#: Keywords whose value maps names (of properties, say) to subschemas: its keys are not keywords.
_NAME_MAPS = frozenset(
    {"properties", "patternProperties", "dependentSchemas", "dependencies", *_DEFINITIONS}
)


class SchemaRefused(InspectorError):
    """A schema that is not run: too complex, or not what JSON Schema allows; names the pointer."""

    def __init__(self, code: str, pointer: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.pointer = pointer
        self.where = Location(pointer=pointer or "/")

    def __str__(self) -> str:
        return f"{self.pointer or '/'}: {self.message}"


def _index(schema: Any) -> dict[str, tuple[Any, str]]:
    """Every `$id`, `$anchor` and `$dynamicAnchor` in a schema → (node, pointer)."""
    found: dict[str, tuple[Any, str]] = {}
    stack: list[tuple[Any, str]] = [(schema, "")]
    while stack:
        node, pointer = stack.pop()
        if isinstance(node, dict):
            for key in ("$id", "id"):
                name = node.get(key)
                if isinstance(name, str):
                    found.setdefault(name, (node, pointer))
                    found.setdefault(name.rstrip("#").rsplit("/", 1)[-1], (node, pointer))
            for key in ("$anchor", "$dynamicAnchor"):
                name = node.get(key)
                if isinstance(name, str):
                    found.setdefault("#" + name, (node, pointer))
            stack.extend(
                (child, join_pointer(pointer, key))
                for key, child in node.items()
                if key not in _DATA_KEYWORDS and isinstance(child, dict | list)
            )
        elif isinstance(node, list):
            stack.extend(
                (child, join_pointer(pointer, i))
                for i, child in enumerate(node)
                if isinstance(child, dict | list)
            )
    return found


def _resolve(root: Any, ref: str, ids: dict[str, tuple[Any, str]]) -> tuple[Any, str] | None:
    """The node a local `$ref` names, or None (remote, or nowhere in this schema)."""
    from urllib.parse import unquote

    if ref in ids:
        return ids[ref]
    base, _, fragment = ref.partition("#")
    if base:
        hit = ids.get(base) or ids.get(base.rsplit("/", 1)[-1])
        if hit is None:
            return None
        node, pointer = hit
    else:
        node, pointer = root, ""
    if not fragment:
        return node, pointer
    if not fragment.startswith("/"):
        return ids.get("#" + fragment)
    for token in fragment[1:].split("/"):
        token = unquote(token).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
        pointer = join_pointer(pointer, token)
    return node, pointer


def _children(node: Any, pointer: str, names: bool) -> Iterator[tuple[Any, str, bool]]:
    """The values of a schema worth expanding; `names`: the node maps names to schemas."""
    if isinstance(node, dict):
        for key, child in node.items():
            if names or (key not in _DATA_KEYWORDS and key not in _DEFINITIONS):
                yield child, join_pointer(pointer, key), not names and key in _NAME_MAPS
    elif isinstance(node, list):
        for number, child in enumerate(node):
            yield child, join_pointer(pointer, number), False


def _check_value(node: Any, pointer: str, names: bool = False) -> None:
    """Refuse what no JSON Schema may hold: a non-string `$schema`, a non-finite number."""
    if isinstance(node, float) and not math.isfinite(node):
        raise SchemaRefused(
            "schema_invalid",
            pointer,
            f"{node!r} is not a JSON number (a schema bound must be finite)",
        )
    if (
        not names
        and isinstance(node, dict)
        and "$schema" in node
        and not isinstance(node["$schema"], str)
    ):
        raise SchemaRefused(
            "schema_invalid",
            join_pointer(pointer, "$schema"),
            f"$schema must be a string, not a JSON {json_kind(node['$schema'])}",
        )


def measure(schema: Any, limit: int | None = None) -> int:
    """Return how many subschemas a schema expands to; raise SchemaRefused past `limit`.

    Each `$ref` counts as the expansion of what it names, where it is used; a `$ref` back to a
    schema being expanded counts once (recursion follows the instance, which is finite).
    Non-finite numbers and a non-string `$schema` anywhere are refused too.
    """
    limit = MAX_EXPANSION if limit is None else limit
    ids = _index(schema)
    cost: dict[int, int] = {}
    active: set[int] = set()
    # Iterative post-order walk: a schema nests 512 levels and $refs chain without end.
    # (node, pointer, names, expanded): an iterative post-order walk, since a schema nests 512
    # levels and $refs chain without end.
    stack: list[tuple[Any, str, bool, bool]] = [(schema, "", False, False)]
    # The definitions are checked (values, $schema) even when nothing names them.
    for key in _DEFINITIONS:
        defs = schema.get(key) if isinstance(schema, dict) else None
        if isinstance(defs, dict):
            stack.extend(
                (child, join_pointer("", key, name), False, False) for name, child in defs.items()
            )
    while stack:
        node, pointer, names, done = stack.pop()
        node_id = id(node)
        if not done:
            _check_value(node, pointer, names)
            if not isinstance(node, dict | list) or node_id in cost or node_id in active:
                continue
            active.add(node_id)
            stack.append((node, pointer, names, True))
            for child, where, child_names in _children(node, pointer, names):
                if id(child) not in cost:
                    stack.append((child, where, child_names, False))
            for ref in _refs(node, names):
                target = _resolve(schema, ref, ids)
                if target is not None and id(target[0]) not in cost:
                    stack.append((target[0], target[1], False, False))
            continue
        active.discard(node_id)
        total = 1 if isinstance(node, dict) else 0
        for child, _where, _names in _children(node, pointer, names):
            total += cost.get(id(child), 0)
        for ref in _refs(node, names):
            target = _resolve(schema, ref, ids)
            # A target still being expanded is a recursive $ref: it counts once.
            total += 1 if target is None else cost.get(id(target[0]), 1)
        if not names and isinstance(node, dict) and _REWALK.intersection(node):
            total *= 2
        if isinstance(node, dict) and total > limit:
            raise SchemaRefused(
                "schema_too_complex",
                pointer,
                f"the schema expands to more than {limit:,} subschemas here ($ref and "
                "combinators multiply); it is not run",
            )
        cost[node_id] = min(total, limit + 1)  # saturate: 2^depth need never be computed
    return cost.get(id(schema), 1)


def _refs(node: Any, names: bool) -> list[str]:
    if names or not isinstance(node, dict):
        return []
    return [ref for ref in (node.get(k) for k in _REF_KEYWORDS) if isinstance(ref, str)]


def _compile(schema: Any) -> CompiledSchema:
    if not isinstance(schema, dict | bool):
        return CompiledSchema(
            schema, None, f"schema must be an object or a boolean, not {type(schema).__name__}", "?"
        )
    try:
        measure(schema)
    except SchemaRefused as exc:
        # Never validated, by either engine: what it would cost is the problem.
        return CompiledSchema(
            schema, None, _short(str(exc)), "?", code=exc.code, pointer=exc.pointer
        )
    if not _rust_can_take(schema):
        # A bound past 64 bits (jsonschema-rs would clamp `minLength: 10^100` to 2^64 - 1), or
        # text Rust cannot hold: python-jsonschema keeps the number exact.
        return _FALLBACK.get(schema)
    import jsonschema_rs

    try:
        validator = jsonschema_rs.validator_for(
            schema,
            validate_formats=False,
            retriever=_refuse_remote,
            pattern_options=_linear_options(),
        )
    except Exception:
        # Refused: a backtracking pattern, an unknown $schema, a remote $ref, an invalid schema,
        # text Rust cannot hold. python-jsonschema validates what it can, and explains the rest.
        return _FALLBACK.get(schema)
    dialect = _RS_DIALECTS.get(type(validator).__name__, type(validator).__name__)
    return CompiledSchema(schema, validator, None, dialect, ENGINE_RS)


class _SchemaCache:
    """A bounded LRU of compiled schemas keyed by canonical schema text."""

    def __init__(self, size: int, compile_: Callable[[Any], CompiledSchema]) -> None:
        self.size = size
        self._compile = compile_
        self._items: OrderedDict[str, CompiledSchema] = OrderedDict()
        self._by_identity: dict[int, tuple[Any, CompiledSchema]] = {}

    def get(self, schema: Any) -> CompiledSchema:
        # The same schema object is asked for once per call in a log: skip the canonical text.
        same = self._by_identity.get(id(schema))
        if same is not None and same[0] is schema:
            return same[1]
        key = _schema_key(schema)
        found = self._items.get(key)
        if found is None:
            found = self._compile(schema)
            self._items[key] = found
            if len(self._items) > self.size:
                self._items.popitem(last=False)
        else:
            self._items.move_to_end(key)
        if len(self._by_identity) >= self.size:
            self._by_identity.clear()
        # The entry holds the schema itself, so its id cannot be reused while it is here.
        # Schemas are parsed JSON that nothing mutates, so identity implies equal content.
        self._by_identity[id(schema)] = (schema, found)
        return found


_CACHE = _SchemaCache(_CACHE_SIZE, _compile)


def refusal(compiled: CompiledSchema) -> SchemaIssue:
    """The error that stands for a refused schema: its code as keyword, its pointer."""
    return SchemaIssue("", compiled.pointer or "", compiled.code or "error", compiled.problem or "")


def compile_schema(schema: Any) -> CompiledSchema:
    """Return the cached compiled validator for a JSON Schema (dialect from `$schema`)."""
    return _CACHE.get(schema)


def validate(
    compiled: CompiledSchema,
    instance: Any,
    *,
    budget: float = DEFAULT_BUDGET,
    cancel: threading.Event | None = None,
    total: FileBudget | None = None,
    writable: bool = False,
) -> tuple[SchemaIssue, ...]:
    """Validate an instance; return its errors, most specific first (at most MAX_ERRORS).

    `cancel` and the file's budget (`total`, else the one `file_budget` set) are looked at
    before validation starts. jsonschema-rs then answers in one call, which the schema's
    measured expansion and linear-time patterns bound by the instance's size. The
    python-jsonschema fallback (schemas with backtracking patterns, among others) looks at
    `budget` (seconds), ITEM_STEPS, the file's budget and `cancel` before every keyword and
    regex match. A stop, or a match past BACKTRACK_LIMIT, ends validation with one `budget`
    error, which names the pattern in the latter case. `writable`: the caller knows orjson
    writes the instance back (`jsonio.parse_arguments_checked`), so it is not serialised to
    find out whether jsonschema-rs can take it.
    """
    if compiled.validator is None:
        raise ValueError("schema is not usable: " + (compiled.problem or "unknown problem"))
    if cancel is not None and cancel.is_set():
        return (SchemaIssue("", "", "budget", "validation was cancelled"),)
    total = _FILE.get() if total is None else total
    spent = total.overrun() if total is not None else None
    if spent is not None:
        return (SchemaIssue("", "", "budget", spent),)
    fallback = compiled
    if compiled.engine == ENGINE_RS:
        if writable or _rust_can_take(instance):
            try:
                if compiled.validator.is_valid(instance):
                    return ()
                issues = _rs_issues(compiled.validator.iter_errors(instance))
            except Exception:  # whatever jsonschema-rs cannot take, python-jsonschema answers
                issues = ()
            if issues:
                return issues
        # The instance is out of jsonschema-rs's reach, or it was judged invalid without a listed
        # error: python-jsonschema answers.
        fallback = _FALLBACK.get(compiled.schema)
        if fallback.validator is None:
            reason = fallback.problem or "unknown problem"
            return (SchemaIssue("", "", "error", _short(f"validation failed: {reason}")),)
    return _py_issues(fallback.validator, instance, budget, cancel, total)


def _rust_can_take(instance: Any) -> bool:
    # jsonschema-rs misjudges integers of more than 4300 digits (Python refuses to convert them
    # to text) and refuses lone surrogates. orjson refuses both, and integers past 64 bits,
    # and nesting past 255 levels, at C speed: those few instances go to the fallback.
    try:
        orjson.dumps(instance)
    except (TypeError, orjson.JSONEncodeError):
        return False
    return True


def _rank(found: Iterable[tuple[tuple[Any, ...], SchemaIssue]]) -> tuple[SchemaIssue, ...]:
    """Rank errors most specific first, without duplicates, and keep MAX_ERRORS of them."""

    # Deepest instance path first; at one depth weak keywords last, then instance order and
    # keyword, so that both validators rank the same errors alike.

    def key(pair: tuple[tuple[Any, ...], SchemaIssue]) -> tuple[Any, ...]:
        # Paths compare part by part; parts at one position share a parent, hence a type.
        parts, issue = pair
        return (-len(parts), issue.keyword in _WEAK, parts, issue.keyword)

    issues = dict.fromkeys(issue for _parts, issue in sorted(found, key=key))
    return tuple(issues)[:MAX_ERRORS]


def _rs_issues(errors: Iterator[jsonschema_rs.ValidationError]) -> tuple[SchemaIssue, ...]:
    found = []
    for error in errors:
        keyword = error.kind.name
        last = error.evaluation_path[-1] if error.evaluation_path else None
        if keyword in _FAMILY_KINDS and isinstance(last, str):
            keyword = last
        issue = SchemaIssue(
            path=_pointer(error.instance_path),
            # The evaluation path: the keyword's location reached from the root, through $refs.
            schema_path=_pointer(error.evaluation_path),
            keyword=keyword,
            message=_short(error.message),
        )
        found.append((tuple(error.instance_path), issue))
    return _rank(found)


# --------------------------------------------------------------------------------------------
# The python-jsonschema fallback
#
# python-jsonschema matches `pattern` and `patternProperties` with `re`: another regex dialect,
# and a match that cannot be stopped. These keywords are replaced by ones that match with
# fancy-regex through jsonschema-rs, one tiny validator per pattern, under the backtrack limit,
# and look at the item's deadline and cancel flag before each match. (`unevaluatedProperties`
# still reads patternProperties with `re` inside python-jsonschema.)


#: Keyword evaluations (and regex matches) one item's fallback validation may take.
ITEM_STEPS = 2_000_000
#: Keyword evaluations the fallback may take over all the items of one file (see `FileBudget`).
FILE_STEPS = 20_000_000
#: Seconds all the validations of one file may take together.
DEFAULT_FILE_BUDGET = 30.0


#: The clock a validation's time budget is measured on (tests inject one to run it out at will).
budget_clock: Callable[[], float] = time.monotonic


def _now() -> float:
    # Looked up at each call, so that an injected `budget_clock` rules item and file budgets.
    return budget_clock()


class FileBudget(msgspec.Struct):
    """What validating all the items of one file may take together: steps and seconds.

    Each item has its own bound too; this one stops many items each just under theirs.
    """

    seconds: float = msgspec.field(default_factory=lambda: DEFAULT_FILE_BUDGET)
    steps: int = msgspec.field(default_factory=lambda: FILE_STEPS)
    started: float = msgspec.field(default_factory=_now)
    used: int = 0

    def overrun(self) -> str | None:
        """Why the file's budget is spent, or None while it lasts."""
        if self.used > self.steps:
            return (
                f"validation of this file exceeded its total of {self.steps:,} keyword "
                "evaluations; the remaining items are not validated"
            )
        # `budget_clock` read here at each call, as `_now` reads it (one Python call fewer:
        # the gate asks this of every call it judges).
        if budget_clock() - self.started > self.seconds:
            return (
                f"validation of this file exceeded its total budget of {self.seconds:g} s; "
                "the remaining items are not validated"
            )
        return None


_FILE: contextvars.ContextVar[FileBudget | None] = contextvars.ContextVar("file", default=None)


def current_file_budget() -> FileBudget | None:
    """The file's budget `validate` shares in this context (`file_budget`), or None."""
    return _FILE.get()


@contextlib.contextmanager
def file_budget(budget: FileBudget | None = None) -> Iterator[FileBudget]:
    """Make every `validate` in this context (and thread) share one file's budget."""
    budget = FileBudget() if budget is None else budget
    token = _FILE.set(budget)
    try:
        yield budget
    finally:
        _FILE.reset(token)


class _Limits(msgspec.Struct):
    deadline: float
    budget: float
    cancel: threading.Event | None
    steps: int
    total: FileBudget | None


_LIMITS: contextvars.ContextVar[_Limits | None] = contextvars.ContextVar("limits", default=None)


@functools.lru_cache(maxsize=4096)
def _pattern_validator(pattern: str) -> jsonschema_rs.Validator:
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(
        {"pattern": pattern}, pattern_options=_backtracking_options()
    )


def _check_limits() -> None:
    """One step of fallback validation: stop it when cancelled or past a bound."""
    limits = _LIMITS.get()
    if limits is None:
        return
    if limits.cancel is not None and limits.cancel.is_set():
        raise BudgetExceeded("validation was cancelled")
    limits.steps -= 1
    if limits.steps < 0:
        raise BudgetExceeded(
            f"validation exceeded its bound of {ITEM_STEPS:,} keyword evaluations for one item"
        )
    if _now() > limits.deadline:
        raise BudgetExceeded(f"validation exceeded its time budget of {limits.budget:g} s")
    if limits.total is not None:
        limits.total.used += 1
        why = limits.total.overrun() if not limits.total.used % 256 else None
        if why is not None:
            raise BudgetExceeded(why)


#: A regex match longer than this is followed by a short pause when it runs on a worker thread.
_LONG_MATCH = 0.002
_YIELD_SECONDS = 0.001
_MAIN = threading.main_thread()


def _search(pattern: str, text: str) -> bool:
    """Whether an ECMA-262 pattern matches somewhere in text; BudgetExceeded on an overrun."""
    import jsonschema_rs

    _check_limits()
    started = time.monotonic()
    try:
        errors = list(_pattern_validator(pattern).iter_errors(text))
    except UnicodeEncodeError:
        # Rust strings cannot hold lone surrogates; each one is matched as U+FFFD.
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        errors = list(_pattern_validator(pattern).iter_errors(text))
    if time.monotonic() - started > _LONG_MATCH and threading.current_thread() is not _MAIN:
        # A match holds the interpreter for its whole length (jsonschema-rs keeps the GIL).
        # A window thread that gives the GIL up and takes it back around every Qt call (a
        # highlighter applying formats, say) would wait out one such match each time and stall
        # for most of a second; a short sleep after a long match lets it run its pending work.
        time.sleep(_YIELD_SECONDS)
    overrun = jsonschema_rs.ValidationErrorKind.BacktrackLimitExceeded
    if any(isinstance(error.kind, overrun) for error in errors):
        raise BudgetExceeded(_overrun_message(pattern))
    return not errors


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{_short(repr(instance))} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Any, additional: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = [
        key
        for key in instance
        if key not in properties and not any(_search(p, key) for p in patterns)
    ]
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        listed = ", ".join(repr(e) for e in sorted(extras))
        if patterns:
            verb = "does" if len(extras) == 1 else "do"
            yield ValidationError(
                f"{listed} {verb} not match any of the regexes: "
                + ", ".join(repr(p) for p in sorted(patterns))
            )
        else:
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(
                f"Additional properties are not allowed ({listed} {verb} unexpected)"
            )


def _is_regex(text: object) -> bool:
    if isinstance(text, str):
        _pattern_validator(text)
    return True


def _unique_key(value: Any) -> Any:
    """A hashable stand-in equal for JSON-equal values (1 == 1.0, true != 1, keys unordered)."""
    if isinstance(value, bool) or value is None:
        return ("b", value)
    if isinstance(value, int | float):
        return ("n", value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, list):
        return ("l", tuple([_unique_key(v) for v in value]))
    if isinstance(value, dict):
        return ("o", frozenset([(k, _unique_key(v)) for k, v in value.items()]))
    return ("?", id(value))


def _unique_items(
    validator: Any, unique: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    # python-jsonschema compares unsortable elements (objects) pairwise: quadratic, and one
    # keyword call that no check could stop. Hashing each element once is linear.
    from jsonschema.exceptions import ValidationError

    if not unique or not validator.is_type(instance, "array"):
        return
    seen: dict[Any, int] = {}
    for number, element in enumerate(instance):
        if not number % 256:
            _check_limits()
        try:
            key = _unique_key(element)
        except RecursionError:
            raise BudgetExceeded(
                "uniqueItems: an element is nested too deeply to compare"
            ) from None
        if key in seen:
            yield ValidationError(
                f"the array has non-unique elements (item {number} equals item {seen[key]})"
            )
            return
        seen[key] = number


def _counted(function: Callable[..., Any]) -> Callable[..., Iterator[ValidationError]]:
    """A keyword that takes one step of the limits before it runs (see `_check_limits`)."""

    def keyword(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        _check_limits()
        errors = function(validator, value, instance, schema)
        if errors is not None:
            yield from errors

    return keyword


class _BoundedRe:
    """python-jsonschema's `re` for unevaluatedProperties, which searches patternProperties
    itself: inside a fallback validation a search runs on fancy-regex under the limits."""

    def __getattr__(self, name: str) -> Any:
        return getattr(re, name)

    @staticmethod
    def search(pattern: Any, string: Any, flags: int = 0) -> Any:
        """re.search, or a bounded ECMA-262 search (truthy on a match) during a validation."""
        if flags or _LIMITS.get() is None or not isinstance(pattern, str):
            return re.search(pattern, string, flags)
        return True if _search(pattern, string) else None


def _bound_unevaluated() -> bool:
    """Route python-jsonschema's own pattern searches through `_BoundedRe`; False if unable."""
    from jsonschema import _utils

    if isinstance(getattr(_utils, "re", None), _BoundedRe):
        return True
    if getattr(_utils, "re", None) is not re:
        return False
    _utils.re = _BoundedRe()
    return True


_BOUNDED: dict[type, type] = {}


def _bounded(cls: Any) -> type:
    """Return the validator class whose keywords take steps and whose regexes are bounded."""
    found = _BOUNDED.get(cls)
    if found is None:
        replaced = {
            "pattern": _pattern,
            "patternProperties": _pattern_properties,
            "additionalProperties": _additional_properties,
            "uniqueItems": _unique_items,
        }
        keywords = {
            name: _counted(replaced.get(name, function))
            for name, function in cls.VALIDATORS.items()
        }
        from jsonschema.validators import extend

        found = extend(cls, keywords)
        _BOUNDED[cls] = found
    return found


def _format_checker(cls: Any) -> Any:
    import jsonschema
    import jsonschema_rs

    checker = jsonschema.FormatChecker()
    checker.checkers = dict(cls.FORMAT_CHECKER.checkers)
    checker.checkers["regex"] = (_is_regex, (jsonschema_rs.ValidationError, ValueError))
    return checker


def _compile_python(schema: Any) -> CompiledSchema:
    import jsonschema
    from jsonschema.exceptions import best_match
    from jsonschema.validators import validator_for

    try:
        with warnings.catch_warnings():
            # An unknown $schema makes jsonschema warn and fall back; we report the dialect.
            warnings.simplefilter("ignore")
            cls = validator_for(schema, default=jsonschema.Draft202012Validator)
    except Exception as exc:  # a $schema python-jsonschema cannot even look up
        return CompiledSchema(schema, None, _short(f"schema cannot be checked: {exc}"), "?")
    if not _bound_unevaluated() and "unevaluatedProperties" in _schema_key(schema):
        return CompiledSchema(
            schema, None, "unevaluatedProperties cannot be bounded here; it is not run", "?"
        )
    dialect = getattr(cls, "META_SCHEMA", {}).get("$schema", cls.__name__)
    try:
        meta = cls(cls.META_SCHEMA, format_checker=_format_checker(cls), registry=_registry())
        problem = best_match(meta.iter_errors(schema))
    except RecursionError:
        return CompiledSchema(schema, None, "schema is nested too deeply to check", dialect)
    except Exception as exc:  # a broken schema must never crash the gate
        return CompiledSchema(schema, None, _short(f"schema cannot be checked: {exc}"), dialect)
    if problem is not None:
        where = _pointer(problem.absolute_path) or "/"
        return CompiledSchema(
            schema, None, _short(f"schema is invalid at {where}: {problem.message}"), dialect
        )
    try:
        validator = _bounded(cls)(schema, registry=_registry())
    except Exception as exc:
        return CompiledSchema(schema, None, _short(f"schema cannot be used: {exc}"), dialect)
    return CompiledSchema(schema, validator, None, dialect, ENGINE_PY)


_FALLBACK = _SchemaCache(64, _compile_python)


def _py_issue(error: ValidationError) -> tuple[tuple[Any, ...], SchemaIssue]:
    # A false schema fails without a keyword; jsonschema-rs calls that kind falseSchema.
    keyword = "falseSchema" if error.validator is None else str(error.validator)
    issue = SchemaIssue(
        path=_pointer(error.absolute_path),
        schema_path=_pointer(error.absolute_schema_path),
        keyword=keyword,
        message=_short(error.message),
    )
    return tuple(error.absolute_path), issue


def _reference_issue(exc: BaseException) -> SchemaIssue:
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, RemoteReferenceRefused):
        cause = cause.__cause__ or cause.__context__
    text = str(cause) if cause is not None else f"$ref cannot be resolved: {exc}"
    return SchemaIssue(path="", schema_path="", keyword="$ref", message=_short(text))


def _py_issues(
    validator: Any,
    instance: Any,
    budget: float,
    cancel: threading.Event | None,
    total: FileBudget | None,
) -> tuple[SchemaIssue, ...]:
    import referencing.exceptions

    token = _LIMITS.set(_Limits(_now() + budget, budget, cancel, ITEM_STEPS, total))
    found: list[tuple[tuple[Any, ...], SchemaIssue]] = []
    try:
        for error in validator.iter_errors(instance):
            found.append(_py_issue(error))
            if len(found) >= MAX_ERRORS:
                break
            _check_limits()
    except BudgetExceeded as exc:
        return (SchemaIssue("", "", "budget", _short(str(exc))),)
    except referencing.exceptions.Unresolvable as exc:
        return (_reference_issue(exc),)
    except RecursionError:
        return (SchemaIssue("", "", "$ref", "validation recursed too deeply (recursive $ref?)"),)
    except Exception as exc:  # a hostile instance or schema must not crash the caller
        return (SchemaIssue("", "", "error", _short(f"validation failed: {exc!r}")),)
    finally:
        _LIMITS.reset(token)
    return _rank(found)
