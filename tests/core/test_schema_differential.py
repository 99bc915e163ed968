"""Differential tests: `inspector.core.schema` gives the verdicts of python-jsonschema.

python-jsonschema is the oracle, run plainly: its own `re` patterns and a registry that refuses
every remote `$ref`. Compared on the official suite (draft 2020-12, remote refs excluded) and on
generated tool calls: the benchmark corpus, and calls that hypothesis mutates from valid ones.
Generated strings keep to characters where ECMA-262 and Python's `re` agree (`\\d` and `\\w` are
ASCII-only in ECMA-262, `$` does not match before a final newline); test_schema_engine.py pins
those dialect differences. The normal suite runs a modest number of examples; `pytest -m slow`
runs 5,000 per tool.
"""

from __future__ import annotations

import json
import random
import warnings
from typing import Any

import jsonschema
import pytest
import referencing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core import schema
from inspector.core.formats import load_text, tools_from_document
from inspector.core.gate import gate_transcript
from inspector.core.jsonio import parse_arguments
from tests.benchmarks import synthetic
from tests.conftest import SCHEMA_SUITE


def _refuse(uri: str) -> Any:
    raise LookupError(f"remote $ref {uri} is not fetched")


_REGISTRY: referencing.Registry[Any] = referencing.Registry(retrieve=_refuse)


