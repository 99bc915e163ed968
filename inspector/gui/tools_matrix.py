"""The Tools tab's rows: every tool against every target profile, with its calls by verdict.

Qt-free: the verdicts come from `core.targets.check_tool` (the `tools` command's matrix), the
call counts from the gate's verdicts; nothing here judges anything itself.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from inspector.core.gate import GateResult, Verdict, lookalike
from inspector.core.model import Tool
from inspector.core.targets import Profile, ToolProblem, ToolVerdict, check_tool


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


def call_counts(results: Mapping[str, GateResult]) -> dict[str, dict[str, Counter[Verdict]]]:
    """Count each side's calls per tool name and verdict.

    A call is a `function_call`, or a provider-prefixed item that names a tool (a call that
    became `openai:web_search_call` still counts for its tool, with the verdict it now gets).
    """
    counts: dict[str, dict[str, Counter[Verdict]]] = {}
    for side, result in results.items():
        for item, verdict in zip(result.transcript.items, result.verdicts, strict=True):
            name = item.name
            if not isinstance(name, str) or not (item.type == "function_call" or item.namespaced):
                continue
            counts.setdefault(name, {}).setdefault(side, Counter())[verdict.verdict] += 1
    return counts


def build_matrix(
    tools: Mapping[str, Tool], profiles: Sequence[Profile], results: Mapping[str, GateResult]
) -> list[ToolRow]:
    """Rows for every known tool and every name that calls use, in name order."""
    counts = call_counts(results)
    rows = []
    names = sorted(set(tools) | set(counts))
    for name in names:
        tool = tools.get(name)
        verdicts = {p.name: check_tool(tool, p) for p in profiles} if tool is not None else {}
        calls = {side: MappingProxyType(dict(c)) for side, c in counts.get(name, {}).items()}
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
