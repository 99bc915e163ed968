"""The fast schema check gives jsonschema's verdict: official suite, random schemas and instances.

The reference is jsonschema's Draft202012Validator twice over: as the gate builds it (regex
keywords through the time-bounded `_search`, which the fast check uses too) and unmodified
(`re`, which cannot run `\\p{…}` classes; those cases are compared with the first only).
"""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from inspector.core.fastschema import compile_fast
from inspector.core.schema import _LIMITS, BudgetExceeded, _Limits, compile_schema

SUITE = Path(__file__).resolve().parents[2].parent / "shared" / "reference"
SUITE = SUITE / "json-schema-test-suite"

FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=5_000, deadline=None, suppress_health_check=list(HealthCheck))


def outcome(function: Any, instance: Any) -> Any:
    """The verdict, or the exception's type: both sides must also fail alike."""
    try:
        return bool(function(instance))
    except Exception as exc:
        return type(exc)


def references(schema: Any) -> tuple[Any, Any]:
    """is_valid of the gate's bounded validator, and of jsonschema's own validator."""
    compiled = compile_schema(schema)
    assert compiled.usable, compiled.problem
    return compiled.validator.is_valid, Draft202012Validator(schema).is_valid


def assert_agrees(schema: Any, check: Any, instance: Any) -> None:
    bounded, plain = references(schema)
    got = outcome(check, instance)
    assert got == outcome(bounded, instance), (schema, instance)
    expected = outcome(plain, instance)
    if expected is not re.error:  # `re` lacks what `regex` has (\p{…})
        assert got == expected, (schema, instance)


# --------------------------------------------------------------------------------------------
# The official test suite


def suite_groups():
    for path in sorted(SUITE.glob("*.json")):
        if path.name == "refRemote.json":
            continue
        for group in json.loads(path.read_text(encoding="utf-8")):
            yield path.name, group


# Files whose every schema is inside the subset: a keyword refused by mistake shows up here.
FULLY_COMPILED = (
    "allOf.json",
    "anyOf.json",
    "boolean_schema.json",
    "const.json",
    "dependentRequired.json",
    "enum.json",
    "exclusiveMaximum.json",
    "exclusiveMinimum.json",
    "format.json",
    "items.json",
    "maxItems.json",
    "maxLength.json",
    "maxProperties.json",
    "maximum.json",
    "minItems.json",
    "minLength.json",
    "minProperties.json",
    "minimum.json",
    "multipleOf.json",
    "oneOf.json",
    "pattern.json",
    "patternProperties.json",
    "prefixItems.json",
    "properties.json",
    "propertyNames.json",
    "required.json",
    "type.json",
    "uniqueItems.json",
)


@pytest.mark.skipif(not SUITE.is_dir(), reason="../shared is not beside the repository")
def test_suite_verdicts_are_identical_wherever_the_schema_compiles():
    total = compiled = 0
    disagreements = []
    refused_files = set()
    for name, group in suite_groups():
        check = compile_fast(group["schema"])
        if check is None:
            refused_files.add(name)
        bounded, plain = references(group["schema"])
        for test in group["tests"]:
            total += 1
            if check is None:
                continue
            compiled += 1
            data = test["data"]
            got = outcome(check, data)
            expected = outcome(bounded, data)
            direct = outcome(plain, data)
            if got != expected or (direct is not re.error and got != direct):
                where = f"{name}: {group['description']} / {test['description']}"
                disagreements.append(f"{where}: fast {got}, jsonschema {expected} / {direct}")
    share = compiled / total
    print(f"\nfast path: {compiled} of {total} suite cases compile ({share:.1%}), all agree")
    assert total > 1000
    assert not disagreements, disagreements[:10]
    assert share >= 0.5, f"only {share:.1%} of the suite's cases compile"
    assert not refused_files & set(FULLY_COMPILED), sorted(refused_files & set(FULLY_COMPILED))


# --------------------------------------------------------------------------------------------
# Random instances against realistic tool schemas

