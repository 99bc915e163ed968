"""The validators behind `inspector.core.schema`: which one answers, regex dialect and limits,
nothing fetched, the errors' keywords, pointers, ranking and caps."""

from __future__ import annotations

import http.server
import json
import socket
import threading
from collections.abc import Iterator

import pytest

from inspector.core import schema
from inspector.core.schema import (
    ENGINE_PY,
    ENGINE_RS,
    MAX_ERRORS,
    MAX_MESSAGE,
    compile_schema,
    validate,
)
from tests.conftest import StepClock

# A lookahead makes fancy-regex backtrack: 5000 a's overrun the limit, 24 a's take tens of ms.
BACKTRACKING = "^(a|aa)+(?!b)$"
# An unknown dialect: jsonschema-rs refuses it, python-jsonschema reads it as 2020-12.
UNKNOWN_DIALECT = "https://example.com/custom-dialect"


def errors(schema_: object, instance: object, **limits: object) -> tuple[schema.SchemaIssue, ...]:
    compiled = compile_schema(schema_)
    assert compiled.usable, compiled.problem
    return validate(compiled, instance, **limits)


@pytest.mark.parametrize(
    ("schema_", "engine", "dialect"),
    [
        ({"type": "object"}, ENGINE_RS, "https://json-schema.org/draft/2020-12/schema"),
        (
            {"$schema": "http://json-schema.org/draft-04/schema#"},
            ENGINE_RS,
            "http://json-schema.org/draft-04/schema#",
        ),
        (
            {"$schema": "http://json-schema.org/draft-03/schema#"},
            ENGINE_PY,
            "http://json-schema.org/draft-03/schema#",
        ),
        ({"$schema": UNKNOWN_DIALECT}, ENGINE_PY, "https://json-schema.org/draft/2020-12/schema"),
        ({"pattern": BACKTRACKING}, ENGINE_PY, "https://json-schema.org/draft/2020-12/schema"),
        ({"$ref": "https://example.com/s.json"}, ENGINE_PY, None),
    ],
)
def test_which_validator_answers(schema_, engine, dialect):
    compiled = compile_schema(schema_)
    assert compiled.usable and compiled.engine == engine
    assert dialect is None or compiled.dialect == dialect


def test_an_unknown_dialect_still_validates():
    assert errors({"$schema": UNKNOWN_DIALECT, "type": "string"}, "x") == ()
    assert errors({"$schema": UNKNOWN_DIALECT, "type": "string"}, 1)[0].keyword == "type"


@pytest.mark.parametrize(
    ("schema_", "reason"),
    [
        ({"pattern": "(unclosed"}, "'(unclosed' is not a 'regex'"),
        ({"patternProperties": {"(?<!": {}}}, "is not a 'regex'"),
        ({"$schema": UNKNOWN_DIALECT, "pattern": "[z-a]"}, "is not a 'regex'"),
        ({"properties": {"a": {"type": "no-such-type"}}}, "schema is invalid at /properties/a"),
        ({"minimum": "ten"}, "schema is invalid at /minimum"),
        ("not a schema", "must be an object or a boolean"),
    ],
)
def test_broken_schemas_say_why(schema_, reason):
    compiled = compile_schema(schema_)
    assert not compiled.usable and compiled.engine is None
    assert reason in compiled.problem
    with pytest.raises(ValueError, match="not usable"):
        validate(compiled, {})


def _nested(depth: int, leaf: object, wrap) -> object:
    for _ in range(depth):
        leaf = wrap(leaf)
    return leaf


def test_deeply_nested_schemas():
    deep = _nested(100, {"type": "string"}, lambda s: {"properties": {"a": s}})
    assert compile_schema(deep).engine == ENGINE_RS
    (issue,) = errors(deep, _nested(100, 1, lambda v: {"a": v}))
    assert issue.keyword == "type" and issue.path == "/a" * 100
    deeper = _nested(400, {"type": "string"}, lambda s: {"properties": {"a": s}})
    assert compile_schema(deeper).problem == "schema is nested too deeply to check"


# --------------------------------------------------------------------------------------------
# Nothing is ever fetched


