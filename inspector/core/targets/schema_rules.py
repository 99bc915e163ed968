"""Judge tool definitions against a target profile: schema subset, strict mode, tool names."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from typing import Any

from msgspec import Struct, field

from inspector.core.codes import FrozenValue
from inspector.core.gate import ToolSet
from inspector.core.model import Severity, Tool, join_pointer, json_kind
from inspector.core.targets.profile import Profile, Rule, get_profile

#: Finding and problem codes.
SCHEMA_REJECTED = "target_tool_schema"
SCHEMA_ALTERED = "target_tool_schema_altered"
TOOL_NAME = "target_tool_name"

# Keywords whose value is one subschema, a list of them, or a map of them (JSON Schema 2020-12
# plus draft-7's `definitions` and `additionalItems`).
_ONE = (
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
)
_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_COMBINATORS = ("anyOf", "oneOf", "allOf")


class Node(Struct, frozen=True):
    """One subschema: its JSON Pointer, its value, where it sits and its object nesting level."""

    pointer: str
    schema: dict[str, Any]
    where: str
    depth: int


def walk_schema(root: Any) -> list[Node]:
    """Every object subschema of a schema, root first, with its pointer (boolean ones skipped)."""
    nodes: list[Node] = []
    stack: list[tuple[str, Any, str, int]] = [("", root, "root", 0)]
    while stack:
        pointer, schema, where, depth = stack.pop()
        if not isinstance(schema, dict):
            continue
        level = depth + (1 if _is_object(schema) else 0)
        nodes.append(Node(pointer, schema, where, level))
        children: list[tuple[str, Any, str, int]] = []
        for key, value in schema.items():
            if key in _MAP and isinstance(value, dict):
                child_where = (
                    "root_property" if where == "root" and key == "properties" else "nested"
                )
                for name, sub in value.items():
                    children.append((join_pointer(pointer, key, name), sub, child_where, level))
            elif (key in _LIST or key == "items") and isinstance(value, list):
                # A list under `items` is draft-7's tuple form.
                for i, sub in enumerate(value):
                    children.append((join_pointer(pointer, key, i), sub, "nested", level))
            elif key in _ONE or key == "items":
                children.append((join_pointer(pointer, key), value, "nested", level))
        stack.extend(reversed(children))
    return nodes


def _types(schema: dict[str, Any]) -> set[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    return set()


def _is_object(schema: dict[str, Any]) -> bool:
    types = _types(schema)
    return "object" in types or (not types and isinstance(schema.get("properties"), dict))


def _is_array(schema: dict[str, Any]) -> bool:
    return "array" in _types(schema)


def _show(value: Any, limit: int = 40) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _where_ok(rule: Rule, node: Node) -> bool:
    where = rule.get("where", "any")
    return where == "any" or where == node.where


# -- node checks: each yields (pointer, what was found) ----------------------------------------

Hit = tuple[str, str]
NodeCheck = Callable[[Rule, Node, "_Context"], Iterator[Hit]]


class _Context(Struct):
    root: Any
    nodes: list[Node]
    covered: frozenset[str] = frozenset()
    cache: dict[str, Any] = field(default_factory=dict)


def _keyword(rule: Rule, node: Node, ctx: _Context) -> Iterator[Hit]:
    if not _where_ok(rule, node):
        return
    schema = node.schema
    wanted = rule.get("types")
    if wanted and _types(schema) and not _types(schema) & set(wanted):
        return
    only_with = rule.get("only_with")
    if only_with and not any(k in schema for k in only_with):
        return
    allowed = rule.get("allowed_values")
    for keyword in rule.get("keywords", ()):
        if keyword not in schema:
            continue
        value = schema[keyword]
        if allowed is not None and any(value == a and type(value) is type(a) for a in allowed):
            continue
        yield join_pointer(node.pointer, keyword), f"`{keyword}` ({_show(value)})"


def _unknown_keyword(rule: Rule, node: Node, ctx: _Context) -> Iterator[Hit]:
    if not _where_ok(rule, node):
        return
    known = set(rule.get("known", ())) | set(rule.get("ignore", ()))
    for keyword, value in node.schema.items():
        if keyword not in known and keyword not in ctx.covered:
            yield join_pointer(node.pointer, keyword), f"`{keyword}` ({_show(value)})"


def _format(rule: Rule, node: Node, ctx: _Context) -> Iterator[Hit]:
    value = node.schema.get("format")
    if isinstance(value, str) and value not in rule.get("allowed", ()):
        yield join_pointer(node.pointer, "format"), f"format {value!r}"


def _enum_types(rule: Rule, node: Node, ctx: _Context) -> Iterator[Hit]:
    values = node.schema.get("enum")
    if not isinstance(values, list):
        return
    allowed = set(rule.get("allowed", ()))
    if "number" in allowed:
        allowed.add("integer")
    bad = [v for v in values if json_kind(v, integers=True) not in allowed]
    if bad:
        shown = ", ".join(_show(v, 20) for v in bad[:3]) + (" …" if len(bad) > 3 else "")
        yield join_pointer(node.pointer, "enum"), f"enum values {shown}"


def _property_names(rule: Rule, node: Node, ctx: _Context) -> Iterator[Hit]:
    properties = node.schema.get("properties")
    if not isinstance(properties, dict):
        return
    pattern = _compiled(rule.get("pattern"))
    for name in properties:
        if not pattern.fullmatch(name):
            yield join_pointer(node.pointer, "properties", name), f"property name {name!r}"


def _object_properties(rule: Rule, node: Node, ctx: _Context) -> Iterator[Hit]:
    schema = node.schema
    if "object" not in _types(schema):
        return
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        yield node.pointer, "an object schema without `properties`"
    elif rule.get("nonempty") and not properties:
        yield join_pointer(node.pointer, "properties"), "an object schema with empty `properties`"


def _type_array(rule: Rule, node: Node, ctx: _Context) -> Iterator[Hit]:
    if isinstance(node.schema.get("type"), list):
        yield join_pointer(node.pointer, "type"), f"type array {_show(node.schema['type'])}"


def _type_required(rule: Rule, node: Node, ctx: _Context) -> Iterator[Hit]:
    schema = node.schema
    # A reference takes its type from its target (and the profiles that reject $ref say so).
    if "type" not in schema and not any(k in schema for k in (*_COMBINATORS, "$ref")):
        yield node.pointer, "a schema without `type`"


def _closed_objects(rule: Rule, node: Node, ctx: _Context) -> Iterator[Hit]:
    schema = node.schema
    if _is_object(schema) and schema.get("additionalProperties") is not False:
        if "additionalProperties" in schema:
            if rule.get("only_missing"):
                return
            value = _show(schema["additionalProperties"])
            yield (
                join_pointer(node.pointer, "additionalProperties"),
                f"additionalProperties {value}",
            )
        else:
            yield node.pointer, "an object without `additionalProperties: false`"


def _all_required(rule: Rule, node: Node, ctx: _Context) -> Iterator[Hit]:
    schema = node.schema
    properties = schema.get("properties")
    if not _is_object(schema) or not isinstance(properties, dict) or not properties:
        return
    required = schema.get("required")
    listed = set(required) if isinstance(required, list) else set()
    missing = [name for name in properties if name not in listed]
    if missing:
        names = ", ".join(repr(m) for m in missing[:5]) + (" …" if len(missing) > 5 else "")
        where = join_pointer(node.pointer, "required") if "required" in schema else node.pointer
        yield where, f"optional propert{'y' if len(missing) == 1 else 'ies'} {names}"


def _ref_siblings(rule: Rule, node: Node, ctx: _Context) -> Iterator[Hit]:
    schema = node.schema
    if "$ref" in schema:
        others = [k for k in schema if k not in ("$ref", "$defs", "definitions", "$schema")]
        if others:
            shown = ", ".join(f"`{k}`" for k in others[:4])
            yield join_pointer(node.pointer, "$ref"), f"`$ref` beside {shown}"


def _refs(rule: Rule, node: Node, ctx: _Context) -> Iterator[Hit]:
    for keyword in ("$ref", "$defs", "definitions"):
        if keyword in node.schema:
            value = node.schema[keyword]
            count = len(value) if isinstance(value, dict) else 0
            shown = _show(value) if keyword == "$ref" else f"{count} definition{'s' * (count != 1)}"
            yield join_pointer(node.pointer, keyword), f"`{keyword}` ({shown})"


_LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!")


def _pattern_lookaround(rule: Rule, node: Node, ctx: _Context) -> Iterator[Hit]:
    pattern = node.schema.get("pattern")
    if isinstance(pattern, str) and any(t in pattern for t in _LOOKAROUND):
        yield join_pointer(node.pointer, "pattern"), f"pattern {_show(pattern)} (lookaround)"


def _typed_items(rule: Rule, node: Node, ctx: _Context) -> Iterator[Hit]:
    schema = node.schema
    if _is_array(schema) and "items" not in schema and "prefixItems" not in schema:
        yield node.pointer, "an array schema without `items`"


def _anyof_alone(rule: Rule, node: Node, ctx: _Context) -> Iterator[Hit]:
    schema = node.schema
    if "anyOf" in schema and len(schema) > 1:
        others = ", ".join(f"`{k}`" for k in schema if k != "anyOf")
        yield join_pointer(node.pointer, "anyOf"), f"`anyOf` beside {others}"


def _recursive_ref(rule: Rule, node: Node, ctx: _Context) -> Iterator[Hit]:
    if "recursive" not in ctx.cache:
        ctx.cache["recursive"] = _recursive_pointers(ctx.nodes)
    if node.pointer in ctx.cache["recursive"]:
        yield join_pointer(node.pointer, "$ref"), f"recursive `$ref` ({_show(node.schema['$ref'])})"


def _ref_target(ref: Any) -> str | None:
    """The JSON Pointer a local `$ref` names, or None for remote or anchor references."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    target = ref[1:]
    if target and not target.startswith("/"):
        return None
    return target.replace("%25", "%").replace("%22", '"')


