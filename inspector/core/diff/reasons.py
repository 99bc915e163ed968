"""Why a pair blocks a replay: one sentence per blocking change, naming both items."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from inspector.core.diff.values import ERROR, Pair
from inspector.core.gate import item_label
from inspector.core.model import Item


def _label(item: Item, side: str = "") -> str:
    text = item_label(item)
    if item.type == "function_call_output" and item.call_id is not None:
        text += f" (call_id {item.call_id!r})"
    return f"{side}{text}"


_TYPE_REASONS = {"became_namespaced", "became_non_portable"}
#: Compare mode's errors within a pair of calls or outputs: what differs.
_DIVERGED = {
    "name_changed": "calls another tool",
    "arguments_changed": "has other arguments",
    "output_changed": "has another result",
}


def _reasons(
    pair: Pair, left: Sequence[Item], right: Sequence[Item], note: str | None = None
) -> Iterator[tuple[str, str]]:
    """(code, text) of every blocking change of a pair; `note` explains a call_id_mismatch."""
    if pair.left is None or pair.right is None:
        for change in pair.changes:
            if change.severity != ERROR:
                continue
            if change.code == "only_left" and pair.left is not None:
                yield change.code, f"{_label(left[pair.left])} exists only on the left"
            elif change.code == "only_right" and pair.right is not None:
                yield change.code, f"{_label(right[pair.right], 'right ')} exists only on the right"
        return
    label = _label(left[pair.left])
    where = f"(right #{pair.right})"
    seen: dict[str, bool] = {}
    for change in pair.changes:
        if change.severity != ERROR:
            continue
        code = change.code
        if code == "became_namespaced":
            yield code, f"{label} became provider-prefixed {right[pair.right].type_label} {where}"
        elif code == "became_non_portable":
            yield (
                code,
                (
                    f"{label} became {right[pair.right].type_label}, which is outside the Open "
                    f"Responses core and has no provider prefix {where}"
                ),
            )
        elif code == "call_id_changed":
            yield code, f"{label} call_id changed from {change.left!r} to {change.right!r} {where}"
        elif code == "call_id_mismatch":
            yield code, note or f"{label} call_id {change.left!r} does not match {where}"
        elif code in _DIVERGED:
            # Compare mode: the same call made with other arguments, to another tool, or
            # answered otherwise; one reason per pair and code, at its first pointer.
            if seen.get(code, False):
                continue
            seen[code] = True
            yield code, f"{label} {_DIVERGED[code]} at {change.pointer} {where}"
        elif code == "verdict_changed" and not (pair.codes & _TYPE_REASONS):
            # After a type change the verdict change is its consequence, already a reason.
            yield (
                code,
                f"{label} is {change.left} on the left but {change.right} on the right {where}",
            )
