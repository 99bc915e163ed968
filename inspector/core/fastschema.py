"""A fast yes/no JSON Schema check for a draft 2020-12 subset, with jsonschema's exact verdict.

Most function calls in a log are valid, and jsonschema spends 100-200 µs finding no error in each.
`compile_fast` turns a schema into nested closures once; the checker answers "is this instance
valid?" without jsonschema, so only the invalid instances need jsonschema for ranked errors.

The checker's answer equals `Draft202012Validator(schema).is_valid(instance)` (format as an
annotation, `pattern`, `patternProperties` and `additionalProperties` matched through the
time-bounded `inspector.core.schema._search`) for every schema that compiles. Anything outside
the subset makes `compile_fast` return None, and the caller uses jsonschema alone.

Instances are JSON values as json.loads makes them. Exceptions are not verdicts: the checker
raises BudgetExceeded from `_search` (set the limits as `validate` does), and the errors that
jsonschema itself would raise (OverflowError from multipleOf with a huge integer, a regex.error
from a broken pattern). It may stop at a different keyword than jsonschema, so where one side
raises the other may answer; and Python's recursion limit is reached at a different depth (the
checker uses fewer frames per level). A caller that gets an exception asks jsonschema.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import partial
from typing import Any
from urllib.parse import unquote

from jsonschema import Draft202012Validator

from inspector.core.schema import _search

Check = Callable[[Any], bool]

_DIALECTS = frozenset(
    {
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2020-12/schema#",
    }
)

#: Keywords of Draft202012Validator.VALIDATORS that the checker implements.
SUPPORTED = frozenset(
    {
        "$ref",
        "additionalProperties",
        "allOf",
        "anyOf",
        "const",
        "dependentRequired",
        "enum",
        "exclusiveMaximum",
        "exclusiveMinimum",
        "format",
        "items",
        "maxItems",
        "maxLength",
        "maxProperties",
        "maximum",
        "minItems",
        "minLength",
        "minProperties",
        "minimum",
        "multipleOf",
        "not",
        "oneOf",
        "pattern",
        "patternProperties",
        "prefixItems",
        "properties",
        "propertyNames",
        "required",
        "type",
        "uniqueItems",
    }
)

# Refused although jsonschema ignores some of them: identifiers and anchors change how refs
# resolve (and `$schema` in a subschema switches jsonschema to another validator class), and
# then/else and min/maxContains only make sense beside keywords the checker does not implement.
_REFUSED_EXTRA = frozenset(
    {
        "$id",
        "$schema",
        "$anchor",
        "$dynamicAnchor",
        "$recursiveRef",
        "$recursiveAnchor",
        "then",
        "else",
        "minContains",
        "maxContains",
    }
)
# Computed from jsonschema itself so that a keyword added by a later release is refused, not
# silently ignored.
_REFUSED = (frozenset(Draft202012Validator.VALIDATORS) - SUPPORTED) | _REFUSED_EXTRA
_ROOT_ONLY = frozenset({"$id", "$schema"})


class _Unsupported(Exception):
    """The schema uses something outside the subset; the caller falls back to jsonschema."""


# --------------------------------------------------------------------------------------------
# jsonschema's type and equality semantics, replicated (its helpers are private)


def _true(instance: Any) -> bool:
    return True


def _false(instance: Any) -> bool:
    return False


def _is_number(x: Any) -> bool:
    t = type(x)
    if t is int or t is float:
        return True
    if t is bool:
        return False
    # Other numbers (Decimal, Fraction) never come out of json.loads, but jsonschema takes them.
    return isinstance(x, numbers.Number) and not isinstance(x, bool)


def _is_integer(x: Any) -> bool:
    t = type(x)
    if t is int:
        return True
    if t is float:
        return x.is_integer()
    if isinstance(x, bool):
        return False
    return isinstance(x, int) or (isinstance(x, float) and x.is_integer())


def _is_null(x: Any) -> bool:
    return x is None


def _is_boolean(x: Any) -> bool:
    return isinstance(x, bool)


def _is_string(x: Any) -> bool:
    return isinstance(x, str)


def _is_array(x: Any) -> bool:
    return isinstance(x, list)


def _is_object(x: Any) -> bool:
    return isinstance(x, dict)


_TYPE_TESTS: dict[str, Check] = {
    "null": _is_null,
    "boolean": _is_boolean,
    "string": _is_string,
    "array": _is_array,
    "object": _is_object,
    "number": _is_number,
    "integer": _is_integer,
}
# Which keyword group a type belongs to: keywords of one group only constrain its instances.
_GROUP_OF: dict[str, str | None] = {
    "null": None,
    "boolean": None,
    "string": "string",
    "array": "array",
    "object": "object",
    "number": "number",
    "integer": "number",
}
# The exact JSON types (as json.loads makes them) each type name admits; "integer" also admits
# some floats, which _types tests one by one.
_EXACT_TYPES: dict[str, tuple[type, ...]] = {
    "null": (type(None),),
    "boolean": (bool,),
    "string": (str,),
    "array": (list,),
    "object": (dict,),
    "number": (int, float),
    "integer": (int,),
}
_JSON_TYPES = frozenset({type(None), bool, str, list, dict, int, float})
_KIND_OF: dict[str, type] = {"object": dict, "array": list, "string": str}


class _Sentinel:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


# Stand-ins that keep True and False apart from 1 and 0, as jsonschema's `unbool` does.
_TRUE = _Sentinel("<true>")
_FALSE = _Sentinel("<false>")


def _unbool(element: Any) -> Any:
    if element is True:
        return _TRUE
    if element is False:
        return _FALSE
    return element


# How `_equal` compares exact JSON types; scalars are neither str, Sequence nor Mapping, so
# jsonschema compares them with unbool(one) == unbool(two).
_KINDS: dict[type, str] = {
    str: "str",
    int: "scalar",
    float: "scalar",
    bool: "scalar",
    type(None): "scalar",
    list: "list",
    dict: "dict",
}


def _equal(one: Any, two: Any) -> bool:
    """jsonschema's `_utils.equal`: == except that booleans never equal numbers, recursively."""
    if one is two:
        return True
    # Exact JSON types first: the same branches as below without the slow ABC isinstance checks.
    kind = _KINDS.get(type(one))
    other = _KINDS.get(type(two))
    if kind == "str" or other == "str":
        return one == two
    if kind is not None and kind == other:
        if kind == "scalar":
            return _unbool(one) == _unbool(two)
        if len(one) != len(two):
            return False
        if kind == "list":
            for i, j in zip(one, two, strict=True):  # noqa: SIM110
                if not _equal(i, j):
                    return False
            return True
        for key, value in one.items():
            if key not in two or not _equal(value, two[key]):
                return False
        return True
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        if len(one) != len(two):
            return False
        return all(_equal(i, j) for i, j in zip(one, two, strict=True))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        if len(one) != len(two):
            return False
        return all(key in two and _equal(value, two[key]) for key, value in one.items())
    return _unbool(one) == _unbool(two)