def _recursive_pointers(nodes: list[Node]) -> set[str]:
    """Pointers of the `$ref` nodes that take part in a reference cycle."""
    refs = [(n.pointer, t) for n in nodes if (t := _ref_target(n.schema.get("$ref"))) is not None]
    targets = sorted({t for _, t in refs}, key=len)

    def owner(pointer: str) -> str:
        # The innermost referenced subschema that contains this pointer ("" is the root).
        best = ""
        for target in targets:
            if pointer == target or pointer.startswith(target + "/"):
                best = target if len(target) > len(best) else best
        return best

    edges: dict[str, set[str]] = {}
    for pointer, target in refs:
        edges.setdefault(owner(pointer), set()).add(target)

    def reaches(start: str, goal: str) -> bool:
        seen, stack = set(), [start]
        while stack:
            here = stack.pop()
            if here == goal:
                return True
            if here not in seen:
                seen.add(here)
                stack.extend(edges.get(here, ()))
        return False

    return {pointer for pointer, target in refs if reaches(target, owner(pointer))}


_NODE_CHECKS: dict[str, NodeCheck] = {
    "keyword": _keyword,
    "unknown_keyword": _unknown_keyword,
    "format": _format,
    "enum_types": _enum_types,
    "property_names": _property_names,
    "object_properties": _object_properties,
    "type_array": _type_array,
    "type_required": _type_required,
    "closed_objects": _closed_objects,
    "all_required": _all_required,
    "ref_siblings": _ref_siblings,
    "refs": _refs,
    "pattern_lookaround": _pattern_lookaround,
    "typed_items": _typed_items,
    "anyof_alone": _anyof_alone,
    "recursive_ref": _recursive_ref,
}


