"""Tool schemas → cached jsonschema validators, and ranked validation errors with JSON Pointers."""

from __future__ import annotations

import json
import warnings
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import jsonschema
import referencing
import referencing.exceptions
from jsonschema.exceptions import SchemaError, ValidationError, best_match, relevance
from jsonschema.validators import validator_for

from inspector.core.model import join_pointer

#: Longest message text kept per error; instance reprs in messages can be megabytes.
MAX_MESSAGE = 400
#: Most errors reported per item; the rest are counted, not listed.
MAX_ERRORS = 200
_CACHE_SIZE = 1024


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


_REGISTRY: referencing.Registry[Any] = referencing.Registry(retrieve=_refuse_remote)


@dataclass(frozen=True, slots=True)
class CompiledSchema:
    """A checked, ready validator for one schema, or the reason the schema is unusable."""

    schema: Any
    validator: Any | None
    problem: str | None
    dialect: str

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
    with warnings.catch_warnings():
        # An unknown $schema makes jsonschema warn and fall back; we report the dialect instead.
        warnings.simplefilter("ignore")
        cls = validator_for(schema, default=jsonschema.Draft202012Validator)
    dialect = getattr(cls, "META_SCHEMA", {}).get("$schema", cls.__name__)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        where = _pointer(exc.absolute_path) or "/"
        return CompiledSchema(
            schema, None, _short(f"schema is invalid at {where}: {exc.message}"), dialect
        )
    except RecursionError:
        return CompiledSchema(schema, None, "schema is nested too deeply to check", dialect)
    except Exception as exc:  # a broken schema must never crash the gate
        return CompiledSchema(schema, None, _short(f"schema cannot be checked: {exc}"), dialect)
    try:
        validator = cls(schema, registry=_REGISTRY)
    except Exception as exc:
        return CompiledSchema(schema, None, _short(f"schema cannot be used: {exc}"), dialect)
    return CompiledSchema(schema, validator, None, dialect)


class _SchemaCache:
    """A bounded LRU of compiled schemas keyed by canonical schema text."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[str, CompiledSchema] = OrderedDict()

    def get(self, schema: Any) -> CompiledSchema:
        key = _schema_key(schema)
        found = self._items.get(key)
        if found is not None:
            self._items.move_to_end(key)
            return found
        compiled = _compile(schema)
        self._items[key] = compiled
        if len(self._items) > self.size:
            self._items.popitem(last=False)
        return compiled


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


def validate(compiled: CompiledSchema, instance: Any) -> tuple[SchemaIssue, ...]:
    """Validate an instance; return every error, the best match first, then by relevance."""
    if compiled.validator is None:
        raise ValueError("schema is not usable: " + (compiled.problem or "unknown problem"))
    try:
        errors = []
        for error in compiled.validator.iter_errors(instance):
            errors.append(error)
            if len(errors) >= MAX_ERRORS:
                break
    except referencing.exceptions.Unresolvable as exc:
        return (_reference_issue(exc),)
    except RecursionError:
        return (SchemaIssue("", "", "$ref", "validation recursed too deeply (recursive $ref?)"),)
    if not errors:
        return ()
    best = best_match(errors)
    ranked = sorted(errors, key=relevance, reverse=True)
    issues = [_issue(best)] if best is not None else []
    seen = {issues[0]} if issues else set()
    for error in ranked:
        issue = _issue(error)
        if issue not in seen:
            seen.add(issue)
            issues.append(issue)
    return tuple(issues)
