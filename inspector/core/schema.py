"""Tool schemas → cached jsonschema validators, and ranked validation errors with JSON Pointers."""

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
from typing import TYPE_CHECKING, Any

import regex

# jsonschema and referencing are imported on first use: they are the slowest imports of the
# project, and the desktop window should paint before any schema is compiled.
if TYPE_CHECKING:
    import referencing
    from jsonschema.exceptions import ValidationError

from inspector.core.model import join_pointer

#: Longest message text kept per error; instance reprs in messages can be megabytes.
MAX_MESSAGE = 400
#: Most errors reported per item; the rest are counted, not listed.
MAX_ERRORS = 200
_CACHE_SIZE = 1024
#: Seconds one item's validation may take before it is stopped and reported.
DEFAULT_BUDGET = 2.0
#: Use the fast boolean checker before jsonschema (tests turn it off to compare both paths).
FAST_PATH = True


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


class RemoteReferenceRefused(Exception):
    """Raised by the registry instead of fetching anything from the network."""


def _refuse_remote(uri: str) -> referencing.Resource[Any]:
    # Remote $refs are never fetched: a transcript must not make the inspector touch the network.
    raise RemoteReferenceRefused(f"remote $ref {uri!r} is not fetched (no network access)")


@functools.cache
def _registry() -> referencing.Registry[Any]:
    import referencing

    return referencing.Registry(retrieve=_refuse_remote)


# --------------------------------------------------------------------------------------------
# Regular expressions under a time budget
#
# jsonschema matches `pattern` and `patternProperties` with `re`, which cannot be stopped: one
# schema pattern that backtracks catastrophically would hang the CLI or freeze the GUI. These
# keywords use the `regex` module instead, whose matches take a timeout, and every match checks
# the item's deadline and a cancel flag. `regex` also knows `\p{…}` classes, as ECMA-262 does.


class BudgetExceeded(Exception):
    """Validation ran past its time budget or was cancelled."""


@dataclass(slots=True)
class _Limits:
    deadline: float
    budget: float
    cancel: threading.Event | None
    pattern: str = ""


_LIMITS: contextvars.ContextVar[_Limits | None] = contextvars.ContextVar("limits", default=None)


# Compiled once per pattern: regex.search would look the pattern up in its cache on every call.
_compiled_pattern = functools.lru_cache(maxsize=4096)(regex.compile)


def _search(pattern: str, text: str) -> bool:
    limits = _LIMITS.get()
    compiled = _compiled_pattern(pattern)
    if limits is None:
        return compiled.search(text) is not None
    if limits.cancel is not None and limits.cancel.is_set():
        raise BudgetExceeded("validation was cancelled")
    remaining = limits.deadline - time.monotonic()
    if remaining <= 0:
        raise BudgetExceeded(f"validation exceeded its time budget of {limits.budget:g} s")
    try:
        return compiled.search(text, timeout=remaining) is not None
    except TimeoutError:
        raise BudgetExceeded(
            f"validation exceeded its time budget of {limits.budget:g} s matching the pattern "
            f"{_short(repr(pattern))} (it backtracks catastrophically)"
        ) from None


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
        regex.compile(text)
    return True


_BOUNDED: dict[type, type] = {}


def _bounded(cls: type) -> type:
    """Return the validator class with the time-bounded regex keywords."""
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

    checker = jsonschema.FormatChecker()
    checker.checkers = dict(cls.FORMAT_CHECKER.checkers)
    checker.checkers["regex"] = (_is_regex, regex.error)
    return checker


@dataclass(frozen=True, slots=True)
class CompiledSchema:
    """A checked, ready validator for one schema, or the reason the schema is unusable."""

    schema: Any
    validator: Any | None
    problem: str | None
    dialect: str
    #: A boolean checker for the common subset of 2020-12 (fastschema), or None.
    fast: Callable[[Any], bool] | None = None

    @property
    def usable(self) -> bool:
        """Whether the schema can validate anything."""
        return self.validator is not None


def _schema_key(schema: Any) -> str:
    # Canonical text so equal schemas from different files share one compiled validator.
    return json.dumps(schema, sort_keys=True, separators=(",", ":"), default=repr)


def _pointer(parts: Iterable[Any]) -> str:
    return join_pointer("", *parts)


def _short(message: str) -> str:
    if len(message) <= MAX_MESSAGE:
        return message
    return message[: MAX_MESSAGE - 1] + "…"


def _compile(schema: Any) -> CompiledSchema:
    if not isinstance(schema, dict | bool):
        return CompiledSchema(
            schema, None, f"schema must be an object or a boolean, not {type(schema).__name__}", "?"
        )
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
    from inspector.core.fastschema import compile_fast

    return CompiledSchema(schema, validator, None, dialect, compile_fast(schema))


class _SchemaCache:
    """A bounded LRU of compiled schemas keyed by canonical schema text."""

    def __init__(self, size: int) -> None:
        self.size = size
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
            found = _compile(schema)
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


_CACHE = _SchemaCache(_CACHE_SIZE)


def compile_schema(schema: Any) -> CompiledSchema:
    """Return the cached compiled validator for a JSON Schema (dialect from `$schema`)."""
    return _CACHE.get(schema)


def _issue(error: ValidationError) -> SchemaIssue:
    return SchemaIssue(
        path=_pointer(error.absolute_path),
        schema_path=_pointer(error.absolute_schema_path),
        keyword=str(error.validator),
        message=_short(error.message),
    )


def _reference_issue(exc: BaseException) -> SchemaIssue:
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, RemoteReferenceRefused):
        cause = cause.__cause__ or cause.__context__
    text = str(cause) if cause is not None else f"$ref cannot be resolved: {exc}"
    return SchemaIssue(path="", schema_path="", keyword="$ref", message=_short(text))


def validate(
    compiled: CompiledSchema,
    instance: Any,
    *,
    budget: float = DEFAULT_BUDGET,
    cancel: threading.Event | None = None,
) -> tuple[SchemaIssue, ...]:
    """Validate an instance; return every error, the best match first, then by relevance.

    Validation stops after `budget` seconds, or when `cancel` is set, with a `budget` issue.
    """
    if compiled.validator is None:
        raise ValueError("schema is not usable: " + (compiled.problem or "unknown problem"))
    import referencing.exceptions
    from jsonschema.exceptions import best_match, relevance

    limits = _Limits(time.monotonic() + budget, budget, cancel)
    token = _LIMITS.set(limits)
    errors: list[ValidationError] = []
    try:
        if FAST_PATH and compiled.fast is not None:
            # Most arguments are valid: the fast check answers those alone; jsonschema then
            # lists the errors of the rest. Any surprise in the fast check defers to jsonschema.
            try:
                if compiled.fast(instance):
                    return ()
            except BudgetExceeded:
                raise
            except Exception:
                pass
        for error in compiled.validator.iter_errors(instance):
            errors.append(error)
            if len(errors) >= MAX_ERRORS:
                break
            if time.monotonic() > limits.deadline:
                raise BudgetExceeded(f"validation exceeded its time budget of {budget:g} s")
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
    if not errors:
        return ()
    best = best_match(errors)
    ranked = sorted(errors, key=relevance, reverse=True)
    issues = [_issue(best)] if best is not None else []
    seen = set(issues)
    for error in ranked:
        issue = _issue(error)
        if issue not in seen:
            seen.add(issue)
            issues.append(issue)
    return tuple(issues)
