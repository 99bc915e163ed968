"""Target profiles: provider rules kept as data, validated and resolved into frozen values."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from functools import cache
from types import MappingProxyType
from typing import Any

from msgspec import Struct, field

from inspector.core.model import InspectorError

#: What a schema rule says the provider does with the part it matches.
EFFECTS = ("rejected", "altered")
#: When a schema rule applies: always, only to strict tools, or only to non-strict tools.
MODES = ("any", "strict", "loose")

#: The schema checks the engine knows, each with the parameters it takes.
SCHEMA_CHECKS: Mapping[str, dict[str, Any]] = MappingProxyType(
    {
        "keyword": {
            "required": ["keywords"],
            "properties": {
                "keywords": {"$ref": "#/$defs/names"},
                "types": {"$ref": "#/$defs/names"},
                "allowed_values": {"type": "array"},
                "only_with": {"$ref": "#/$defs/names"},
                "where": {"enum": ["any", "root", "root_property"]},
            },
        },
        "unknown_keyword": {
            "required": ["known"],
            "properties": {
                "known": {"$ref": "#/$defs/names"},
                "ignore": {"$ref": "#/$defs/names"},
                "where": {"enum": ["any", "root", "root_property"]},
            },
        },
        "format": {"required": ["allowed"], "properties": {"allowed": {"$ref": "#/$defs/names"}}},
        "enum_types": {
            "required": ["allowed"],
            "properties": {"allowed": {"$ref": "#/$defs/json_types"}},
        },
        "property_names": {
            "required": ["pattern"],
            "properties": {"pattern": {"type": "string"}},
        },
        "max_depth": {"required": ["max"], "properties": {"max": {"type": "integer"}}},
        "max_properties": {"required": ["max"], "properties": {"max": {"type": "integer"}}},
        "max_enum_values": {"required": ["max"], "properties": {"max": {"type": "integer"}}},
        "metaschema": {
            "required": ["dialect"],
            "properties": {"dialect": {"type": "string"}},
        },
        "object_properties": {"properties": {"nonempty": {"type": "boolean"}}},
        "root_object": {},
        "type_array": {},
        "type_required": {},
        "closed_objects": {"properties": {"only_missing": {"type": "boolean"}}},
        "all_required": {},
        "ref_siblings": {},
        "recursive_ref": {},
        "refs": {},
        "pattern_lookaround": {},
        "typed_items": {},
        "anyof_alone": {},
    }
)

#: Transcript-level checks: turn order and reasoning.
ORDER_CHECKS = (
    "next_turn_answers_calls",
    "next_turn_response_count",
    "results_follow_calls",
    "no_user_after_tool",
    "output_required",
    "reasoning_followed",
    "tool_config_with_history",
)
REASONING_CHECKS = ("foreign", "any_reasoning", "signature_required", "signed_order")
#: Call-level checks: calls a target accepts but does not run as calls.
CALL_CHECKS = ("custom_tool_calls",)
#: Kinds of provider-bound reasoning a transcript can carry.
REASONING_FAMILIES = ("openai_encrypted", "anthropic_signature", "gemini_signature")

_COMMON = {
    "id": {"type": "string", "pattern": r"^[a-z0-9_.-]+$"},
    "reason": {"type": "string", "minLength": 1},
    "source": {
        "anyOf": [
            {"type": "string", "minLength": 1},
            {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
        ]
    },
    "fix": {"type": "string", "minLength": 1},
    "severity": {"enum": ["error", "warning"]},
}


def _rule_schema(extra: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["id", "reason", "source", *required],
        "properties": {**_COMMON, **extra},
        "additionalProperties": False,
    }


def _schema_rule_schema() -> dict[str, Any]:
    branches = []
    for check, spec in SCHEMA_CHECKS.items():
        properties = {
            "check": {"const": check},
            "effect": {"enum": list(EFFECTS)},
            "mode": {"enum": list(MODES)},
            "when_normalized": {"enum": ["altered", "accepted"]},
            # Declaration fields (a tool definition's schema member) the rule does not judge.
            "skips_declared_in": {"$ref": "#/$defs/names"},
            **spec.get("properties", {}),
        }
        branches.append(_rule_schema(properties, ["check", "effect", *spec.get("required", [])]))
    return {"oneOf": branches}


#: The shape every profile module's PROFILE must have (checked with jsonschema when loaded).
PROFILE_SCHEMA: Mapping[str, Any] = MappingProxyType(
    {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {
            "names": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "json_types": {
                "type": "array",
                "items": {
                    "enum": ["string", "number", "integer", "boolean", "null", "object", "array"]
                },
            },
            "schema_rule": _schema_rule_schema(),
            "name_rule": _rule_schema(
                {
                    "pattern": {"type": "string"},
                    "scope": {
                        "type": "array",
                        "items": {"enum": ["definitions", "history"]},
                        "minItems": 1,
                    },
                },
                ["pattern", "scope"],
            ),
            "call_id_rule": _rule_schema({"pattern": {"type": "string"}}, ["pattern"]),
            "order_rule": _rule_schema({"check": {"enum": list(ORDER_CHECKS)}}, ["check"]),
            "reasoning_rule": _rule_schema(
                {
                    "check": {"enum": list(REASONING_CHECKS)},
                    "families": {
                        "type": "array",
                        "items": {"enum": list(REASONING_FAMILIES)},
                        "minItems": 1,
                    },
                },
                ["check"],
            ),
            "call_rule": _rule_schema({"check": {"enum": list(CALL_CHECKS)}}, ["check"]),
        },
        "type": "object",
        "required": ["name", "title"],
        "additionalProperties": False,
        "properties": {
            "name": {"type": "string", "pattern": r"^[a-z0-9-]+$"},
            "title": {"type": "string"},
            "extends": {"type": "string"},
            "drop": {"$ref": "#/$defs/names"},
            "strict": {
                "type": "object",
                "required": ["default", "reason", "source"],
                "additionalProperties": False,
                "properties": {
                    "default": {"enum": ["strict", "loose", "normalize"]},
                    "reason": _COMMON["reason"],
                    "source": _COMMON["source"],
                },
            },
            "schema": {"type": "array", "items": {"$ref": "#/$defs/schema_rule"}},
            "tool_names": {"type": "array", "items": {"$ref": "#/$defs/name_rule"}},
            "call_ids": {"type": "array", "items": {"$ref": "#/$defs/call_id_rule"}},
            "order": {"type": "array", "items": {"$ref": "#/$defs/order_rule"}},
            "reasoning": {"type": "array", "items": {"$ref": "#/$defs/reasoning_rule"}},
            "calls": {"type": "array", "items": {"$ref": "#/$defs/call_rule"}},
        },
    }
)

_SECTIONS = ("schema", "tool_names", "call_ids", "order", "reasoning", "calls")


class ProfileError(InspectorError):
    """A profile module is malformed (a bug in the data, reported with the rule at fault)."""


class UnknownTarget(InspectorError, KeyError):
    """No profile has the requested name."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return f"unknown target {self.name!r}; profiles are: {', '.join(profile_names())}"