def oracle(schema_: Any) -> Any:
    """python-jsonschema, plain: dialect from `$schema` (2020-12 when absent), `re` patterns."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cls = jsonschema.validators.validator_for(schema_, default=jsonschema.Draft202012Validator)
    return cls(schema_, registry=_REGISTRY)


def ours_valid(schema_: Any, instance: Any) -> bool:
    compiled = schema.compile_schema(schema_)
    assert compiled.usable, compiled.problem
    return not schema.validate(compiled, instance)


# --------------------------------------------------------------------------------------------
# The official suite


def suite_groups():
    for path in sorted(SCHEMA_SUITE.glob("*.json")):
        if path.name == "refRemote.json":
            continue
        for group in json.loads(path.read_text(encoding="utf-8")):
            yield path.name, group


@pytest.mark.skipif(not SCHEMA_SUITE.is_dir(), reason="../shared is not beside the repository")
def test_same_verdicts_as_python_jsonschema_on_the_suite():
    compared = by_rust = 0
    unanswered, different = [], []
    for name, group in suite_groups():
        reference = oracle(group["schema"])
        engine = schema.compile_schema(group["schema"]).engine
        for test in group["tests"]:
            where = f"{name}: {group['description']} / {test['description']}"
            try:
                expected = reference.is_valid(test["data"])
            except Exception:  # the oracle cannot answer: `re` lacks \p{…}, a remote ref
                unanswered.append(where)
                continue
            compared += 1
            by_rust += engine == schema.ENGINE_RS
            if ours_valid(group["schema"], test["data"]) != expected:
                different.append(where)
    assert compared > 1200
    assert different == []
    # The cases python-jsonschema cannot answer: `\p{…}` under `re`, remote localhost refs.
    assert len(unanswered) <= 20
    assert all(u.startswith(("pattern", "dynamicRef", "vocabulary")) for u in unanswered)
    # The comparison is between the two libraries: jsonschema-rs answers nearly every case.
    assert by_rust / compared > 0.97


# --------------------------------------------------------------------------------------------
# Generated tool calls

TOOLS = {tool["name"]: tool["parameters"] for tool in synthetic.tools()}
ORACLES = {name: oracle(parameters) for name, parameters in TOOLS.items()}


def test_tool_schemas_are_compiled_by_jsonschema_rs():
    assert {schema.compile_schema(s).engine for s in TOOLS.values()} == {schema.ENGINE_RS}


def test_same_verdicts_on_the_benchmark_corpus():
    counts = {True: 0, False: 0}
    for seed in (3, 11, 29):
        for item in synthetic.items(6000, seed=seed):
            if item.get("type") != "function_call" or item.get("name") not in TOOLS:
                continue
            try:
                arguments = parse_arguments(item["arguments"])
            except Exception:
                continue
            expected = ORACLES[item["name"]].is_valid(arguments)
            assert ours_valid(TOOLS[item["name"]], arguments) == expected, item
            counts[expected] += 1
    assert counts[True] > 2000 and counts[False] > 50


# Characters on which ECMA-262 and `re` agree for the corpus patterns: printable ASCII (no line
# breaks) and non-ASCII letters and symbols that are neither digits nor spaces.
ALPHABET = [chr(c) for c in range(0x20, 0x7F)] + ["é", "ß", "漢", "€", "😀"]
text = st.text(alphabet=ALPHABET, max_size=12)
known_strings = st.sampled_from(
    [
        "",
        "apac",
        "emea",
        "global",
        "2026-Q1",
        "2026-Q5",
        "CUS-000123",
        "CUS-12",
        "ABC-1234",
        "abc-1234",
        "FR",
        "fra",
        "75001",
        "USD",
        "usd",
        "a@b.c",
        "a b@c",
        "2026-12-01T10:00",
        "2026-12-01",
        "pending",
        "metric",
        "product",
    ]
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),  # past 64 bits: the fallback answers
    st.integers(min_value=-5, max_value=100),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.5, 1.0, 9.5, -1, 15, 30, 31]),
    text,
    known_strings,
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(text, known_strings), children, max_size=4),
    ),
    max_leaves=12,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, (*prefix, index))
    return found


@st.composite
def tool_calls(draw: st.DrawFn) -> tuple[str, Any]:
    """A valid call of one of the tools, then up to three mutations of it."""
    name = draw(st.sampled_from(sorted(TOOLS)))
    rng = random.Random(draw(st.integers(0, 2**32)))
    arguments = synthetic._arguments(rng, name, draw(st.integers(0, 10**6)))
    for _ in range(draw(st.integers(0, 3))):
        path = draw(st.sampled_from(_paths(arguments)))
        if not path:
            arguments = draw(json_values)
            continue
        parent = arguments
        for step in path[:-1]:
            parent = parent[step]
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "replace":
            parent[path[-1]] = draw(json_values)
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.one_of(text, known_strings))] = draw(json_values)
        else:
            parent.append(draw(json_values))
    return name, arguments


def check_call(call: tuple[str, Any]) -> None:
    name, arguments = call
    expected = ORACLES[name].is_valid(arguments)
    assert ours_valid(TOOLS[name], arguments) == expected


FAST = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=40_000, deadline=None, suppress_health_check=list(HealthCheck))
test_same_verdicts_on_mutated_calls = FAST(given(tool_calls())(check_call))
test_same_verdicts_on_mutated_calls_slow = pytest.mark.slow(SLOW(given(tool_calls())(check_call)))


def test_the_fallback_engine_gives_the_same_gate_answers(monkeypatch):
    """The gate through python-jsonschema alone: same verdicts, same errors, same ranking."""
    items = list(synthetic.items(8000, seed=11))
    transcript = load_text("\n".join(json.dumps(i) for i in items), "synthetic.jsonl")
    tools = tools_from_document(synthetic.tools(), "tools")
    by_rust = gate_transcript(transcript, tools)
    monkeypatch.setattr(schema, "_CACHE", schema._SchemaCache(64, schema._compile_python))
    by_python = gate_transcript(transcript, tools)
    assert {schema.compile_schema(s).engine for s in TOOLS.values()} == {schema.ENGINE_PY}

    def answers(result):
        return [(v.verdict, [(e.path, e.keyword) for e in v.errors]) for v in result.verdicts]

    assert answers(by_rust) == answers(by_python)
    assert sum(v.verdict == "arguments_schema" for v in by_rust.verdicts) > 50
