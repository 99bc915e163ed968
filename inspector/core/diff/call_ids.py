"""Compare mode's call_id check: renamed consistently (info) or a mismatch (error)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspector.core.diff.changes import _ABSENT, _is_object, same_json
from inspector.core.diff.keys import _Side
from inspector.core.diff.reasons import _label
from inspector.core.diff.values import ERROR, INFO, Change
from inspector.core.gate import item_label
from inspector.core.model import Item


class _CallIds:
    """Compare mode's check that call_ids were renamed consistently.

    Consistent means one-to-one over the pairs (a left call_id becomes one right call_id, on
    calls and outputs alike), and every output pair answers a pair of calls (each output
    follows its own side's call, and those two calls are paired). The output that disagrees
    carries call_id_mismatch with a reason naming both calls; a call whose renaming another
    pair contradicts carries it too, with a reason naming that pair.
    """

    def __init__(
        self,
        lefts: Sequence[int],
        rights: Sequence[int],
        left: _Side,
        right: _Side,
        litems: Sequence[Item],
        ritems: Sequence[Item],
    ) -> None:
        self.left, self.right, self.litems, self.ritems = left, right, litems, ritems
        self.right_of = {i: j for i, j in zip(lefts, rights, strict=True) if i >= 0 and j >= 0}
        self.left_of = {j: i for i, j in self.right_of.items()}
        self.left_answers = left.answers()
        self.right_answers = right.answers()
        self.left_outputs = frozenset(left.typed("function_call_output"))
        self.right_outputs = frozenset(right.typed("function_call_output"))
        # left call_id -> right call_id -> first left item, and the reverse, over calls and
        # outputs alike: a call whose output went to another call is not renamed one-to-one.
        self.forward: dict[str, dict[str, int]] = {}
        self.backward: dict[str, dict[str, int]] = {}
        for i, j in self.right_of.items():
            if self._output(i, j) is False:
                continue
            lcall, rcall = left.call_id(i), right.call_id(j)
            if isinstance(lcall, str) and isinstance(rcall, str):
                self.forward.setdefault(lcall, {}).setdefault(rcall, i)
                self.backward.setdefault(rcall, {}).setdefault(lcall, i)

    def _output(self, i: int, j: int) -> bool | None:
        """True when both items are outputs, False when one is, None when neither is."""
        left_out = i in self.left_outputs
        right_out = j in self.right_outputs
        if left_out and right_out:
            return True
        return False if left_out or right_out else None

    def change(self, i: int, j: int) -> tuple[Change, str | None] | None:
        """The call_id change of a pair (None when there is none) and, for a mismatch, why."""
        litem, ritem = self.litems[i], self.ritems[j]
        if not _is_object(litem) or not _is_object(ritem):
            return None
        lcall, rcall = litem.get("call_id", _ABSENT), ritem.get("call_id", _ABSENT)
        on_left, on_right = lcall is not _ABSENT, rcall is not _ABSENT
        if not (on_left or on_right):
            return None
        if not (on_left and on_right) and not same_json(litem.type, ritem.type):
            return None  # as for every field: one-sided after a type change follows from it
        lcall, rcall = litem.call_id, ritem.call_id
        both_outputs = self._output(i, j)
        if both_outputs:
            problem = self._output_problem(i, j, lcall, rcall)
        elif same_json(lcall, rcall):
            return None
        elif both_outputs is False:
            problem = (
                f"{_label(self.litems[i])} pairs with right {_label(self.ritems[j])}: a call "
                "and an output are not a renaming of each other"
            )
        else:
            problem = self._renaming_problem(i, j, lcall, rcall)
        if problem is not None:
            return Change("call_id_mismatch", "/call_id", lcall, rcall, ERROR), problem
        if same_json(lcall, rcall):
            return None
        return Change("call_id_renamed", "/call_id", lcall, rcall, INFO), None

    def _output_problem(self, i: int, j: int, lcall: Any, rcall: Any) -> str | None:
        left_call = self.left_answers.get(i)
        right_call = self.right_answers.get(j)
        if left_call is not None and right_call is not None:
            if self.right_of.get(left_call) == right_call:
                return None
        elif left_call is None and right_call is None and same_json(lcall, rcall):
            return None
        label = _label(self.litems[i])
        there = f"its counterpart right #{j} (call_id {rcall!r})"
        if left_call is not None and right_call is not None:
            partner = self.left_of.get(right_call)
            tail = (
                f", the counterpart of #{partner}"
                if partner is not None
                else ", which has no counterpart on the left"
            )
            return (
                f"{label} answers {item_label(self.litems[left_call])}, but {there} answers "
                f"right {item_label(self.ritems[right_call])}{tail}"
            )
        if left_call is None and right_call is None:
            return (
                f"{label} follows no function_call on either side and {there} has another "
                "call_id: the renaming cannot be checked"
            )
        if right_call is None:
            assert left_call is not None
            return (
                f"{label} answers {item_label(self.litems[left_call])}, but {there} follows no "
                "function_call with that call_id on the right"
            )
        return (
            f"{label} follows no function_call with that call_id on the left, but {there} "
            f"answers right {item_label(self.ritems[right_call])}"
        )

    def _renaming_problem(self, i: int, j: int, lcall: Any, rcall: Any) -> str | None:
        label = f"{_label(self.litems[i])} call_id {lcall!r} became {rcall!r} (right #{j})"
        if not isinstance(lcall, str) or not isinstance(rcall, str):
            return f"{label}: a call_id that is not a string cannot be answered"
        for other, at in self.forward[lcall].items():
            if other != rcall:
                return (
                    f"{label}, but at #{at} ({self.litems[at].type_label}) the same call_id "
                    f"became {other!r} (right #{self.right_of[at]})"
                )
        for other, at in self.backward[rcall].items():
            if other != lcall:
                return (
                    f"{label}, but {rcall!r} also stands for {other!r} at #{at} "
                    f"({self.litems[at].type_label}, right #{self.right_of[at]})"
                )
        return None
