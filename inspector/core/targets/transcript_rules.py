"""Judge a transcript against a target profile: tools, names, call ids, order, reasoning, calls."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cache
from itertools import pairwise
from typing import Any

from msgspec import Struct

from inspector.core.gate import Finding, GateResult, ToolSet, item_label
from inspector.core.model import Item, Severity, Tool, Transcript
from inspector.core.targets.profile import Profile, Rule, get_profile
from inspector.core.targets.schema_rules import ToolVerdict, check_tools, tools_of, with_fix

CALL_AS_TEXT = "target_call_as_text"
CALL_ID = "target_call_id"
ORDER = "target_order"
REASONING = "target_reasoning"
TOOL_NAME = "target_tool_name"


@dataclass(frozen=True, slots=True)
class TargetFinding(Finding):
    """A finding about replaying to one target: the gate's finding plus target, rule and source."""

    target: str
    rule: str
    source: str
    tool: str | None = None
    pointer: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the gate's JSON form with the target keys added."""
        data = Finding.to_json(self)
        data.update(target=self.target, rule=self.rule, source=self.source)
        if self.tool is not None:
            data.update(tool=self.tool, pointer=self.pointer)
        return data


def _finding(
    profile: Profile,
    rule: Rule,
    code: str,
    items: Iterable[int],
    message: str,
    *,
    tool: str | None = None,
    pointer: str | None = None,
) -> TargetFinding:
    severity = Severity(rule.get("severity", "error"))
    text = with_fix(f"{profile.name}: {message}: {rule.reason}", rule)
    return TargetFinding(
        code,
        severity,
        tuple(sorted(set(items))),
        text,
        target=profile.name,
        rule=rule.id,
        source=rule.source,
        tool=tool,
        pointer=pointer,
    )


@cache
def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(text)


def _count(items: list[Any], word: str) -> str:
    return f"{len(items)} {word}{'' if len(items) == 1 else 's'}"