def _uniq(container: list[Any]) -> bool:
    """jsonschema's `_utils.uniq`, step for step: its sort-then-compare-neighbours shortcut
    answers differently from a plain pairwise search for some inputs (NaN), so it is copied."""
    try:
        sort = sorted(_unbool(i) for i in container)
        sliced = itertools.islice(sort, 1, None)
        for i, j in zip(sort, sliced, strict=False):
            if _equal(i, j):
                return False
    except (NotImplementedError, TypeError):
        seen: list[Any] = []
        for e in container:
            e = _unbool(e)
            for i in seen:
                if _equal(i, e):
                    return False
            seen.append(e)
    return True


def _unique_items(x: list[Any]) -> bool:
    # All-str and all-int arrays are totally ordered, so a set gives uniq's answer much faster.
    if all(type(i) is str for i in x) or all(type(i) is int for i in x):
        return len(set(x)) == len(x)
    return _uniq(x)


_NO_KEY = _Sentinel("<no key>")
_SCALARS = (str, int, float, type(None))


def _key(value: Any) -> Any:
    """A hashable stand-in whose == agrees with `_equal` among JSON scalars, or _NO_KEY."""
    if value is True:
        return _TRUE
    if value is False:
        return _FALSE
    if type(value) in _SCALARS:
        return value
    return _NO_KEY


_JSON_NOT_STR = frozenset({int, float, bool, type(None), list, dict})


