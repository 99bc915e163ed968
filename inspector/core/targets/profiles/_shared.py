"""Rules several providers share, each built for one profile (rule ids carry the profile's name)."""

from __future__ import annotations

from typing import Any

#: LiteLLM keeps a Gemini thought signature inside the call id for Chat Completions clients.
THOUGHT_IN_ID_SOURCES = [
    "https://github.com/BerriAI/litellm/pull/16895",
    "https://github.com/BerriAI/litellm/issues/18160",
    "https://github.com/BerriAI/litellm/issues/41534",
    "https://github.com/google/adk-python/pull/6599",
]

#: A Chat-only server has no custom (freeform) tools: answered with 200, the call becomes text.
CUSTOM_CALL_SOURCES = [
    "https://developers.openai.com/api/docs/guides/function-calling#custom-tools",
    "https://github.com/ardeyouxipianyi/workbuddy2api-intl/pull/12",
    "https://github.com/BerriAI/litellm/pull/31571",
    "https://github.com/openai/codex/pull/2576",
]


def thought_signature_in_call_id(prefix: str) -> dict[str, Any]:
    """The call-id rule: no Gemini thought signature smuggled inside an id (`…__thought__…`)."""
    return {
        "id": f"{prefix}.call_id.thought_signature",
        "pattern": r"(?s)^(?!.*__thought__).*$",
        "reason": "the call id carries a Gemini thought signature after '__thought__' (as "
        "LiteLLM writes it for Chat Completions clients); only a Gemini route takes it out "
        "again, so here the id arrives hundreds of characters long ('string too long') or "
        "with characters an id may not hold",
        "source": THOUGHT_IN_ID_SOURCES,
        "fix": "split the id at '__thought__', identically on the call and its output, and keep "
        "the signature as the call's thought signature",
    }


def custom_calls_as_text(prefix: str, *extra_sources: str) -> dict[str, Any]:
    """The call rule: custom (freeform) tools and their calls are not run as calls."""
    return {
        "id": f"{prefix}.calls.custom_tools",
        "check": "custom_tool_calls",
        "reason": "a Chat-only server has no custom (freeform) tools such as apply_patch: the "
        "request is answered with HTTP 200 and no error, the custom tool is dropped and the "
        "model writes the tool's input (a patch, a query) as plain text, so the tool never "
        "runs; the worst kind of failure, since nothing reports it",
        "source": [*CUSTOM_CALL_SOURCES, *extra_sources],
        "fix": "declare the tool as a function tool with one string parameter, and replay its "
        "calls as function_call items",
    }