def _listing(items: list[Item], limit: int = 3) -> str:
    shown = ", ".join(item_label(i) for i in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


# -- item roles and conversation structure -------------------------------------------------------

MODEL, USER, SYSTEM = "model", "user", "system"


_ANTHROPIC_TYPES = frozenset({"anthropic:thinking", "anthropic:redacted_thinking"})
_SIGNATURE_KEYS = ("thought_signature", "thoughtSignature")


def reasoning_family(item: Item) -> str | None:
    """Which provider-bound reasoning an item carries, if any."""
    raw = item.raw
    if type(raw) is not dict:
        return None
    kind = item.type
    if kind == "reasoning":
        nested = raw.get("anthropic")
        if isinstance(raw.get("signature"), str) or (
            isinstance(nested, dict) and nested.get("type") in ("thinking", "redacted_thinking")
        ):
            return "anthropic_signature"
        encrypted = raw.get("encrypted_content")
        if isinstance(encrypted, str) and encrypted:
            return "openai_encrypted"
    elif type(kind) is str and kind in _ANTHROPIC_TYPES:
        return "anthropic_signature"
    elif kind == "google:thought_signature":
        return "gemini_signature"
    return "gemini_signature" if _gemini_signature(raw) else None


def _gemini_signature(raw: dict[str, Any]) -> bool:
    # Checked on every item of large logs: most carry none of these keys.
    if ("thought_signature" in raw or "thoughtSignature" in raw) and any(
        isinstance(raw.get(k), str) and raw[k] for k in _SIGNATURE_KEYS
    ):
        return True
    # Where the Gemini format keeps a part's signature on the item it converted.
    kept = raw.get("google:thought_signature")
    if isinstance(kept, str) and kept:
        return True
    nested = raw.get("google")
    return isinstance(nested, dict) and any(isinstance(nested.get(k), str) for k in _SIGNATURE_KEYS)


def side(item: Item) -> str | None:
    """Who speaks an item once it is a provider's message: model, user, system, or None."""
    kind = item.type
    if kind == "message":
        role = item.role
        if role == "assistant":
            return MODEL
        if role == "user":
            return USER
        return SYSTEM if role in ("system", "developer") else None
    if kind == "function_call" or kind == "reasoning":
        return MODEL
    if kind == "function_call_output":
        return USER
    return MODEL if item.namespaced and reasoning_family(item) is not None else None


def segments(transcript: Transcript) -> list[list[Item]]:
    """The conversations a transcript holds: each request starts one, its responses extend it.

    A response right after another response starts one too: the input sent between them (tool
    outputs, for one) is not in the file, so the two cannot be read as one conversation.
    """
    kinds = {g.index: g.kind for g in transcript.groups}
    out: list[list[Item]] = []
    current: int | None = None
    for item in transcript.items:
        if item.group != current:
            kind = kinds.get(item.group, "")
            after_response = current is not None and "response" in kinds.get(current, "")
            if not out or "request" in kind or ("response" in kind and after_response):
                out.append([])
            current = item.group
        out[-1].append(item)
    return out


class _Turn(Struct):
    side: str
    items: list[Item]

    def calls(self) -> list[Item]:
        return [i for i in self.items if i.type == "function_call"]

    def outputs(self) -> list[Item]:
        return [i for i in self.items if i.type == "function_call_output"]


def turns(segment: list[Item]) -> list[_Turn]:
    """Alternating model and user turns (system messages and foreign items left out)."""
    out: list[_Turn] = []
    for item in segment:
        who = side(item)
        if who not in (MODEL, USER):
            continue
        if out and out[-1].side == who:
            out[-1].items.append(item)
        else:
            out.append(_Turn(who, [item]))
    return out


def _call_id(item: Item) -> str | None:
    call_id = item.call_id
    return call_id if isinstance(call_id, str) else None


# -- turn order ------------------------------------------------------------------------------------


def _next_turn_answers_calls(
    profile: Profile, rule: Rule, segment: list[Item], conversation: list[_Turn]
) -> Iterator[TargetFinding]:
    for here, after in pairwise(conversation):
        if here.side != MODEL:
            continue
        answered = {_call_id(o) for o in after.outputs()} if after.side == USER else set()
        for call in here.calls():
            if _call_id(call) is not None and _call_id(call) not in answered:
                yield _finding(
                    profile,
                    rule,
                    ORDER,
                    [call.index, *(i.index for i in after.items[:1])],
                    f"{item_label(call)} (call_id {call.call_id!r}) has no output in the turn "
                    "right after it",
                )


def _next_turn_response_count(
    profile: Profile, rule: Rule, segment: list[Item], conversation: list[_Turn]
) -> Iterator[TargetFinding]:
    for here, after in pairwise(conversation):
        calls = here.calls() if here.side == MODEL else []
        if not calls:
            continue
        outputs = after.outputs() if after.side == USER else []
        if len(outputs) != len(calls):
            yield _finding(
                profile,
                rule,
                ORDER,
                [i.index for i in calls + outputs],
                f"a turn with {_count(calls, 'function call')} ({_listing(calls)}) is followed "
                f"by {_count(outputs, 'function response')}",
            )


def _results_follow_calls(
    profile: Profile, rule: Rule, segment: list[Item], conversation: list[_Turn]
) -> Iterator[TargetFinding]:
    known = {_call_id(i) for i in segment if i.type == "function_call"}
    for position, turn in enumerate(conversation):
        if turn.side != USER:
            continue
        before = conversation[position - 1] if position else None
        calls = before.calls() if before is not None else []
        # Tool messages must come first in the turn: a user message before them breaks the run.
        leading: list[Item] = []
        for item in turn.items:
            if item.type != "function_call_output":
                break
            leading.append(item)
        answered = {_call_id(o) for o in leading}
        missing = [c for c in calls if _call_id(c) is not None and _call_id(c) not in answered]
        if missing:
            yield _finding(
                profile,
                rule,
                ORDER,
                [c.index for c in missing] + [turn.items[0].index],
                f"{_listing(missing)} {'is' if len(missing) == 1 else 'are'} not answered by the "
                "tool results right after the call",
            )
        expected = {_call_id(c) for c in calls}
        for output in turn.outputs():
            call_id = _call_id(output)
            if (call_id not in expected or output not in leading) and call_id in known:
                yield _finding(
                    profile,
                    rule,
                    ORDER,
                    [output.index],
                    f"{item_label(output)} answers call_id {call_id!r}, which is not among the "
                    "calls right before it",
                )


def _no_user_after_tool(
    profile: Profile, rule: Rule, segment: list[Item], conversation: list[_Turn]
) -> Iterator[TargetFinding]:
    spoken = [i for i in segment if side(i) is not None]
    for here, after in pairwise(spoken):
        if (
            here.type == "function_call_output"
            and after.type == "message"
            and after.role
            in (
                "user",
                "system",
                "developer",
            )
        ):
            yield _finding(
                profile,
                rule,
                ORDER,
                [here.index, after.index],
                f"{item_label(after)} comes right after the tool result {item_label(here)}",
            )


def _output_required(
    profile: Profile, rule: Rule, segment: list[Item], conversation: list[_Turn]
) -> Iterator[TargetFinding]:
    answered_at: dict[str, int] = {}
    for position, item in enumerate(segment):
        if item.type == "function_call_output" and (call_id := _call_id(item)) is not None:
            answered_at.setdefault(call_id, position)
    last_user = max((p for p, i in enumerate(segment) if side(i) in (USER, SYSTEM)), default=-1)
    for position, item in enumerate(segment):
        call_id = _call_id(item)
        if item.type != "function_call" or call_id is None or position > last_user:
            # Calls of the final model step are what a replay answers next.
            continue
        if answered_at.get(call_id, -1) < position:
            yield _finding(
                profile,
                rule,
                ORDER,
                [item.index],
                f"{item_label(item)} (call_id {call_id!r}) has no function_call_output after it",
            )


def _output_item(item: Item | None) -> bool:
    """Whether an item can be the one a reasoning item was produced with.

    A call needs no id (replays of stateless calls carry none); any other output item is tied
    to its reasoning by its id, so a plain assistant message without one does not count.
    """
    if item is None or side(item) in (USER, SYSTEM) or item.type == "reasoning":
        return False
    return item.type == "function_call" or (isinstance(item.id, str) and bool(item.id))


def _reasoning_followed(
    profile: Profile, rule: Rule, segment: list[Item], conversation: list[_Turn]
) -> Iterator[TargetFinding]:
    for position, item in enumerate(segment):
        if item.type != "reasoning" or not isinstance(item.id, str) or not item.id:
            continue
        after = segment[position + 1] if position + 1 < len(segment) else None
        if _output_item(after):
            continue
        what = "nothing" if after is None else item_label(after)
        if after is not None and side(after) == MODEL and after.type != "reasoning":
            what += " (an input message without an id)"
        yield _finding(
            profile,
            rule,
            ORDER,
            [item.index] + ([after.index] if after is not None else []),
            f"reasoning item {item.id!r} ({item_label(item)}) is followed by {what}",
        )


_ORDER_CHECKS = {
    "next_turn_answers_calls": _next_turn_answers_calls,
    "next_turn_response_count": _next_turn_response_count,
    "results_follow_calls": _results_follow_calls,
    "no_user_after_tool": _no_user_after_tool,
    "output_required": _output_required,
    "reasoning_followed": _reasoning_followed,
}


def _tool_config_with_history(
    profile: Profile, rule: Rule, items: tuple[Item, ...], tools: Any
) -> Iterator[TargetFinding]:
    """Tool calls or results in the history, and no tool definitions to send with them."""
    if tools:
        return
    used = [i for i in items if i.type in ("function_call", "function_call_output")]
    if used:
        yield _finding(
            profile,
            rule,
            ORDER,
            [i.index for i in used],
            f"{_count(used, 'tool call or result')} in the history ({_listing(used[:3])}"
            f"{', …' if len(used) > 3 else ''}) and no tool definitions to send",
        )


# -- reasoning -----------------------------------------------------------------------------------

_FAMILY_WORDS = {
    "openai_encrypted": "encrypted OpenAI reasoning (encrypted_content)",
    "anthropic_signature": "an Anthropic thinking signature",
    "gemini_signature": "a Gemini thought signature",
}


def _reasoning_findings(
    profile: Profile,
    rule: Rule,
    items: tuple[Item, ...],
    parts: list[list[Item]],
    conversations: list[list[_Turn]],
) -> Iterator[TargetFinding]:
    if rule.check == "signed_order":
        yield from _signed_order(profile, rule, parts)
    elif rule.check == "foreign":
        families = rule.get("families", ())
        by_family: dict[str, list[Item]] = {}
        for item in items:
            family = reasoning_family(item)
            if family is not None and family in families:
                by_family.setdefault(family, []).append(item)
        for family in families:
            carrying = by_family.get(family, [])
            if carrying:
                yield _finding(
                    profile,
                    rule,
                    REASONING,
                    [i.index for i in carrying],
                    f"{_count(carrying, 'item')} ({_listing(carrying)}) carry "
                    f"{_FAMILY_WORDS[family]}",
                )
    elif rule.check == "any_reasoning":
        # Reasoning items, including prefixed ones; a signature on a call is not reasoning input.
        carrying = [
            i for i in items if i.type == "reasoning" or (i.namespaced and reasoning_family(i))
        ]
        if carrying:
            yield _finding(
                profile,
                rule,
                REASONING,
                [i.index for i in carrying],
                f"{_count(carrying, 'reasoning item')} ({_listing(carrying)}) would be sent",
            )
    elif rule.check == "signature_required":
        for conversation in conversations:
            for turn in conversation:
                calls = turn.calls() if turn.side == MODEL else []
                if calls and not any(reasoning_family(i) == "gemini_signature" for i in turn.items):
                    yield _finding(
                        profile,
                        rule,
                        REASONING,
                        [c.index for c in calls],
                        f"{_listing(calls)} {'has' if len(calls) == 1 else 'have'} no thought "
                        "signature",
                    )


def _signed_block(item: Item) -> str | None:
    """The signature (or redacted data) that binds an Anthropic thinking block to its place."""
    raw = item.raw
    if type(raw) is not dict or reasoning_family(item) != "anthropic_signature":
        return None
    nested = raw.get("anthropic")
    for holder in (raw, nested if isinstance(nested, dict) else {}):
        for key in ("signature", "data"):
            value = holder.get(key)
            if isinstance(value, str) and value:
                return value
    return None


def _anchor(item: Item) -> tuple[str, str] | None:
    """What places a model-side block in its turn: a signature, a call id, a server block's id."""
    signature = _signed_block(item)
    if signature is not None:
        return "thinking", signature
    if item.type == "function_call":
        call_id = _call_id(item)
        return ("call", call_id) if call_id is not None else None
    raw = item.raw
    if item.namespaced and type(raw) is dict:
        for key in ("id", "tool_use_id"):
            value = raw.get(key)
            if isinstance(value, str) and value:
                return key, value
    return None


def _signed_order(profile: Profile, rule: Rule, parts: list[list[Item]]) -> Iterator[TargetFinding]:
    """Signed thinking blocks replayed in another order than where they first appear.

    A thinking block is known by its signature wherever it is replayed (the response that made
    it, each later request that sends it back); its order among the other signed blocks, calls
    and server tool blocks of the conversation must stay the one it was produced in.
    """
    first: dict[tuple[str, str], int] = {}
    orders: list[list[tuple[tuple[str, str], Item]]] = []
    for position, part in enumerate(parts):
        # Server tool blocks speak for no one (side None) but sit in the model's turn.
        order = [
            (key, i) for i in part if side(i) in (MODEL, None) and (key := _anchor(i)) is not None
        ]
        orders.append(order)
        keys = {key for key, _ in order}
        references = sorted(
            {first[k] for k in keys if k[0] == "thinking" and k in first and first[k] < position}
        )
        for reference in references:
            before = orders[reference]
            shared = keys & {key for key, _ in before}
            was = [key for key, _ in before if key in shared]
            now = [(key, i) for key, i in order if key in shared]
            if was != [key for key, _ in now]:
                moved = [i for key, i in now if key[0] == "thinking"]
                origin = [i for key, i in before if key in shared]
                yield _finding(
                    profile,
                    rule,
                    REASONING,
                    [i.index for i in moved],
                    f"{_count(moved, 'signed thinking block')} ({_listing(moved)}) "
                    f"{'is' if len(moved) == 1 else 'are'} sent back in another order, among the "
                    "calls and server tool blocks around them, than where they first appear "
                    f"({_listing(origin)})",
                )
        for key in keys:
            first.setdefault(key, position)


# -- calls a target does not run as calls ---------------------------------------------------------

_CUSTOM_CALLS = frozenset({"custom_tool_call", "custom_tool_call_output"})


def _call_findings(
    profile: Profile, items: tuple[Item, ...], tools: Iterable[Tool]
) -> Iterator[TargetFinding]:
    for rule in profile.calls:
        # The only call check: custom (freeform) tools and their calls.
        custom = [i for i in items if type(i.type) is str and i.type in _CUSTOM_CALLS]
        defined = sorted({t.name for t in tools if t.kind == "custom"})
        if not custom and not defined:
            continue
        said = []
        if custom:
            said.append(f"{_count(custom, 'custom tool item')} ({_listing(custom)})")
        if defined:
            said.append(f"custom tool {', '.join(map(repr, defined))}")
        yield _finding(
            profile,
            rule,
            CALL_AS_TEXT,
            [i.index for i in custom],
            f"silently (HTTP 200, no error): {' and '.join(said)} would not run as calls",
        )


# -- names and call ids --------------------------------------------------------------------------


def _mismatches(
    rule: Rule, items: tuple[Item, ...], value_of: Callable[[Item], str | None]
) -> dict[str, list[Item]]:
    """Items whose value fails the rule's pattern, grouped by that value."""
    pattern = _pattern(rule.get("pattern"))
    bad: dict[str, list[Item]] = {}
    for item in items:
        value = value_of(item)
        if value is not None and not pattern.fullmatch(value):
            bad.setdefault(value, []).append(item)
    return bad


def _called_name(item: Item) -> str | None:
    name = item.name
    return name if item.type == "function_call" and isinstance(name, str) else None


def _any_call_id(item: Item) -> str | None:
    return _call_id(item) if item.type in ("function_call", "function_call_output") else None


def _history_name_findings(profile: Profile, items: tuple[Item, ...]) -> Iterator[TargetFinding]:
    for rule in profile.tool_names:
        if "history" not in rule.get("scope", ()):
            continue
        for name, calls in _mismatches(rule, items, _called_name).items():
            yield _finding(
                profile,
                rule,
                TOOL_NAME,
                [c.index for c in calls],
                f"{_count(calls, 'function_call')} in the history name {name!r}, which does not "
                f"match {rule.get('pattern')}",
            )


def _call_id_findings(profile: Profile, items: tuple[Item, ...]) -> Iterator[TargetFinding]:
    for rule in profile.call_ids:
        for call_id, carrying in _mismatches(rule, items, _any_call_id).items():
            yield _finding(
                profile,
                rule,
                CALL_ID,
                [i.index for i in carrying],
                f"call_id {call_id!r} ({_listing(carrying)}) does not match {rule.get('pattern')}",
            )


def _tool_findings(
    profile: Profile,
    tools: list[Tool],
    items: tuple[Item, ...],
    verdicts: Mapping[str, ToolVerdict] | None = None,
) -> Iterator[TargetFinding]:
    calls: dict[str, list[int]] = {}
    for item in items:
        if item.type == "function_call" and isinstance(item.name, str):
            calls.setdefault(item.name, []).append(item.index)
    judged = check_tools(tools, profile) if verdicts is None else verdicts
    for name, verdict in judged.items():
        for problem in verdict.problems:
            yield TargetFinding(
                problem.code,
                problem.severity,
                tuple(calls.get(name, ())),
                f"{profile.name}: tool {name!r}{_where(problem.pointer)}: {problem.message}",
                target=profile.name,
                rule=problem.rule.id,
                source=problem.rule.source,
                tool=name,
                pointer=problem.pointer,
            )


def _where(pointer: str | None) -> str:
    if pointer is None:
        return ""
    return f" {pointer}" if pointer else " (schema root)"


def check_transcript(
    transcript: Transcript,
    tools: ToolSet | Mapping[str, Tool] | Iterable[Tool] | None,
    profile: Profile | str,
    verdicts: Mapping[str, ToolVerdict] | None = None,
) -> list[TargetFinding]:
    """Everything a target would reject or silently change if this transcript were replayed to it.

    `tools` are the definitions the replay would send (usually the gate's ToolSet); nothing is
    rewritten, and a transcript the target accepts gets no finding. `verdicts` are the tools'
    verdicts (`check_tools`) when the caller has them already (a fleet scan keeps them per schema).
    """
    profile = get_profile(profile)
    listed = tools_of(tools)
    items = transcript.items
    parts = segments(transcript) if profile.order or profile.reasoning else []
    conversations = [turns(part) for part in parts]
    out: list[TargetFinding] = list(_tool_findings(profile, listed, items, verdicts))
    out.extend(_history_name_findings(profile, items))
    out.extend(_call_id_findings(profile, items))
    for rule in profile.order:
        if rule.check == "tool_config_with_history":
            out.extend(_tool_config_with_history(profile, rule, items, listed or transcript.tools))
            continue
        check = _ORDER_CHECKS[rule.check or ""]
        for part, conversation in zip(parts, conversations, strict=True):
            out.extend(check(profile, rule, part, conversation))
    for rule in profile.reasoning:
        out.extend(_reasoning_findings(profile, rule, items, parts, conversations))
    if profile.calls:
        out.extend(_call_findings(profile, items, [*listed, *transcript.tools.values()]))
    return out


def with_target_findings(result: GateResult, profile: Profile | str) -> GateResult:
    """The gate's result with a target's findings added (so they count for the exit status)."""
    found = check_transcript(result.transcript, result.toolset, profile)
    return replace(result, findings=result.findings + tuple(found))
