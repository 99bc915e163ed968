"""The diff reports how far it has got: stage by stage, rising to 1.0, a bounded number of
times whatever the size (each report may cross to a GUI thread)."""

from __future__ import annotations

import json

from inspector.core.diff import diff_results
from inspector.core.formats import load_text
from inspector.core.gate import gate_transcript


def _run(count: int, *, reworded: int) -> list[dict]:
    items = []
    for n in range(count):
        items.append({"type": "message", "role": "user", "content": f"question {n}"})
        call = {"type": "function_call", "call_id": f"call_{n}", "name": "lookup"}
        items.append({**call, "arguments": json.dumps({"n": n}), "status": "completed"})
    for n in range(0, count, reworded):
        items[2 * n]["content"] = f"question {n}, reworded"
    return items


def _gated(items: list[dict]):
    return gate_transcript(load_text(json.dumps(items)))


def test_the_diff_reports_each_stage_rising_to_the_end():
    left, right = _gated(_run(6000, reworded=10**9)), _gated(_run(6000, reworded=7))
    reports: list[tuple[str, float]] = []
    result = diff_results(left, right, mode="compare", progress=lambda s, f: reports.append((s, f)))
    fractions = [f for _s, f in reports]
    assert fractions == sorted(fractions)  # never goes back
    assert fractions[0] == 0.0 and fractions[-1] == 1.0
    stages = list(dict.fromkeys(s for s, _f in reports))
    assert stages == ["Reading the items", "Aligning the items", "Comparing the pairs", "Compared"]
    # 24,000 items, 12,000 pairs: a few hundred reports at most, not one per item.
    assert 10 < len(reports) <= 200
    # The pairs are compared the way they would be without anyone listening.
    assert result.pairs == diff_results(left, right, mode="compare").pairs


def test_an_empty_pair_still_ends_at_one():
    empty = _gated([])
    reports: list[float] = []
    diff_results(empty, empty, progress=lambda _s, f: reports.append(f))
    assert reports[-1] == 1.0 and reports == sorted(reports)