class Rule(Struct, frozen=True):
    """One provider rule: its id, what it checks, why, and where that is documented."""

    id: str
    section: str
    reason: str
    sources: tuple[str, ...]
    check: str | None = None
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def source(self) -> str:
        """The sources as one line (URLs or issues separated by '; ')."""
        return "; ".join(self.sources)

    def get(self, key: str, default: Any = None) -> Any:
        """Return a parameter of the rule."""
        return self.params.get(key, default)


class StrictPolicy(Struct, frozen=True):
    """How a provider treats a tool's `strict` flag, and what it does when the flag is absent."""

    default: str
    reason: str
    sources: tuple[str, ...]


class Profile(Struct, frozen=True):
    """A target provider's rules, resolved (inheritance applied) and validated."""

    name: str
    title: str
    strict: StrictPolicy | None
    schema: tuple[Rule, ...]
    tool_names: tuple[Rule, ...]
    call_ids: tuple[Rule, ...]
    order: tuple[Rule, ...]
    reasoning: tuple[Rule, ...]
    calls: tuple[Rule, ...] = ()

    def rules(self) -> tuple[Rule, ...]:
        """Every rule of the profile, section by section."""
        return (
            self.schema + self.tool_names + self.call_ids + self.order + self.reasoning + self.calls
        )


