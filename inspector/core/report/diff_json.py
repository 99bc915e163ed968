"""The `diff --format json` document: both paths, every pair, the decision and its groups."""

from __future__ import annotations

from typing import Any

from inspector.core.decision import Decision, decide_pair
from inspector.core.diff import DiffResult, Pair
from inspector.core.report import Streamed


def diff_document(
    result: DiffResult,
    left_path: str,
    right_path: str,
    *,
    streamed: bool = False,
    decision: Decision | None = None,
) -> dict[str, Any]:
    """Return the CLI's JSON document of a diff (paths as given) and its decision.

    `streamed`: the pairs as a `Streamed` array, made one by one as it is written. `replay_safe`,
    `reasons` and `verdict_summary` render the one decision (`core.decision.decide_pair`).
    """
    if decision is None:
        decision = decide_pair(result, names=(left_path, right_path))
    pairs = (pair_row(result, pair) for pair in result.pairs)
    # The conversation each side shows, when its file names one (a file may hold several).
    picked = {
        f"{name}_conversation": side.transcript.conversation
        for name, side in (("left", result.left), ("right", result.right))
        if side.transcript.conversation is not None
    }
    return {
        "left": left_path,
        "right": right_path,
        **picked,
        "pairs": Streamed(pairs) if streamed else list(pairs),
        "replay_safe": decision.replay_safe,
        "reasons": decision.reason_lines(),
        "summary": result.summary(),
        "mode": str(result.mode),
        "document_changes": [c.to_json() for c in result.document_changes],
        "verdict_summary": decision.to_json(),
        "changes_by_code": [g.to_json() for g in result.changes_by_code()],
    }


def pair_row(result: DiffResult, pair: Pair) -> dict[str, Any]:
    """Return one pair's JSON object: indexes, changes, and each side's type and verdict."""
    document: dict[str, Any] = {
        "left": pair.left,
        "right": pair.right,
        "changes": [c.to_json() for c in pair.changes],
        "changed": pair.changed,
    }
    for side, gated, index in (
        ("left", result.left, pair.left),
        ("right", result.right, pair.right),
    ):
        item = gated.transcript.items[index] if index is not None else None
        document[f"{side}_type"] = item.type_label if item is not None else None
        document[f"{side}_verdict"] = (
            str(gated.verdicts[index].verdict) if index is not None else None
        )
    return document