def _enum(values: list[Any], *, instance_first: bool, string_type: bool = False) -> Check:
    """Membership with `_equal` semantics: hashed for JSON scalars, pairwise for the rest.

    `string_type` folds in `"type": "string"` (only for an enum of strings).
    """
    keyed = set()
    compound = []
    for value in values:
        key = _key(value)
        if key is _NO_KEY:
            compound.append(value)
        else:
            keyed.add(key)

    def slow(x: Any, candidates: list[Any]) -> bool:
        # jsonschema calls equal(each, instance) for enum and equal(instance, const) for const.
        if instance_first:
            return any(_equal(x, value) for value in candidates)
        return any(_equal(value, x) for value in candidates)

    if all(type(v) is str for v in values):
        strings = frozenset(values)

        def string_check(x: Any) -> bool:
            t = type(x)
            if t is str:
                return x in strings
            if t in _JSON_NOT_STR:
                return False  # never equal to a string under `_equal`
            return isinstance(x, str) and slow(x, values) if string_type else slow(x, values)

        return string_check
    if string_type:
        raise ValueError("string_type needs an enum of strings")

    def check(x: Any) -> bool:
        t = type(x)
        if t is str or t is int or t is float or x is None:
            # A set lookup tries identity, then ==, as `_equal` does; NaN matches only itself.
            return x in keyed
        if t is bool:
            return (_TRUE if x else _FALSE) in keyed
        if t is list or t is dict:
            # An array or object never equals a scalar under `_equal`.
            return slow(x, compound)
        return slow(x, values)  # exotic types (Decimal, tuple, str subclasses): every value

    return check


# --------------------------------------------------------------------------------------------
# Combinators
#
# The hot loops below are written out (noqa: SIM110): all()/any() over a generator costs a
# generator frame per call, a large share of a check that takes a few hundred nanoseconds.


def _all(checks: list[Check]) -> Check:
    checks = [c for c in checks if c is not _true]
    if any(c is _false for c in checks):
        return _false
    if not checks:
        return _true
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        a, b = checks
        return lambda x: a(x) and b(x)
    if len(checks) == 3:
        a, b, c = checks
        return lambda x: a(x) and b(x) and c(x)
    frozen = tuple(checks)

    def every(x: Any) -> bool:
        for check in frozen:  # noqa: SIM110
            if not check(x):
                return False
        return True

    return every


def _any(checks: list[Check]) -> Check:
    frozen = tuple(checks)

    def some(x: Any) -> bool:
        for check in frozen:  # noqa: SIM110
            if check(x):
                return True
        return False

    return some


def _one(checks: list[Check]) -> Check:
    frozen = tuple(checks)

    def exactly_one(x: Any) -> bool:
        found = False
        for check in frozen:
            if check(x):
                if found:
                    return False
                found = True
        return found

    return exactly_one


def _negate(check: Check) -> Check:
    return lambda x: not check(x)


def _types(names: list[str]) -> Check:
    tests = tuple(_TYPE_TESTS[name] for name in names)
    if len(tests) == 1:
        return tests[0]
    # Exact JSON types answer from a set; only floats (for "integer") and other Python types
    # need the tests themselves.
    exact = frozenset(t for name in names for t in _EXACT_TYPES[name])
    floats_vary = "integer" in names and "number" not in names

    def any_type(x: Any) -> bool:
        t = type(x)
        if t in exact:
            return True
        if t is float and floats_vary:
            return x.is_integer()
        if t in _JSON_TYPES:
            return False
        for test in tests:  # noqa: SIM110
            if test(x):
                return True
        return False

    return any_type


def _guard(group: str, check: Check) -> Check:
    """Apply a group's check only to instances of that group, as each keyword does."""
    if group == "object":
        return lambda x: not isinstance(x, dict) or check(x)
    if group == "array":
        return lambda x: not isinstance(x, list) or check(x)
    if group == "string":
        return lambda x: not isinstance(x, str) or check(x)
    return lambda x: not _is_number(x) or check(x)


# --------------------------------------------------------------------------------------------
# Keyword groups
#
# Each group's keywords are one closure that assumes the instance is of the group's type: one
# call per schema node instead of one per keyword, which is most of the speed-up. When the
# node's `type` admits that group only, the closure also does the type test (`kind`, `test`),
# which saves one more call per node.