def _sources(value: str | list[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


def _rule(section: str, data: Mapping[str, Any]) -> Rule:
    params = {k: v for k, v in data.items() if k not in ("id", "reason", "source", "check")}
    return Rule(
        id=data["id"],
        section=section,
        reason=data["reason"],
        sources=_sources(data["source"]),
        check=data.get("check"),
        params=MappingProxyType(params),
    )


@cache
def _validator() -> Any:
    # Imported when profiles are first loaded: a command that names no target never pays it.
    import jsonschema

    return jsonschema.Draft202012Validator(PROFILE_SCHEMA)


@cache
def _fast_validator() -> Any:
    import jsonschema_rs

    return jsonschema_rs.validator_for(dict(PROFILE_SCHEMA))


def _validate(module: str, data: Any) -> None:
    # jsonschema-rs says "well formed" in microseconds; python-jsonschema (a tenth of a second
    # to import and run, paid by every scan worker) is only asked to name what is wrong.
    try:
        if _fast_validator().is_valid(data):
            return
    except ValueError:  # a Python value jsonschema-rs cannot take: the full check names it
        pass
    from jsonschema.exceptions import best_match

    error = best_match(_validator().iter_errors(data))
    if error is not None:
        where = "/" + "/".join(str(p) for p in error.absolute_path)
        raise ProfileError(f"target profile {module}: {where}: {error.message}")


def _resolve(name: str, raw: Mapping[str, Mapping[str, Any]], seen: tuple[str, ...]) -> Profile:
    data = raw[name]
    sections: dict[str, list[Rule]] = {s: [] for s in _SECTIONS}
    strict = None
    parent_name = data.get("extends")
    if parent_name is not None:
        if parent_name not in raw or parent_name in seen:
            raise ProfileError(f"target profile {name}: cannot extend {parent_name!r}")
        parent = _resolve(parent_name, raw, (*seen, name))
        strict = parent.strict
        for section in _SECTIONS:
            sections[section].extend(getattr(parent, section))
    dropped = set(data.get("drop", ()))
    unknown = dropped - {r.id for rules in sections.values() for r in rules}
    if unknown:
        raise ProfileError(f"target profile {name}: drops unknown rules {sorted(unknown)}")
    for section in _SECTIONS:
        kept = [r for r in sections[section] if r.id not in dropped]
        sections[section] = kept + [_rule(section, d) for d in data.get(section, ())]
    if "strict" in data:
        policy = data["strict"]
        strict = StrictPolicy(policy["default"], policy["reason"], _sources(policy["source"]))
    ids = [r.id for rules in sections.values() for r in rules]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ProfileError(f"target profile {name}: duplicate rule ids {duplicates}")
    return Profile(
        name=name,
        title=data["title"],
        strict=strict,
        schema=tuple(sections["schema"]),
        tool_names=tuple(sections["tool_names"]),
        call_ids=tuple(sections["call_ids"]),
        order=tuple(sections["order"]),
        reasoning=tuple(sections["reasoning"]),
        calls=tuple(sections["calls"]),
    )


def _module_of(name: str) -> str:
    """The profile module that holds the profile `name` (`gemini-3` is in `gemini_3`)."""
    return name.replace("-", "_")


@cache
def _module_data(module_name: str) -> Mapping[str, Any]:
    """One profile module's PROFILE, imported and validated (once per process)."""
    module = importlib.import_module(f"inspector.core.targets.profiles.{module_name}")
    data: Any = getattr(module, "PROFILE", None)
    _validate(module_name, data)  # raises unless data is a well-formed profile mapping
    return data


class _ProfileData(Mapping[str, Mapping[str, Any]]):
    """Every profile's data by name, each module imported and validated when first asked for:
    a scan against one target (and each of its workers) reads that profile and its parents."""

    def __getitem__(self, name: str) -> Mapping[str, Any]:
        from inspector.core.targets.profiles import MODULES

        if not isinstance(name, str) or _module_of(name) not in MODULES:
            raise KeyError(name)
        module_name = _module_of(name)
        data = _module_data(module_name)
        if data["name"] != name:  # a module's own name (`gemini_3`) is not a profile's
            raise KeyError(name)
        return data

    def __iter__(self) -> Iterator[str]:
        from inspector.core.targets.profiles import MODULES

        return (_module_data(module_name)["name"] for module_name in MODULES)

    def __len__(self) -> int:
        from inspector.core.targets.profiles import MODULES

        return len(MODULES)


_DATA = _ProfileData()


@cache
def _profile(name: str) -> Profile:
    """The profile `name`, resolved from its module and its parents' (KeyError: no such one)."""
    if name not in _DATA:
        raise KeyError(name)
    return _resolve(name, _DATA, ())


@cache
def load_profiles() -> Mapping[str, Profile]:
    """Load, validate and resolve every profile module, in the registry's order."""
    from inspector.core.targets.profiles import MODULES

    names: list[str] = []
    for module_name in MODULES:
        name = _module_data(module_name)["name"]
        if name in names:
            raise ProfileError(f"target profile {module_name}: name {name!r} is taken")
        if _module_of(name) != module_name:
            # get_profile finds a profile's module by its name alone.
            raise ProfileError(
                f"target profile {module_name}: name {name!r} does not match its module "
                f"(expected {module_name.replace('_', '-')!r})"
            )
        names.append(name)
    return MappingProxyType({name: _profile(name) for name in names})


def profile_names() -> list[str]:
    """The names of every profile, in the registry's order."""
    return list(load_profiles())


def get_profile(name: str | Profile) -> Profile:
    """Return the profile with this name (a Profile is returned as it is)."""
    if isinstance(name, Profile):
        return name
    try:
        return _profile(name)
    except KeyError:
        raise UnknownTarget(name) from None
