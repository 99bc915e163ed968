"""Mistral chat completions (the rules of mistral-common's request validator)."""

from inspector.core.targets.profiles._shared import thought_signature_in_call_id

_VALIDATOR = (
    "https://github.com/mistralai/mistral-common/blob/039465db/"
    "src/mistral_common/protocol/instruct/validator.py"
)

PROFILE = {
    "name": "mistral",
    "title": "Mistral API",
    "schema": [
        {
            "id": "mistral.schema.draft7",
            "check": "metaschema",
            "dialect": "http://json-schema.org/draft-07/schema#",
            "effect": "rejected",
            "reason": "tool parameters must be a valid Draft 7 JSON Schema ('Invalid tool schema')",
            "source": _VALIDATOR,
        }
    ],
    "tool_names": [
        {
            "id": "mistral.name.pattern",
            "pattern": "^[a-zA-Z0-9_-]{1,64}$",
            "scope": ["definitions", "history"],
            "reason": "function names in tools, tool calls and tool messages must match "
            "^[a-zA-Z0-9_-]{1,64}$",
            "source": _VALIDATOR,
        }
    ],
    "call_ids": [
        {
            "id": "mistral.call_id.pattern",
            "pattern": "^[a-zA-Z0-9]{9}$",
            "reason": "tool call ids must be exactly 9 letters or digits ('Tool call id was … "
            "but must be a-z, A-Z, 0-9, with a length of 9')",
            "source": [
                _VALIDATOR,
                "https://github.com/langchain-ai/langchain/pull/24668",
                "https://github.com/anomalyco/opencode/issues/1680",
            ],
            "fix": "map every id to 9 alphanumerics, identically on calls and results (as the AI "
            "SDK's normalize-tool-call-id does)",
        },
        thought_signature_in_call_id("mistral"),
    ],
    "order": [
        {
            "id": "mistral.order.results_follow_calls",
            "check": "results_follow_calls",
            "reason": "the tool results of an assistant message's calls must come right after "
            "it, one per call ('Not the same number of function calls and responses', "
            "'Unexpected tool call id')",
            "source": [_VALIDATOR, "https://github.com/pydantic/pydantic-ai/issues/3733"],
        },
        {
            "id": "mistral.order.user_after_tool",
            "check": "no_user_after_tool",
            "reason": "after a tool message only an assistant or another tool message may come "
            "('Unexpected role user after role tool')",
            "source": [_VALIDATOR, "https://github.com/pydantic/pydantic-ai/issues/1210"],
        },
    ],
    "reasoning": [
        {
            "id": "mistral.reasoning.input",
            "check": "any_reasoning",
            "severity": "warning",
            "reason": "Mistral models without reasoning (such as Codestral) reject reasoning "
            "input ('Reasoning input is not enabled for this model')",
            "source": "https://github.com/mistralai/mistral-vibe/pull/704",
        }
    ],
}