def _object(
    required: frozenset[str],
    min_properties: Any,
    max_properties: Any,
    dependent: tuple[tuple[str, tuple[str, ...]], ...],
    properties: dict[str, Check],
    patterns: tuple[tuple[str, Check], ...],
    additional: Check | None,
    names: Check | None,
    *,
    kind: type = object,
) -> Check:
    extra: list[Check] = []
    if min_properties is not None:
        extra.append(lambda x: not len(x) < min_properties)
    if max_properties is not None:
        extra.append(lambda x: not len(x) > max_properties)
    if dependent:

        def dependencies(x: dict[str, Any]) -> bool:
            for key, needed in dependent:
                if key in x:
                    for each in needed:
                        if each not in x:
                            return False
            return True

        extra.append(dependencies)
    if extra and kind is not object:
        # The type test must come before keywords that assume a dict; `main` then skips it.
        extra.insert(0, _is_object)
        kind = object

    main: Check | None
    if additional is _false and not patterns and names is None:
        # The usual tool schema: listed properties only.
        def closed(x: dict[str, Any]) -> bool:
            if not isinstance(x, kind):
                return False
            if required and not x.keys() >= required:
                return False
            for key, value in x.items():
                check = properties.get(key)
                if check is None or not check(value):
                    return False
            return True

        main = closed
    elif patterns or additional is not None or names is not None:

        def scan(x: dict[str, Any]) -> bool:
            if not isinstance(x, kind):
                return False
            if required and not x.keys() >= required:
                return False
            for key, value in x.items():
                check = properties.get(key)
                if check is not None and not check(value):
                    return False
                matched = check is not None
                for pattern, pattern_check in patterns:
                    if _search(pattern, key):
                        matched = True
                        if not pattern_check(value):
                            return False
                if not matched and additional is not None and not additional(value):
                    return False
                if names is not None and not names(key):
                    return False
            return True

        main = scan
    else:
        constrained = tuple((k, c) for k, c in properties.items() if c is not _true)

        def listed(x: dict[str, Any]) -> bool:
            if not isinstance(x, kind):
                return False
            if required and not x.keys() >= required:
                return False
            for key, check in constrained:  # noqa: SIM110
                if key in x and not check(x[key]):
                    return False
            return True

        main = listed if constrained or required or kind is not object else None
    return _all([*extra, main] if main is not None else extra)


def _array(
    min_items: Any,
    max_items: Any,
    prefix: tuple[Check, ...],
    items: Check | None,
    unique: bool,
    *,
    kind: type = object,
) -> Check:
    start = len(prefix)  # where `items` takes over, even when every prefix schema is true
    if all(c is _true for c in prefix):
        prefix = ()
    # items: false allows no more than the prefix (with no prefixItems: an empty array).
    limit = start if items is _false else None
    each = None if items is _false or items is _true else items

    def array(x: list[Any]) -> bool:
        if not isinstance(x, kind):
            return False
        n = len(x)
        if min_items is not None and n < min_items:
            return False
        if max_items is not None and n > max_items:
            return False
        if limit is not None and n > limit:
            return False
        if prefix:
            for check, value in zip(prefix, x, strict=False):
                if not check(value):
                    return False
        if each is not None:
            for value in itertools.islice(x, start, None) if start else x:
                if not each(value):
                    return False
        return not unique or _unique_items(x)

    return array


def _string(min_length: Any, max_length: Any, pattern: str | None, *, kind: type = object) -> Check:
    def string(x: str) -> bool:
        if not isinstance(x, kind):
            return False
        if min_length is not None and len(x) < min_length:
            return False
        if max_length is not None and len(x) > max_length:
            return False
        # Last, so that the cheap checks can fail first; _search applies budget and cancel.
        return pattern is None or _search(pattern, x)

    return string


def _multiple_of(divisor: int | float) -> Check:
    """jsonschema's multipleOf, operation for operation, so rounding and errors agree."""
    if isinstance(divisor, float):

        def float_multiple(x: Any) -> bool:
            quotient = x / divisor
            try:
                failed = int(quotient) != quotient
            except OverflowError:
                failed = (Fraction(x) / Fraction(divisor)).denominator != 1
            return not failed

        return float_multiple
    return lambda x: not x % divisor


def _number(
    minimum: Any,
    maximum: Any,
    exclusive_min: Any,
    exclusive_max: Any,
    multiple: Any,
    *,
    test: Check | None = None,
) -> Check:
    multiple_of = _multiple_of(multiple) if multiple is not None else None

    # Written as jsonschema's failure tests (x < minimum fails) so NaN passes as it does there.
    def number(x: Any) -> bool:
        # A plain int is a number and an integer alike; the type's test settles the rest.
        if test is not None and type(x) is not int and not test(x):
            return False
        if minimum is not None and x < minimum:
            return False
        if maximum is not None and x > maximum:
            return False
        if exclusive_min is not None and x <= exclusive_min:
            return False
        if exclusive_max is not None and x >= exclusive_max:
            return False
        return multiple_of is None or multiple_of(x)

    return number


# --------------------------------------------------------------------------------------------
# The compiler


def _need(condition: bool, why: str) -> None:
    if not condition:
        raise _Unsupported(why)