# -- whole-schema checks -------------------------------------------------------------------------


def _root_object(rule: Rule, ctx: _Context) -> Iterator[Hit]:
    root = ctx.root
    kind = root.get("type") if isinstance(root, dict) else None
    if kind != "object":
        found = f"type {_show(kind)}" if isinstance(root, dict) else f"a JSON {json_kind(root)}"
        yield (
            ("/type" if isinstance(root, dict) and "type" in root else ""),
            (
                f"a root schema with {found}"
                if isinstance(root, dict)
                else f"a root schema that is {found}"
            ),
        )


def _max_depth(rule: Rule, ctx: _Context) -> Iterator[Hit]:
    limit = rule.get("max")
    deepest = max(ctx.nodes, key=lambda n: n.depth, default=None)
    if deepest is not None and deepest.depth > limit:
        yield deepest.pointer, f"{deepest.depth} levels of object nesting"


def _max_properties(rule: Rule, ctx: _Context) -> Iterator[Hit]:
    total = sum(
        len(n.schema["properties"])
        for n in ctx.nodes
        if isinstance(n.schema.get("properties"), dict)
    )
    if total > rule.get("max"):
        yield "", f"{total} object properties in all"


def _max_enum_values(rule: Rule, ctx: _Context) -> Iterator[Hit]:
    total = sum(len(n.schema["enum"]) for n in ctx.nodes if isinstance(n.schema.get("enum"), list))
    if total > rule.get("max"):
        yield "", f"{total} enum values in all"


