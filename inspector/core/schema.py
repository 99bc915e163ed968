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

import contextvars
import functools
import json
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

import orjson

# jsonschema-rs and python-jsonschema are imported on first use: the desktop window should paint
# before any schema is compiled, and python-jsonschema is needed only for the rare fallback.
if TYPE_CHECKING:
    import jsonschema_rs
    import referencing
    from jsonschema.exceptions import ValidationError

from inspector.core.model import InspectorError, join_pointer

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


@dataclass(frozen=True, slots=True)
class SchemaIssue:
    """One validation error: where in the instance, where in the schema, which keyword, why."""

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

    return referencing.Registry(retrieve=_refuse_remote)


@functools.cache
def _linear_options() -> jsonschema_rs.RegexOptions:
    import jsonschema_rs

    return jsonschema_rs.RegexOptions()


@functools.cache
def _backtracking_options() -> jsonschema_rs.FancyRegexOptions:
    import jsonschema_rs

    return jsonschema_rs.FancyRegexOptions(backtrack_limit=BACKTRACK_LIMIT)


def _short(message: str) -> str:
    if len(message) <= MAX_MESSAGE:
        return message
    return message[: MAX_MESSAGE - 1] + "…"


def _overrun_message(pattern: str) -> str:
    return (
        f"matching the pattern {_short(repr(pattern))} exceeded the backtrack limit of "
        f"{BACKTRACK_LIMIT:,} steps (it backtracks catastrophically)"
    )


@dataclass(frozen=True, slots=True)
class CompiledSchema:
    """A checked, ready validator for one schema, or the reason the schema is unusable."""

    schema: Any
    #: A jsonschema-rs validator, or a python-jsonschema one for what jsonschema-rs refuses.
    validator: Any | None
    problem: str | None
    dialect: str
    #: ENGINE_RS or ENGINE_PY; None when the schema is unusable.
    engine: str | None = None

    @property
    def usable(self) -> bool:
        """Whether the schema can validate anything."""
        return self.validator is not None


def _schema_key(schema: Any) -> str:
    # Canonical text so equal schemas from different files share one compiled validator.
    return json.dumps(schema, sort_keys=True, separators=(",", ":"), default=repr)


def _pointer(parts: Iterable[Any]) -> str:
    return join_pointer("", *parts)


def _compile(schema: Any) -> CompiledSchema:
    if not isinstance(schema, dict | bool):
        return CompiledSchema(
            schema, None, f"schema must be an object or a boolean, not {type(schema).__name__}", "?"
        )
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


def compile_schema(schema: Any) -> CompiledSchema:
    """Return the cached compiled validator for a JSON Schema (dialect from `$schema`)."""
    return _CACHE.get(schema)


def validate(
    compiled: CompiledSchema,
    instance: Any,
    *,
    budget: float = DEFAULT_BUDGET,
    cancel: threading.Event | None = None,
) -> tuple[SchemaIssue, ...]:
    """Validate an instance; return its errors, most specific first (at most MAX_ERRORS).

    `cancel` is looked at before validation starts. jsonschema-rs then answers in one call that
    linear-time patterns bound by the instance's size. The python-jsonschema fallback (schemas
    with backtracking patterns, among others) looks at `budget` (seconds) and `cancel` before
    every regex match and between errors. A stop, or a match past BACKTRACK_LIMIT, ends
    validation with one `budget` error, which names the pattern in the latter case.
    """
    if compiled.validator is None:
        raise ValueError("schema is not usable: " + (compiled.problem or "unknown problem"))
    if cancel is not None and cancel.is_set():
        return (SchemaIssue("", "", "budget", "validation was cancelled"),)
    fallback = compiled
    if compiled.engine == ENGINE_RS:
        if _rust_can_take(instance):
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
    return _py_issues(fallback.validator, instance, budget, cancel)


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


@dataclass(slots=True)
class _Limits:
    deadline: float
    budget: float
    cancel: threading.Event | None


_LIMITS: contextvars.ContextVar[_Limits | None] = contextvars.ContextVar("limits", default=None)
#: The clock a validation's time budget is measured on (tests inject one to run it out at will).
budget_clock: Callable[[], float] = time.monotonic


@functools.lru_cache(maxsize=4096)
def _pattern_validator(pattern: str) -> jsonschema_rs.Validator:
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(
        {"pattern": pattern}, pattern_options=_backtracking_options()
    )


def _check_limits() -> None:
    limits = _LIMITS.get()
    if limits is None:
        return
    if limits.cancel is not None and limits.cancel.is_set():
        raise BudgetExceeded("validation was cancelled")
    if budget_clock() > limits.deadline:
        raise BudgetExceeded(f"validation exceeded its time budget of {limits.budget:g} s")


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


_BOUNDED: dict[type, type] = {}


def _bounded(cls: type) -> type:
    """Return the validator class whose regex keywords match with jsonschema-rs."""
    found = _BOUNDED.get(cls)
    if found is None:
        keywords = {}
        for name, function in (
            ("pattern", _pattern),
            ("patternProperties", _pattern_properties),
            ("additionalProperties", _additional_properties),
        ):
            if name in cls.VALIDATORS:
                keywords[name] = function
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

    with warnings.catch_warnings():
        # An unknown $schema makes jsonschema warn and fall back; we report the dialect instead.
        warnings.simplefilter("ignore")
        cls = validator_for(schema, default=jsonschema.Draft202012Validator)
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
    validator: Any, instance: Any, budget: float, cancel: threading.Event | None
) -> tuple[SchemaIssue, ...]:
    import referencing.exceptions

    token = _LIMITS.set(_Limits(budget_clock() + budget, budget, cancel))
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
