"""Fast schema check against jsonschema: `python tests/benchmarks/bench_fastschema.py`.

For a few tool schemas, builds N valid argument objects (the common case in real logs), then
reports the best of 7 interleaved runs of, per instance:

* jsonschema: `iter_errors` of the gate's validator (`compile_schema`, draft 2020-12 with the
  time-bounded regex keywords), drained as `inspector.core.schema.validate` drains it;
* fast: the checker from `compile_fast`.

Both run under the same time limits that `validate` sets, so `pattern` goes through `_search`
with a timeout in both. The target: fast ≥ 10× jsonschema on the typical tool schema. The last
line shows what one `_search` call costs, which is most of what remains of the fast path.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

from inspector.core.fastschema import compile_fast
from inspector.core.schema import _LIMITS, _Limits, _search, compile_schema

N = 2_000
RUNS = 7
TARGET = 10.0
PATTERN = "^[A-Za-z0-9 _-]{1,64}$"

FILTER = {
    "type": "object",
    "properties": {
        "field": {"type": "string", "enum": ["date", "author", "tag", "region"]},
        "value": {"type": ["string", "number", "boolean"]},
    },
    "required": ["field", "value"],
    "additionalProperties": False,
}
TYPICAL = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "enum": ["apac", "emea", "amer"]},
        "query": {"type": "string", "pattern": PATTERN},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
        "include_archived": {"type": "boolean"},
        "filters": {"type": "array", "items": FILTER, "maxItems": 5},
    },
    "required": ["region", "query"],
    "additionalProperties": False,
}
NO_PATTERN = {
    **TYPICAL,
    "properties": {**TYPICAL["properties"], "query": {"type": "string", "maxLength": 64}},
}
WITH_DEFS = {
    **TYPICAL,
    "properties": {
        **TYPICAL["properties"],
        "filters": {
            "type": "array",
            "items": {"$ref": "#/$defs/filter"},
            "uniqueItems": True,
            "maxItems": 5,
        },
        "sort": {"oneOf": [{"const": "asc"}, {"const": "desc"}, {"type": "null"}]},
    },
    "$defs": {"filter": FILTER},
}
SCHEMAS = {
    "typical (enum, pattern, array of objects)": TYPICAL,
    "typical without the pattern": NO_PATTERN,
    "with $defs/$ref, uniqueItems, oneOf": WITH_DEFS,
}


def instance(rng: random.Random, *, sort: bool) -> dict[str, Any]:
    """One valid argument object (with `sort` only for the schema that lists it)."""
    words = ["sales", "q3", "report", "north", "team_a", "2024-09", "top-10"]
    value: dict[str, Any] = {
        "region": rng.choice(["apac", "emea", "amer"]),
        "query": " ".join(rng.sample(words, rng.randint(1, 4))),
    }
    if rng.random() < 0.7:
        value["limit"] = rng.randint(1, 100)
    if rng.random() < 0.5:
        value["include_archived"] = rng.random() < 0.5
    if rng.random() < 0.8:
        fields = rng.sample(["date", "author", "tag", "region"], rng.randint(0, 4))
        value["filters"] = [
            {"field": f, "value": rng.choice(["x", 1, 2.5, True, "2024"])} for f in fields
        ]
    if sort and rng.random() < 0.3:
        value["sort"] = rng.choice(["asc", "desc", None])
    return value


def limited(run: Callable[[], Any]) -> Callable[[], Any]:
    """Run under the time limits that `validate` sets (a generous budget)."""

    def inner() -> Any:
        token = _LIMITS.set(_Limits(time.monotonic() + 60.0, 60.0, None))
        try:
            return run()
        finally:
            _LIMITS.reset(token)

    return inner


def best_times(runs: int, *jobs: Callable[[], Any]) -> list[float]:
    """The fastest of several runs of each job, the jobs interleaved run by run.

    The minimum, not the median: on a shared machine it is the run least disturbed by other
    work, and interleaving exposes both sides to the same load.
    """
    best = [float("inf")] * len(jobs)
    for _ in range(runs):
        for i, job in enumerate(jobs):
            start = time.perf_counter()
            job()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def measure(schema: Any, n: int, runs: int) -> tuple[float, float]:
    """Best µs per instance: jsonschema's iter_errors, then the fast checker."""
    rng = random.Random(7)
    values = [instance(rng, sort="sort" in schema["properties"]) for _ in range(n)]
    validator = compile_schema(schema).validator
    check = compile_fast(schema)
    assert check is not None
    assert all(check(v) for v in values)
    assert not any(list(validator.iter_errors(v)) for v in values)
    slow, fast = best_times(
        runs,
        limited(lambda: [list(validator.iter_errors(v)) for v in values]),
        limited(lambda: [check(v) for v in values]),
    )
    return slow / n * 1e6, fast / n * 1e6


def main() -> int:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("-n", type=int, default=N, help="instances per schema")
    args = parser.parse_args()
    print(f"{'schema':<42}  {'jsonschema µs':>13}  {'fast µs':>8}  {'ratio':>6}")
    ratios = {}
    for name, schema in SCHEMAS.items():
        slow, fast = measure(schema, args.n, args.runs)
        ratios[name] = slow / fast
        print(f"{name:<42}  {slow:>13.1f}  {fast:>8.2f}  {slow / fast:>5.1f}x")
    typical = ratios[next(iter(SCHEMAS))]
    print(
        f"\ntypical schema: {typical:.1f}x (target ≥ {TARGET:g}x: "
        f"{'met' if typical >= TARGET else 'NOT met'})"
    )
    calls = 20_000
    (search,) = best_times(
        args.runs, limited(lambda: [_search(PATTERN, "q3") for _ in range(calls)])
    )
    print(f"one _search call under limits: {search / calls * 1e6:.2f} µs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
