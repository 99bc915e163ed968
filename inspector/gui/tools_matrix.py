"""The Tools tab's rows: every tool against every target profile, with its calls by verdict.

Qt-free: the verdicts come from `core.targets.check_tool` (the `tools` command's matrix), the
call counts from the gate's verdicts; nothing here judges anything itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from inspector.core.gate import GateResult, Verdict, lookalike
from inspector.core.model import Tool
from inspector.core.targets import Profile, ToolProblem, ToolVerdict, check_tool
from inspector.gui.tallies import CallCounts, call_counts


@dataclass(frozen=True, slots=True)
class ToolRow:
    """One tool: its definition (None when only calls name it), each target's verdict, and its
    calls per side counted by verdict."""

    name: str
    tool: Tool | None
    verdicts: Mapping[str, ToolVerdict] = field(default_factory=lambda: MappingProxyType({}))
    calls: Mapping[str, Mapping[Verdict, int]] = field(default_factory=lambda: MappingProxyType({}))
    #: "it differs from 'get_user_profile' by U+043E" when the name reads as another row's.
    lookalike: str = ""

    def call_text(self, side: str) -> str:
        """The side's calls of this tool, e.g. '2 ok, 1 arguments_schema' (verdict order)."""
        counts = self.calls.get(side, {})
        return ", ".join(f"{counts[v]} {v}" for v in Verdict if counts.get(v))

    def problems(self, target: str) -> tuple[ToolProblem, ...]:
        """What a target rejects or silently changes in this tool (none without a definition)."""
        verdict = self.verdicts.get(target)
        return verdict.problems if verdict is not None else ()


def build_matrix(
    tools: Mapping[str, Tool],
    profiles: Sequence[Profile],
    results: Mapping[str, GateResult],
    counted: Mapping[str, CallCounts] | None = None,
) -> list[ToolRow]:
    """Rows for every known tool and every name that calls use, in name order; `counted` has
    each side's calls counted already (`tallies.call_counts`), else they are counted here."""
    by_side = {
        side: counted[side] if counted is not None and side in counted else call_counts(result)
        for side, result in results.items()
    }
    rows = []
    names = sorted(set(tools).union(*by_side.values()))
    for name in names:
        tool = tools.get(name)
        verdicts = {p.name: check_tool(tool, p) for p in profiles} if tool is not None else {}
        calls = {side: c[name] for side, c in by_side.items() if name in c}
        rows.append(
            ToolRow(
                name,
                tool,
                MappingProxyType(verdicts),
                MappingProxyType(calls),
                lookalike(name, names),
            )
        )
    return rows