def _metaschema(rule: Rule, ctx: _Context) -> Iterator[Hit]:
    from jsonschema.exceptions import best_match

    validator = _metaschema_validator(rule.get("dialect"))
    try:
        error = best_match(validator.iter_errors(ctx.root))
    except RecursionError:
        # Too deep for jsonschema's recursive walk: nothing is known, so nothing is claimed.
        return
    if error is not None:
        pointer = join_pointer("", *error.absolute_path)
        yield pointer, f"an invalid schema ({_show(error.message, 120)})"


@cache
def _metaschema_validator(dialect: str) -> Any:
    # Imported when a metaschema rule first runs: starting the CLI or the window never pays it.
    from jsonschema.validators import validator_for

    cls = validator_for({"$schema": dialect})
    return cls(cls.META_SCHEMA)


_SCHEMA_CHECKS: dict[str, Callable[[Rule, _Context], Iterator[Hit]]] = {
    "root_object": _root_object,
    "max_depth": _max_depth,
    "max_properties": _max_properties,
    "max_enum_values": _max_enum_values,
    "metaschema": _metaschema,
}


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# -- results -------------------------------------------------------------------------------------


class ToolProblem(FrozenValue):
    """One thing a target does with a tool definition: rejects it, or silently changes it."""

    FIELDS = ("code", "severity", "pointer", "rule", "message")
    __slots__ = FIELDS
    code: str
    severity: Severity
    pointer: str | None
    rule: Rule
    message: str

    def __init__(
        self, code: str, severity: Severity, pointer: str | None, rule: Rule, message: str
    ) -> None:
        self._fill(code, severity, pointer, rule, message)

    def to_json(self) -> dict[str, Any]:
        """Return the `tools` command's JSON form."""
        return {
            "code": self.code,
            "severity": str(self.severity),
            "pointer": self.pointer,
            "rule": self.rule.id,
            "message": self.message,
            "source": self.rule.source,
        }


class ToolVerdict(Struct, frozen=True):
    """A target's answer for one tool: the problems found and how `strict` was read."""

    tool: Tool
    target: str
    mode: str
    problems: tuple[ToolProblem, ...]

    @property
    def accepted(self) -> bool:
        """Whether the target takes the definition (it may still alter it)."""
        return not any(p.severity == Severity.ERROR for p in self.problems)

    @property
    def altered(self) -> bool:
        """Whether the target changes or drops part of the definition."""
        return any(p.code == SCHEMA_ALTERED for p in self.problems)

    @property
    def mark(self) -> str:
        """✓ accepted as is, ~ accepted with changes, ✗ rejected."""
        if not self.accepted:
            return "✗"
        return "~" if self.altered else "✓"


def declared_in(tool: Tool) -> str | None:
    """The member of its definition a tool's schema was read from (`parametersJsonSchema` …).

    Formats point a tool's origin at that member when the API has several; else None.
    """
    pointer = tool.origin.pointer if tool.origin is not None else None
    if not pointer:
        return None
    last = pointer.rsplit("/", 1)[-1]
    return None if last.isdigit() else last.replace("~1", "/").replace("~0", "~")


def strict_mode(tool: Tool, profile: Profile) -> str:
    """How the target reads this tool: 'strict', 'loose' or 'normalize' (strict when it can)."""
    if profile.strict is None:
        return "loose"
    if tool.strict is True:
        return "strict"
    if tool.strict is False:
        return "loose"
    return profile.strict.default


def with_fix(text: str, rule: Rule) -> str:
    """Append the rule's well-known transformation, when it names one."""
    fix = rule.get("fix")
    return f"{text}; well-known fix: {fix}" if fix else text


def _message(rule: Rule, found: str, effect: str, note: str = "") -> str:
    verb = "rejected" if effect == "rejected" else "silently altered"
    text = f"{found} is {verb}: {rule.reason}"
    return with_fix(f"{text}; {note}" if note else text, rule)


def _run(rule: Rule, ctx: _Context) -> list[Hit]:
    if rule.check in _SCHEMA_CHECKS:
        return list(_SCHEMA_CHECKS[rule.check](rule, ctx))
    check = _NODE_CHECKS[rule.check or ""]
    return [hit for node in ctx.nodes for hit in check(rule, node, ctx)]