def _is_num_value(value: Any) -> bool:
    return type(value) is int or type(value) is float


def _numeric(schema: dict[str, Any], key: str) -> Any:
    """The keyword's number, None when absent; a present non-number (even null) is refused."""
    if key not in schema:
        return None
    value = schema[key]
    _need(_is_num_value(value), f"{key} is not a number")
    return value


class _Compiler:
    """Compiles one root schema; `$ref` targets are compiled once and shared."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        # id(target) -> [compiled check or None while compiling, `consumed` when started]
        self.targets: dict[int, list[Any]] = {}
        # How many instance-consuming keywords (properties, items, …) the compile path is under.
        self.consumed = 0

    def below(self, schema: Any) -> Check:
        """Compile a subschema that applies to a part of the instance."""
        self.consumed += 1
        try:
            return self.schema(schema)
        finally:
            self.consumed -= 1

    def schemas(self, value: Any, *, consuming: bool) -> list[Check]:
        _need(isinstance(value, list), "a list of schemas is not a list")
        compile_one = self.below if consuming else self.schema
        return [compile_one(each) for each in value]

    def resolve(self, ref: Any) -> Any:
        _need(isinstance(ref, str) and ref.startswith("#"), f"non-local $ref {ref!r}")
        fragment = ref[1:]
        if not fragment:
            return self.root
        _need(fragment.startswith("/"), f"anchor $ref {ref!r}")
        # As referencing's Resource.pointer: percent-decode, split, then ~1 and ~0 per segment.
        node: Any = self.root
        for segment in unquote(fragment[1:]).split("/"):
            if isinstance(node, Sequence):
                node = node[int(segment)]
            else:
                node = node[segment.replace("~1", "/").replace("~0", "~")]
            # Passing through an embedded resource would change the base URI of refs below it.
            _need(not (isinstance(node, dict) and "$id" in node), "$ref into a $id resource")
        return node

    def ref(self, ref: Any) -> Check:
        target = self.resolve(ref)
        entry = self.targets.get(id(target))
        if entry is None:
            entry = [None, self.consumed]
            self.targets[id(target)] = entry
            entry[0] = self.schema(target)
            return entry[0]
        if entry[0] is not None:
            return entry[0]
        # A ref back into a schema still being compiled: recursion.
        _need(entry[1] != self.consumed, "$ref cycle that never moves into the instance")
        return lambda x: entry[0](x)

    def schema(self, schema: Any) -> Check:
        if schema is True:
            return _true
        if schema is False:
            return _false
        _need(isinstance(schema, dict), "a schema is neither an object nor a boolean")
        root = schema is self.root
        for key in schema:
            if key in _REFUSED and not (root and key in _ROOT_ONLY):
                raise _Unsupported(f"keyword {key!r}")

        names = schema.get("type")
        type_test: Check | None = None
        if "type" in schema:
            names = [names] if isinstance(names, str) else names
            _need(isinstance(names, list), "type is neither a string nor a list")
            _need(all(isinstance(n, str) and n in _TYPE_TESTS for n in names), "unknown type")
            type_test = _types(names) if names else _false
        # Enum and const are cheap set lookups: checked before group keywords and subschemas.
        cheap: list[Check] = []
        if "enum" in schema:
            values = schema["enum"]
            _need(isinstance(values, list), "enum is not a list")
            # "type": "string" with an enum of strings is one set lookup.
            fold = names == ["string"] and all(type(v) is str for v in values)
            cheap.append(_enum(values, instance_first=False, string_type=fold))
            if fold:
                type_test = None
        if "const" in schema:
            cheap.append(_enum([schema["const"]], instance_first=True))

        # Each group's keywords, compiled, waiting for the type test they may take in.
        makers = {
            "object": self.object_keywords(schema),
            "array": self.array_keywords(schema),
            "string": self.string_keywords(schema),
            "number": self.number_keywords(schema),
        }
        groups = {group: make for group, make in makers.items() if make is not None}

        deep: list[Check] = []
        for keyword, combine in (("allOf", _all), ("anyOf", _any), ("oneOf", _one)):
            if keyword in schema:
                deep.append(combine(self.schemas(schema[keyword], consuming=False)))
        if "not" in schema:
            deep.append(_negate(self.schema(schema["not"])))
        if "$ref" in schema:
            deep.append(self.ref(schema["$ref"]))

        checks: list[Check] = []
        if type_test is not None:
            admitted = {_GROUP_OF[n] for n in names}
            # Once the type matched, keywords of groups the type excludes cannot apply.
            groups = {g: make for g, make in groups.items() if g in admitted}
            if len(admitted) == 1 and len(groups) == 1:
                ((group, make),) = groups.items()
                if group == "number":
                    checks.append(make(test=type_test))
                else:
                    checks.append(make(kind=_KIND_OF[group]))
                groups = {}
            else:
                checks.append(type_test)
        checks.extend(cheap)
        checks.extend(_guard(group, make()) for group, make in groups.items())
        checks.extend(deep)
        return _all(checks)

    def object_keywords(self, schema: dict[str, Any]) -> Callable[..., Check] | None:
        get = schema.get
        required = get("required", [])
        _need(isinstance(required, list), "required is not a list")
        _need(all(isinstance(r, str) for r in required), "required holds a non-string")
        min_p, max_p = _numeric(schema, "minProperties"), _numeric(schema, "maxProperties")

        dependent = get("dependentRequired", {})
        _need(isinstance(dependent, dict), "dependentRequired is not an object")
        for needed in dependent.values():
            _need(isinstance(needed, list), "dependentRequired holds a non-list")
            _need(all(isinstance(n, str) for n in needed), "dependentRequired holds a non-string")

        declared = get("properties", {})
        _need(isinstance(declared, dict), "properties is not an object")
        properties = {name: self.below(sub) for name, sub in declared.items()}

        pattern_schemas = get("patternProperties", {})
        _need(isinstance(pattern_schemas, dict), "patternProperties is not an object")
        patterns = tuple((p, self.below(sub)) for p, sub in pattern_schemas.items())

        additional = None
        if "additionalProperties" in schema:
            additional = self.below(schema["additionalProperties"])
            additional = None if additional is _true else additional
        names = None
        if "propertyNames" in schema:
            names = self.below(schema["propertyNames"])
            names = None if names is _true else names

        dependent_pairs = tuple((k, tuple(v)) for k, v in dependent.items() if v)
        constrained = required or dependent_pairs or properties or patterns or additional or names
        if not constrained and min_p is None and max_p is None:
            return None
        return partial(
            _object,
            frozenset(required),
            min_p,
            max_p,
            dependent_pairs,
            properties,
            patterns,
            additional,
            names,
        )

    def array_keywords(self, schema: dict[str, Any]) -> Callable[..., Check] | None:
        get = schema.get
        min_i, max_i = _numeric(schema, "minItems"), _numeric(schema, "maxItems")
        prefix = tuple(self.schemas(get("prefixItems", []), consuming=True))
        items = None
        if "items" in schema:
            _need(isinstance(schema["items"], dict | bool), "items is not a schema")
            items = self.below(schema["items"])
        unique = get("uniqueItems", False)
        _need(isinstance(unique, bool), "uniqueItems is not a boolean")
        if (min_i, max_i, items) == (None, None, None) and not prefix and not unique:
            return None
        return partial(_array, min_i, max_i, prefix, items, unique)

    def string_keywords(self, schema: dict[str, Any]) -> Callable[..., Check] | None:
        min_l, max_l = _numeric(schema, "minLength"), _numeric(schema, "maxLength")
        pattern = schema.get("pattern")
        _need("pattern" not in schema or isinstance(pattern, str), "pattern is not a string")
        if (min_l, max_l, pattern) == (None, None, None):
            return None
        return partial(_string, min_l, max_l, pattern)

    def number_keywords(self, schema: dict[str, Any]) -> Callable[..., Check] | None:
        keys = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
        values = [_numeric(schema, k) for k in keys]
        _need(values[-1] is None or values[-1] > 0, "multipleOf is not positive")
        if values == [None] * len(values):
            return None
        return partial(_number, *values)


def compile_fast(schema: Any) -> Check | None:
    """Return a fast `check(instance) -> bool` agreeing with jsonschema, or None if unsupported.

    Only draft 2020-12 (no `$schema`, or its URI with or without '#') compiles. The schema is
    expected to have passed its metaschema; whatever surprises the compiler gives None, never an
    exception. The checker raises BudgetExceeded as the bounded validator does.
    """
    try:
        if schema is True or schema is False:
            return _true if schema else _false
        if not isinstance(schema, dict):
            return None
        if "$schema" in schema and schema["$schema"] not in _DIALECTS:
            return None
        return _Compiler(schema).schema(schema)
    except Exception:  # _Unsupported, a malformed schema, RecursionError: jsonschema decides
        return None
