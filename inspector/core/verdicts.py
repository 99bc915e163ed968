"""The gate's per-item verdict words, apart from the gate itself: the window names and colours
them before its first paint, when nothing has been gated (and the gate's engine, with its parsers
and validators, is not imported yet)."""

from __future__ import annotations

from enum import StrEnum


class Verdict(StrEnum):
    """Per-item verdicts, in the order the checks run; the first failing check wins."""

    NAMESPACED = "namespaced"
    NOT_FUNCTION_CALL = "not_function_call"
    STATUS = "status"
    ARGUMENTS_TYPE = "arguments_type"
    ARGUMENTS_PARSE = "arguments_parse"
    UNKNOWN_TOOL = "unknown_tool"
    ARGUMENTS_SCHEMA = "arguments_schema"
    OK = "ok"


#: Verdicts that do not block a replay by themselves.
PASSING: frozenset[Verdict] = frozenset({Verdict.OK, Verdict.NOT_FUNCTION_CALL})
#: Every verdict, in check order (iterating the enum builds this each time).
VERDICT_ORDER: tuple[Verdict, ...] = tuple(Verdict)