TOOL_SCHEMAS: dict[str, Any] = {
    "weather": {
        "type": "object",
        "properties": {
            "location": {"type": "string", "minLength": 1, "maxLength": 12},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
            "hourly": {"type": "boolean"},
        },
        "required": ["location"],
        "additionalProperties": False,
    },
    "search": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "query": {"type": "string", "pattern": "^[a-zé][a-zé0-9 _-]{0,11}$"},
            "filters": {
                "type": "array",
                "items": {"$ref": "#/$defs/filter"},
                "uniqueItems": True,
                "maxItems": 3,
            },
            "limit": {"type": ["integer", "null"], "exclusiveMinimum": 0, "maximum": 50},
            "sort": {"enum": ["asc", "desc", 1, -1, True, None, 1.5, [1], {"by": "date"}]},
        },
        "required": ["query"],
        "additionalProperties": False,
        "$defs": {
            "filter": {
                "type": "object",
                "properties": {
                    "field": {"enum": ["date", "author", "tag"]},
                    # An integer is both a number and an integer: oneOf fails for it.
                    "value": {
                        "oneOf": [
                            {"type": "string"},
                            {"type": "number"},
                            {"type": "boolean"},
                            {"type": "integer"},
                        ]
                    },
                },
                "required": ["field", "value"],
                "additionalProperties": False,
            }
        },
    },
    "tree": {
        "$ref": "#/$defs/node",
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "maxLength": 3},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                },
                "required": ["name"],
                "additionalProperties": False,
            }
        },
    },
    "headers": {
        "type": "object",
        "patternProperties": {"^x-": {"type": "string"}, "^[ab]$": {"type": "integer"}},
        "additionalProperties": {"type": "number"},
        "propertyNames": {"maxLength": 4},
        "minProperties": 1,
        "maxProperties": 3,
        "dependentRequired": {"a": ["b"]},
    },
    "tuple": {
        "type": "array",
        "prefixItems": [{"const": 1}, {"const": [1, {"a": True}]}, {"type": "string"}],
        "items": False,
        "minItems": 2,
    },
    "numbers": {
        "type": "object",
        "properties": {
            "step": {"type": "number", "multipleOf": 0.5},
            "count": {"type": "integer", "multipleOf": 3},
            "ratio": {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
        },
        "anyOf": [{"required": ["step"]}, {"required": ["count"]}],
        "not": {"required": ["ratio", "count"]},
    },
    "tags": {
        "type": "array",
        "items": {"enum": [1, "1", True, False, 0, None, [1], [True], {"a": 1}]},
        "uniqueItems": True,
    },
    "untyped": {
        "properties": {"a": {"minimum": 2}, "b": {"const": {"k": [1.0, False]}}},
        "items": {"maxLength": 2},
        "minLength": 1,
        "allOf": [{"not": {"type": "null"}}, {"$ref": "#/$defs/loose"}],
        "$defs": {"loose": {"type": ["object", "array", "string", "number"]}},
    },
}

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=3),
    st.integers(),
    st.sampled_from([0.0, -0.0, 1.0, 2.0, 1.5, 3.0, 0.5, 1e20, 1e308]),
    st.floats(),
    st.text(max_size=6),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=4), children, max_size=4),
    ),
    max_leaves=12,
)


def resolve(root: Any, ref: str) -> Any:
    node = root
    for part in ref.removeprefix("#/").split("/") if ref != "#" else []:
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


EXTRA_KEYS = ("x-a", "x-bcd", "a", "b", "zz", "x-long")