@pytest.fixture
def local_server() -> Iterator[tuple[str, list[str]]]:
    """An HTTP server on localhost that would serve any schema, and the paths it was asked for."""
    requested: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            requested.append(self.path)
            body = json.dumps({"type": "integer"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/schema+json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requested
    finally:
        server.shutdown()
        server.server_close()


def test_remote_refs_are_refused_by_both_validators(local_server, monkeypatch, tmp_path):
    base, requested = local_server
    asked: list[str] = []
    refuse = schema._refuse_remote

    def spy(uri: str) -> None:
        asked.append(str(uri))
        refuse(uri)

    monkeypatch.setattr(schema, "_refuse_remote", spy)
    # jsonschema-rs would have fetched these through Rust, where no Python socket is involved.
    local_file = tmp_path / "s.json"
    local_file.write_text('{"type": "integer"}')
    for ref in (f"{base}/s.json", f"{base}/defs.json#/$defs/n", local_file.as_uri()):
        for schema_ in (
            {"$ref": ref},
            {"properties": {"n": {"$ref": ref}}},
            {"$id": f"{base}/root.json", "items": {"$ref": ref}},
        ):
            (issue,) = errors(schema_, {"n": "x"} if "properties" in schema_ else ["x"])
            assert issue.keyword == "$ref" and "is not fetched" in issue.message
    assert requested == []
    assert any(uri.startswith(base) for uri in asked)  # jsonschema-rs asked the retriever
    assert any(uri.startswith("file:") for uri in asked)


def test_no_socket_is_opened(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    (issue,) = errors({"$ref": "https://example.com/schemas/order.json"}, {})
    assert "not fetched" in issue.message


# --------------------------------------------------------------------------------------------
# Regexes: ECMA-262 under both validators, linear or under the backtrack limit

BOTH = pytest.mark.parametrize("dialect", [None, UNKNOWN_DIALECT], ids=["rust", "python"])


def _with(dialect: str | None, schema_: dict) -> dict:
    return schema_ if dialect is None else {"$schema": dialect, **schema_}


@BOTH
@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        (r"^\d+$", "123", True),
        (r"^\d+$", "١٢٣", False),  # ECMA-262's \d is ASCII-only; Python's `re` takes these
        (r"^\w+$", "é", False),  # likewise \w
        (r"^a$", "a\n", False),  # $ is the end of input; `re` also matches before a final \n
        (r"^\p{Letter}+$", "héllo", True),  # Unicode property classes, unknown to `re`
        (r"^\p{Letter}+$", "h3llo", False),
        (r"^\s$", "\u00a0", True),
        (r"(?<=a)b", "ab", True),
        (r"^(\w+)-\1$", "ab-ab", True),
        (r"^(\w+)-\1$", "ab-ba", False),
    ],
)
def test_patterns_are_ecma_262(dialect, pattern, text, matches):
    assert (errors(_with(dialect, {"pattern": pattern}), text) == ()) == matches
    keyed = _with(dialect, {"patternProperties": {pattern: False}})
    assert (errors(keyed, {text: 1}) != ()) == matches


@pytest.fixture
def matches(monkeypatch) -> list[str]:
    """The texts the python-jsonschema fallback matched a pattern against, in order."""
    seen: list[str] = []
    search = schema._search

    def spy(pattern: str, text: str) -> bool:
        seen.append(text)
        return search(pattern, text)

    monkeypatch.setattr(schema, "_search", spy)
    return seen


def test_a_pattern_catastrophic_for_backtracking_engines_runs_in_linear_time(matches):
    # The regex crate behind jsonschema-rs matches in linear time: the cause is that it answers,
    # not the backtracking fallback.
    assert compile_schema({"pattern": "^(a|aa)+$"}).engine == ENGINE_RS
    (issue,) = errors({"pattern": "^(a|aa)+$"}, "a" * 50_000 + "!")
    assert issue.keyword == "pattern"
    assert matches == []


@pytest.mark.parametrize(
    ("schema_", "instance"),
    [
        ({"properties": {"s": {"pattern": BACKTRACKING}}}, {"s": "a" * 5000 + "!"}),
        ({"patternProperties": {BACKTRACKING: {}}}, {"a" * 5000 + "!": 1}),
        (
            {"patternProperties": {BACKTRACKING: {}}, "additionalProperties": False},
            {"a" * 5000 + "!": 1},
        ),
        ({"propertyNames": {"pattern": BACKTRACKING}}, {"a" * 5000 + "!": 1}),
        ({"items": {"pattern": BACKTRACKING}}, ["a" * 5000 + "!\ud800"]),
    ],
)
def test_a_backtrack_overrun_is_a_budget_error_naming_the_pattern(
    schema_, instance, monkeypatch, matches
):
    # A clock that never moves: the time budget cannot be what stopped the match.
    monkeypatch.setattr(schema, "budget_clock", lambda: 0.0)
    (issue,) = errors(schema_, instance)
    assert issue.keyword == "budget"
    assert "backtrack limit" in issue.message and repr(BACKTRACKING) in issue.message
    assert len(matches) == 1  # the first match overran; nothing ran after it


@pytest.mark.parametrize(
    "pattern",
    [
        BACKTRACKING,
        # Each string matches after the first branch backtracked in vain: no error is ever
        # listed, so the deadline is found before a match, not between errors.
        BACKTRACKING + "|^a+!$",
    ],
)
def test_a_slow_check_stops_at_the_time_budget(pattern, monkeypatch, matches):
    instance = ["a" * 24 + "!"] * 200  # each below the backtrack limit, together seconds
    clock = StepClock(0.1)
    monkeypatch.setattr(schema, "budget_clock", clock)
    (issue,) = errors({"items": {"pattern": pattern}}, instance, budget=0.25)
    assert issue.keyword == "budget" and "time budget of 0.25 s" in issue.message
    # The deadline is 0.35 and every look at the limits reads the clock once: the third read
    # past the start stops the check, a few matches into the 200.
    assert 1 <= len(matches) <= 3 and clock.reads == 4


def test_a_check_within_its_time_budget_runs_every_match(monkeypatch, matches):
    monkeypatch.setattr(schema, "budget_clock", StepClock(0.1))
    instance = ["a!"] * 20
    assert errors({"items": {"pattern": BACKTRACKING}}, instance, budget=100.0) != ()
    assert len(matches) == 20


def test_cancel_stops_either_validator():
    cancel = threading.Event()
    cancel.set()
    for schema_ in ({"type": "string"}, {"pattern": BACKTRACKING}):
        (issue,) = errors(schema_, "a", cancel=cancel)
        assert issue.keyword == "budget" and "cancelled" in issue.message


# --------------------------------------------------------------------------------------------
# Instances Rust cannot hold go to python-jsonschema


@pytest.mark.parametrize(
    ("schema_", "instance", "valid"),
    [
        ({"maximum": 3}, 10**5000, False),
        ({"minimum": 3}, 10**5000, True),
        ({"multipleOf": 7}, 10**5000, False),
        ({"multipleOf": 10}, 10**5000, True),
        ({"type": "integer", "maximum": 2**65}, 2**64 + 1, True),
        ({"maxLength": 1}, "\ud800", True),
        ({"maxLength": 1}, "\ud800\udc00x", False),  # lone surrogates: one code point each
        ({"enum": ["a"]}, {"k\udfff": 1}, False),
        ({"propertyNames": {"pattern": "^k"}}, {"k\udfff": 1}, True),
        ({"propertyNames": {"pattern": "^k.$"}}, {"k\udfff": 1}, True),
    ],
    ids=lambda value: type(value).__name__,
)
def test_instances_out_of_rusts_reach_are_judged_exactly(schema_, instance, valid):
    # A bound past 64 bits keeps the schema itself in python-jsonschema (Rust would clamp it).
    big_bound = any(isinstance(v, int) and abs(v) >= 2**64 for v in schema_.values())
    assert compile_schema(schema_).engine == (ENGINE_PY if big_bound else ENGINE_RS)
    assert (errors(schema_, instance) == ()) == valid


# --------------------------------------------------------------------------------------------
# Errors: keyword, pointers, ranking, caps


def test_keywords_and_pointers():
    schema_ = {
        "$defs": {"n": {"type": "integer"}},
        "properties": {"x": {"$ref": "#/$defs/n"}, "f": False},
        "dependentRequired": {"x": ["y"]},
    }
    found = {(i.path, i.schema_path, i.keyword) for i in errors(schema_, {"x": "a", "f": 1})}
    assert found == {
        ("/x", "/properties/x/$ref/type", "type"),
        ("", "/dependentRequired", "dependentRequired"),
        ("/f", "/properties/f", "falseSchema"),
    }
    (issue,) = errors({"contains": {"type": "string"}, "minContains": 2}, ["a"])
    assert issue.keyword == "minContains"


@BOTH
def test_errors_are_ranked_most_specific_first(dialect):
    schema_ = _with(
        dialect,
        {
            "anyOf": [{"type": "array"}, {"maxProperties": 0}],
            "required": ["z"],
            "properties": {
                "b": {"type": "string"},
                "a": {"properties": {"deep": {"type": "string"}}},
            },
        },
    )
    found = [(i.path, i.keyword) for i in errors(schema_, {"a": {"deep": 1}, "b": 2})]
    assert found == [("/a/deep", "type"), ("/b", "type"), ("", "required"), ("", "anyOf")]


@BOTH
def test_errors_and_messages_are_capped(dialect):
    found = errors(_with(dialect, {"items": {"type": "string"}}), list(range(MAX_ERRORS * 3)))
    assert len(found) == MAX_ERRORS
    (issue,) = errors(_with(dialect, {"enum": ["x"]}), "y" * 100_000 + " z" * 1000)
    assert len(issue.message) <= MAX_MESSAGE and issue.message.endswith("…")
    # The huge value is shown by its length, never in part (it could be a key).
    assert issue.message[1:].startswith("…(100,000 chars) z z")


def test_format_is_an_annotation_only():
    assert errors({"format": "email"}, "not an email") == ()
    assert errors({"format": "date-time"}, "yesterday") == ()