def _covered(rules: Iterable[Rule]) -> frozenset[str]:
    """Keywords that a specific rule already explains (so a catch-all does not repeat them)."""
    names: set[str] = set()
    for rule in rules:
        if rule.check == "keyword":
            names.update(rule.get("keywords", ()))
        elif rule.check == "refs":
            names.update(("$ref", "$defs", "definitions"))
        elif rule.check == "type_array":
            names.add("type")
    return frozenset(names)


def _problem(rule: Rule, effect: str, pointer: str, message: str) -> ToolProblem:
    if effect == "rejected":
        return ToolProblem(SCHEMA_REJECTED, Severity.ERROR, pointer, rule, message)
    return ToolProblem(SCHEMA_ALTERED, Severity.WARNING, pointer, rule, message)


def _schema_problems(tool: Tool, profile: Profile, mode: str) -> tuple[list[ToolProblem], str]:
    root = tool.parameters
    if root is None:
        return [], mode
    nodes = walk_schema(root)

    def run(rules: list[Rule]) -> list[tuple[Rule, Hit]]:
        ctx = _Context(root, nodes, _covered(rules))
        return [(rule, hit) for rule in rules for hit in _run(rule, ctx)]

    def applies(rule: Rule, wanted: str) -> bool:
        return rule.get("mode", "any") in ("any", wanted)

    field = declared_in(tool)
    rules = [r for r in profile.schema if field not in r.get("skips_declared_in", ())]
    if mode == "normalize":
        strict_only = [r for r in rules if r.get("mode") == "strict"]
        strict_hits = run(strict_only)
        if all(rule.get("when_normalized") for rule, _ in strict_hits):
            # The provider can make this schema strict by itself, and does so silently.
            hits = run([r for r in rules if applies(r, "any")]) + [
                (rule, hit) for rule, hit in strict_hits if rule.get("when_normalized") == "altered"
            ]
            used = "normalize"
            problems = []
            for rule, (pointer, found) in hits:
                normalized = rule.get("mode") == "strict"
                effect = "altered" if normalized else rule.get("effect")
                note = (
                    "the tool sets no `strict`, so the provider makes the schema strict itself"
                    if normalized
                    else ""
                )
                problems.append(
                    _problem(rule, effect, pointer, _message(rule, found, effect, note))
                )
            return problems, used
        mode = "loose"  # The schema cannot be made strict: the provider falls back to loose.
    hits = run([r for r in rules if applies(r, mode)])
    problems = [
        _problem(rule, rule.get("effect"), p, _message(rule, found, rule.get("effect")))
        for rule, (p, found) in hits
    ]
    return problems, mode


def _name_problems(tool: Tool, profile: Profile) -> list[ToolProblem]:
    out = []
    for rule in profile.tool_names:
        if "definitions" in rule.get("scope", ()) and not _compiled(rule.get("pattern")).fullmatch(
            tool.name
        ):
            message = with_fix(
                f"tool name {tool.name!r} is rejected (it must match {rule.get('pattern')}): "
                f"{rule.reason}",
                rule,
            )
            out.append(ToolProblem(TOOL_NAME, Severity.ERROR, None, rule, message))
    return out


def check_tool(tool: Tool, profile: Profile | str) -> ToolVerdict:
    """Judge one tool definition (name and parameters schema) against a target."""
    profile = get_profile(profile)
    mode = strict_mode(tool, profile)
    problems, used = _schema_problems(tool, profile, mode)
    problems = _name_problems(tool, profile) + sorted(problems, key=_problem_order)
    return ToolVerdict(tool, profile.name, used, tuple(problems))


def _problem_order(problem: ToolProblem) -> tuple[int, str]:
    return (0 if problem.severity == Severity.ERROR else 1, problem.pointer or "")


def tools_of(tools: ToolSet | Mapping[str, Tool] | Iterable[Tool] | None) -> list[Tool]:
    """The tools of a ToolSet, a name → Tool mapping or an iterable, in name order."""
    if tools is None:
        return []
    if isinstance(tools, ToolSet):
        tools = tools.tools
    listed = list(tools.values()) if isinstance(tools, Mapping) else list(tools)
    return sorted(listed, key=lambda t: t.name)


def check_tools(
    tools: ToolSet | Mapping[str, Tool] | Iterable[Tool] | None, profile: Profile | str
) -> dict[str, ToolVerdict]:
    """Judge every tool against a target: tool name → verdict with its problems."""
    profile = get_profile(profile)
    return {tool.name: check_tool(tool, profile) for tool in tools_of(tools)}