def guided(schema: Any, root: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Instances shaped by the schema, often valid and often just off, mixed with any JSON."""
    if depth > 4 or not isinstance(schema, dict):
        return json_values
    options: list[st.SearchStrategy[Any]] = []
    below = depth + 1
    if "$ref" in schema:
        options.append(guided(resolve(root, schema["$ref"]), root, below))
    if "enum" in schema:
        options.append(st.sampled_from(schema["enum"]))
    if "const" in schema:
        options.append(st.just(schema["const"]))
    for keyword in ("allOf", "anyOf", "oneOf"):
        options.extend(guided(sub, root, below) for sub in schema.get(keyword, []))
    types = schema.get("type", [])
    types = [types] if isinstance(types, str) else types
    if "object" in types or "properties" in schema:
        values = {k: guided(v, root, below) for k, v in schema.get("properties", {}).items()}
        required = {k: values[k] for k in schema.get("required", []) if k in values}
        optional = {k: v for k, v in values.items() if k not in required}
        options.append(st.fixed_dictionaries(required, optional=optional))
        options.append(st.fixed_dictionaries({}, optional=values))
        # Keys beside the listed ones, valued after the subschema that would apply to them.
        extra = {}
        for key in EXTRA_KEYS:
            matching = [
                s for p, s in schema.get("patternProperties", {}).items() if re.search(p, key)
            ]
            other = schema.get("additionalProperties", True)
            sub = matching[0] if matching else other
            extra[key] = guided(sub, root, below) if isinstance(sub, dict) else json_values
        options.append(
            st.tuples(
                st.fixed_dictionaries(required, optional=optional),
                st.fixed_dictionaries({}, optional=extra),
            ).map(lambda pair: {**pair[0], **pair[1]})
        )
    if "array" in types or "items" in schema or "prefixItems" in schema:
        options.append(st.lists(guided(schema.get("items", {}), root, below), max_size=4))
        prefix = [guided(sub, root, below) for sub in schema.get("prefixItems", [])]
        if prefix:
            options.append(st.tuples(*prefix).map(list))
            options.append(
                st.tuples(st.tuples(*prefix), st.lists(json_values, max_size=2)).map(
                    lambda pair: [*pair[0], *pair[1]]
                )
            )
    if "string" in types:
        pattern = schema.get("pattern")
        options.append(
            st.from_regex(pattern, fullmatch=True) if pattern else st.text("abé -", max_size=13)
        )
    if "integer" in types or "number" in types:
        options.append(st.integers(min_value=-1, max_value=16))
        options.append(st.sampled_from([0, 1, 1.0, 3, 3.0, 2.5, 0.5, 0.99, 14, 15, 50, 51]))
    if "boolean" in types:
        options.append(st.booleans())
    shaped = st.one_of(options) if options else json_values
    # Arbitrary JSON in about one draw of sixteen (one_of would pick it far more often), so
    # that many instances are valid and the rest are mostly just off.
    return st.integers(0, 15).flatmap(lambda n: json_values if n == 5 else shaped)


@pytest.mark.parametrize("name", sorted(TOOL_SCHEMAS))
def test_random_instances_get_jsonschemas_verdict(name):
    schema = TOOL_SCHEMAS[name]
    check = compile_fast(schema)
    assert check is not None

    @FAST
    @given(guided(schema, schema))
    def agrees(instance):
        assert_agrees(schema, check, instance)

    agrees()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TOOL_SCHEMAS))
def test_random_instances_get_jsonschemas_verdict_at_length(name):
    schema = TOOL_SCHEMAS[name]
    check = compile_fast(schema)

    @SLOW
    @given(guided(schema, schema))
    def agrees(instance):
        assert_agrees(schema, check, instance)

    agrees()


# Hand-picked instances, valid and not, so that each tool schema is seen to accept and refuse.
EXAMPLES = [
    ("weather", {"location": "Oslo", "unit": "celsius", "days": 3.0}, True),
    ("weather", {"location": "Oslo", "days": True}, False),
    ("weather", {"location": "Oslo", "wind": 1}, False),
    ("search", {"query": "sales q3", "filters": [{"field": "tag", "value": "x"}]}, True),
    ("search", {"query": "q", "filters": [{"field": "tag", "value": 2}]}, False),
    ("search", {"query": "q", "filters": [{"field": "tag", "value": 2.5}]}, True),
    ("search", {"query": "q", "sort": 1.0}, True),
    ("search", {"query": "q", "sort": False}, False),
    ("search", {"query": "q", "sort": [1.0]}, True),
    ("search", {"query": "q", "sort": [True]}, False),
    ("search", {"query": "q", "limit": 0}, False),
    ("search", {"query": "Q"}, False),
    ("tree", {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}, True),
    ("tree", {"name": "a", "children": [{"name": "b", "children": [{}]}]}, False),
    ("headers", {"x-id": "1", "b": 2, "a": 1}, True),
    ("headers", {"a": 1}, False),
    ("headers", {"zz": 1.5}, True),
    ("headers", {"zz": "1.5"}, False),
    ("headers", {"x-long": "1"}, False),
    ("tuple", [1, [1.0, {"a": True}]], True),
    ("tuple", [1, [1, {"a": 1}]], False),
    ("tuple", [True, [1, {"a": True}]], False),
    ("tuple", [1, [1, {"a": True}], "s", None], False),
    ("numbers", {"step": 1.5, "count": 9}, True),
    ("numbers", {"step": 1.25}, False),
    ("numbers", {"count": 3, "ratio": 0.5}, False),
    ("numbers", {"ratio": 0.5}, False),
    ("tags", [1, True, "1", [1], [True], {"a": 1}], True),
    ("tags", [1, 1.0], False),
    ("tags", [0, False], True),
    ("tags", [[1], [1.0]], False),
    ("untyped", {"a": 2, "b": {"k": [1, False]}}, True),
    ("untyped", {"b": {"k": [1, 0]}}, False),
    ("untyped", "", False),
    ("untyped", None, False),
    ("untyped", True, False),
    ("untyped", ["ab", 3, "abc"], False),
]


@pytest.mark.parametrize(("name", "instance", "valid"), EXAMPLES)
def test_examples(name, instance, valid):
    schema = TOOL_SCHEMAS[name]
    check = compile_fast(schema)
    assert check(instance) is valid
    assert_agrees(schema, check, instance)


@pytest.mark.parametrize(
    ("schema", "instance", "valid"),
    [
        ({"enum": [1]}, True, False),
        ({"enum": [1]}, 1.0, True),
        ({"enum": [True]}, 1, False),
        ({"enum": [0.0]}, False, False),
        ({"enum": [[0]]}, [False], False),
        ({"enum": [{"a": [1]}]}, {"a": [1.0]}, True),
        ({"enum": [None]}, 0, False),
        ({"enum": ["a", "b"]}, ["a"], False),
        ({"const": {"a": 1}}, {"a": True}, False),
        ({"const": {"a": 1}}, {"a": 1, "b": 1}, False),
        ({"type": "integer"}, 1.0, True),
        ({"type": "integer"}, 1.5, False),
        ({"type": "integer"}, True, False),
        ({"type": "number"}, False, False),
        ({"type": "integer"}, 10**40, True),
        ({"type": ["integer", "string"]}, 2.0, True),
        ({"type": ["integer", "string"]}, 2.5, False),
        ({"type": ["number", "null"]}, True, False),
        ({"type": "integer", "minimum": 1}, True, False),
        # The type test folded into each group's closure still runs before the keywords.
        ({"type": "object", "minProperties": 1}, None, False),
        ({"type": "object", "dependentRequired": {"a": ["b"]}}, ["a"], False),
        ({"type": "array", "minItems": 1}, "a", False),
        ({"type": "string", "minLength": 1}, ["a"], False),
        ({"type": "object", "properties": {"a": True}}, [], False),
        ({"maximum": 1e308}, 10**400, False),
        ({"uniqueItems": True}, [1, True], True),
        ({"uniqueItems": True}, [1, 1.0], False),
        ({"uniqueItems": True}, [{"a": 1}, {"a": 1.0}], False),
        ({"uniqueItems": True}, [{"a": 1}, {"a": True}], True),
        ({"uniqueItems": True}, ["é", "é"], False),
        ({"maxLength": 1}, "😀", True),
        # 0.07 / 0.01 is 7.000000000000001 in floats: jsonschema says no, and so must we.
        ({"multipleOf": 0.01}, 0.07, False),
        ({"multipleOf": 0.5}, 2.5, True),
        ({"multipleOf": 0.1}, 10**400, OverflowError),
        ({"multipleOf": 3}, 9.0, True),
        ({"minimum": 0}, "-1", True),
        ({"items": False}, [], True),
        ({"items": False, "prefixItems": [True]}, [1, 2], False),
        ({"additionalProperties": False, "patternProperties": {"^a": True}}, {"ab": 1}, True),
        ({"propertyNames": False}, {}, True),
        ({"propertyNames": False}, {"a": 1}, False),
        ({"$ref": "#/$defs/a~1b%25", "$defs": {"a/b%": {"type": "null"}}}, None, True),
        ({"$ref": "#/$defs/a~1b%25", "$defs": {"a/b%": {"type": "null"}}}, 0, False),
        ({"$ref": "#/definitions/x", "definitions": {"x": {"type": "string"}}}, "s", True),
        ({"$ref": "#/prefixItems/0", "prefixItems": [{"type": "array"}]}, [[]], True),
        ({"$ref": "#/prefixItems/0", "prefixItems": [{"type": "array"}]}, {}, False),
    ],
)
def test_semantics_match_jsonschema(schema, instance, valid):
    check = compile_fast(schema)
    assert check is not None
    assert outcome(check, instance) == valid
    assert_agrees(schema, check, instance)


def test_recursive_refs_follow_the_instance_down():
    schema = TOOL_SCHEMAS["tree"]
    check = compile_fast(schema)
    node: dict[str, Any] = {"name": "z"}
    for _ in range(60):
        node = {"name": "n", "children": [node]}
    assert check(node) is True
    node["children"][0]["children"][0]["name"] = 1
    assert check(node) is False
    # The same recursion through "#" (the root itself) and through items of items.
    lists = {"type": "array", "items": {"$ref": "#"}}
    check = compile_fast(lists)
    assert check([[], [[[]]]]) is True
    assert check([[], [[1]]]) is False


# --------------------------------------------------------------------------------------------
# Random schemas from the whole subset, each with random instances

small_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-2, 3),
        st.sampled_from([0.0, -0.0, 1.0, 1.5, 2.0]),
        st.sampled_from(["a", "b", "", "ab", "x-a"]),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "c", "x-a"]), children, max_size=2),
    ),
    max_leaves=5,
)
property_names = st.sampled_from(["a", "b", "c", "x-a"])
type_names = st.sampled_from(["null", "boolean", "string", "array", "object", "number", "integer"])


def keywords(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    schema_lists = st.lists(children, min_size=1, max_size=3)
    return st.booleans() | st.fixed_dictionaries(
        {},
        optional={
            "type": type_names | st.lists(type_names, min_size=1, max_size=3, unique=True),
            "enum": st.lists(small_values, min_size=1, max_size=4),
            "const": small_values,
            "required": st.lists(property_names, max_size=2, unique=True),
            "properties": st.dictionaries(property_names, children, max_size=2),
            "patternProperties": st.dictionaries(
                st.sampled_from(["^x-", "a", "^b$", "."]), children, max_size=2
            ),
            "additionalProperties": children,
            "propertyNames": children,
            "minProperties": st.integers(0, 2),
            "maxProperties": st.integers(0, 2),
            "dependentRequired": st.dictionaries(
                property_names, st.lists(property_names, max_size=2, unique=True), max_size=2
            ),
            "items": children,
            "prefixItems": st.lists(children, min_size=1, max_size=2),
            "minItems": st.integers(0, 2),
            "maxItems": st.integers(0, 3),
            "uniqueItems": st.booleans(),
            "minLength": st.integers(0, 2),
            "maxLength": st.integers(0, 2),
            "pattern": st.sampled_from(["^a", "b$", "a|b", "^$"]),
            "minimum": st.sampled_from([0, 1, 1.5]),
            "maximum": st.sampled_from([0, 2, 2.5]),
            "exclusiveMinimum": st.sampled_from([0, 1.0]),
            "exclusiveMaximum": st.sampled_from([1, 2.5]),
            "multipleOf": st.sampled_from([1, 2, 0.5, 0.1, 1.5]),
            "allOf": schema_lists,
            "anyOf": schema_lists,
            "oneOf": schema_lists,
            "not": children,
            "$ref": st.sampled_from(["#", "#/$defs/d"]),
        },
    )


random_schemas = st.recursive(st.booleans() | st.just({}), keywords, max_leaves=6).map(
    lambda s: (
        {**s, "$defs": {"d": {"type": "array", "items": {"$ref": "#"}}}}
        if isinstance(s, dict)
        else s
    )
)


def check_random_schema(schema: Any, instances: list[Any]) -> None:
    compiled = compile_schema(schema)
    check = compile_fast(schema)
    if not compiled.usable or check is None:
        return  # the caller never asks, or jsonschema alone answers
    plain = Draft202012Validator(schema).is_valid
    for instance in instances:
        got = outcome(check, instance)
        expected = outcome(compiled.validator.is_valid, instance), outcome(plain, instance)
        if RecursionError in (got, *expected):
            continue  # the recursion limit is hit at different depths (see the module)
        assert (got, got) == expected, (schema, instance)


@FAST
@given(random_schemas, st.lists(small_values | json_values, min_size=1, max_size=6))
def test_random_schemas_get_jsonschemas_verdict(schema, instances):
    check_random_schema(schema, instances)


@pytest.mark.slow
@SLOW
@given(random_schemas, st.lists(small_values | json_values, min_size=1, max_size=6))
def test_random_schemas_get_jsonschemas_verdict_at_length(schema, instances):
    check_random_schema(schema, instances)


# --------------------------------------------------------------------------------------------
# Refusals


DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize(
    "schema",
    [
        {"$schema": "http://json-schema.org/draft-07/schema#"},
        {"$schema": "https://json-schema.org/draft/2019-09/schema"},
        {"properties": {"a": {"$id": "http://example.com/a"}}},
        {"$defs": {"a": {"$anchor": "x"}}, "$ref": "#/$defs/a"},
        {"$anchor": "x"},
        {"$dynamicRef": "#x"},
        {"$dynamicAnchor": "x"},
        {"$recursiveRef": "#"},
        {"if": {"type": "string"}, "then": {"minLength": 1}},
        {"then": {"minLength": 1}},
        {"else": {"minLength": 1}},
        {"contains": {"type": "string"}},
        {"minContains": 1},
        {"maxContains": 1},
        {"unevaluatedItems": False},
        {"unevaluatedProperties": False},
        {"dependentSchemas": {"a": {"required": ["b"]}}},
        {"$ref": "other.json"},
        {"$ref": "http://example.com/schema#/$defs/a"},
        {"$ref": "#anchor"},
        {"$ref": "#/$defs/missing"},
        {"$ref": "#/$defs/a/b", "$defs": {"a": {"$id": "http://example.com/a", "b": {}}}},
        {"items": {"$schema": DRAFT_2020}},
        {"allOf": [{"$ref": "#"}]},
        {"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}},
        {"properties": {"a": {"contains": True}}},
        {"type": "integer-ish"},
        {"type": None},
        {"minLength": None},
        {"required": "a"},
        {"properties": []},
        {"multipleOf": True},
        {"enum": "abc"},
        [1, 2],
        "string",
        None,
    ],
)
def test_unsupported_schemas_are_refused(schema):
    assert compile_fast(schema) is None


@pytest.mark.parametrize(
    "schema",
    [
        {},
        {"$schema": DRAFT_2020},
        {"$schema": DRAFT_2020 + "#"},
        {"$id": "http://example.com/root.json", "$ref": "#/$defs/a", "$defs": {"a": {}}},
        {"title": "t", "description": "d", "default": 1, "examples": [1], "$comment": "c"},
        {"format": "email", "deprecated": True, "readOnly": True, "writeOnly": False},
        {"contentMediaType": "application/json", "contentEncoding": "base64"},
        {"x-vendor-extension": {"$id": "ignored"}, "dependencies": {"a": ["b"]}},
        True,
        False,
    ],
)
def test_supported_schemas_compile(schema):
    assert compile_fast(schema) is not None


def test_format_is_an_annotation():
    check = compile_fast({"type": "string", "format": "email"})
    assert check("not an address") is True


# --------------------------------------------------------------------------------------------
# Time budget and cancel, as inspector.core.schema.validate sets them


def with_limits(budget: float, cancel: threading.Event | None, run: Any) -> Any:
    token = _LIMITS.set(_Limits(time.monotonic() + budget, budget, cancel))
    try:
        return run()
    finally:
        _LIMITS.reset(token)


def test_patterns_are_not_run_at_compile_time():
    # A catastrophic or even broken pattern is only a string until an instance is checked.
    started = time.monotonic()
    assert compile_fast({"properties": {"s": {"pattern": "^(a|aa)+$"}}}) is not None
    assert compile_fast({"patternProperties": {"(": {}}}) is not None
    assert time.monotonic() - started < 0.5


def test_catastrophic_pattern_raises_budget_exceeded():
    check = compile_fast({"type": "object", "properties": {"s": {"pattern": "^(a|aa)+$"}}})
    started = time.monotonic()
    with pytest.raises(BudgetExceeded, match="backtracks"):
        with_limits(0.2, None, lambda: check({"s": "a" * 5000 + "!"}))
    assert time.monotonic() - started < 3


def test_catastrophic_pattern_property_and_additional_properties_are_bounded():
    schema = {"patternProperties": {"^(a|aa)+$": {}}, "additionalProperties": False}
    check = compile_fast(schema)
    with pytest.raises(BudgetExceeded):
        with_limits(0.2, None, lambda: check({"a" * 5000 + "!": 1}))


def test_cancel_flag_stops_the_check():
    check = compile_fast({"properties": {"s": {"pattern": "a"}}})
    cancel = threading.Event()
    assert with_limits(5.0, cancel, lambda: check({"s": "a"})) is True
    cancel.set()
    with pytest.raises(BudgetExceeded, match="cancelled"):
        with_limits(5.0, cancel, lambda: check({"s": "a"}))
