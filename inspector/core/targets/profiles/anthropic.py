"""Anthropic Messages API."""

from inspector.core.targets.profiles._shared import thought_signature_in_call_id

_SDK = (
    "https://github.com/anthropics/anthropic-sdk-python/blob/00f1c336/"
    "src/anthropic/lib/_parse/_transform.py"
)
_ASSERT = (
    "https://github.com/zirkelc/ai-assert-schema/blob/main/src/constraints/anthropic/anthropic.ts"
)
_LIMITS = "https://repo.hex.pm/docs/lang_schema-0.7.1.tar.gz:LangSchema.Converter.Anthropic.html"
_PYDANTIC = (
    "https://github.com/pydantic/pydantic-ai/blob/4fda38988f29/"
    "pydantic_ai_slim/pydantic_ai/providers/anthropic.py"
)

PROFILE = {
    "name": "anthropic",
    "title": "Anthropic Messages API",
    "strict": {
        "default": "loose",
        "reason": "grammar-constrained (strict) tool use applies only to tools that set "
        "`strict: true`",
        "source": [_PYDANTIC, _LIMITS],
    },
    "schema": [
        {
            "id": "anthropic.strict.constraints",
            "check": "keyword",
            "keywords": [
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "multipleOf",
                "minLength",
                "maxLength",
                "maxItems",
                "uniqueItems",
            ],
            "effect": "altered",
            "mode": "strict",
            "reason": "strict tool use does not enforce numeric or length limits; Anthropic's SDK "
            "moves them into the description",
            "source": [_SDK, _ASSERT],
        },
        {
            "id": "anthropic.strict.min_items",
            "check": "keyword",
            "keywords": ["minItems"],
            "allowed_values": [0, 1],
            "effect": "altered",
            "mode": "strict",
            "reason": "strict tool use supports minItems of 0 or 1 only; larger values move into "
            "the description",
            "source": [_SDK, _ASSERT],
        },
        {
            "id": "anthropic.strict.default",
            "check": "keyword",
            "keywords": ["default"],
            "effect": "altered",
            "mode": "strict",
            "reason": "strict tool use does not apply `default`; Anthropic's SDK moves it into "
            "the description",
            "source": _SDK,
        },
        {
            "id": "anthropic.strict.open_objects",
            "check": "keyword",
            "keywords": ["additionalProperties"],
            "allowed_values": [False],
            "effect": "altered",
            "mode": "strict",
            "reason": "strict tool use forces additionalProperties to false, so a map field "
            "arrives empty",
            "source": [_PYDANTIC, _SDK],
        },
        {
            "id": "anthropic.strict.format",
            "check": "format",
            "allowed": [
                "date-time",
                "time",
                "date",
                "duration",
                "email",
                "hostname",
                "uri",
                "ipv4",
                "ipv6",
                "uuid",
            ],
            "effect": "altered",
            "mode": "strict",
            "reason": "strict tool use knows only ten string formats; others move into the "
            "description",
            "source": [_SDK, _LIMITS],
        },
        {
            "id": "anthropic.strict.one_of",
            "check": "keyword",
            "keywords": ["oneOf"],
            "effect": "altered",
            "mode": "strict",
            "reason": "strict tool use turns oneOf into anyOf, so more than one branch may match",
            "source": [_SDK, _LIMITS],
        },
        {
            "id": "anthropic.strict.recursive_ref",
            "check": "recursive_ref",
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict tool use does not support recursive schemas",
            "source": [_LIMITS, _ASSERT],
        },
        {
            "id": "anthropic.strict.enum_types",
            "check": "enum_types",
            "allowed": ["string", "number", "integer", "boolean", "null"],
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict tool use allows only primitive enum values",
            "source": _ASSERT,
        },
    ],
    "tool_names": [
        {
            "id": "anthropic.name.pattern",
            "pattern": "^[a-zA-Z0-9_-]{1,128}$",
            "scope": ["definitions"],
            "reason": "tool names may only hold letters, digits, _ and -, up to 128 characters",
            "source": [
                "https://github.com/home-assistant/core/issues/147760",
                "https://github.com/anthropics/claude-code/issues/96152",
            ],
        }
    ],
    "call_ids": [
        {
            "id": "anthropic.call_id.pattern",
            "pattern": "^[a-zA-Z0-9_-]+$",
            "reason": "tool_use.id and tool_result.tool_use_id must match ^[a-zA-Z0-9_-]+$ (ids "
            "like 'functions.search:0' from Kimi or Fireworks fail)",
            "source": [
                "https://github.com/maximhq/bifrost/issues/5097",
                "https://github.com/langchain-ai/langchain/pull/37756",
            ],
            "fix": "map each id to [a-zA-Z0-9_-], identically on tool_use and tool_result "
            "(litellm PR #21964 mapped one side only)",
        },
        thought_signature_in_call_id("anthropic"),
    ],
    "order": [
        {
            "id": "anthropic.order.tool_result_next_turn",
            "check": "next_turn_answers_calls",
            "reason": "every tool_use needs its tool_result in the message right after it "
            "('tool_use ids were found without tool_result blocks immediately after')",
            "source": [
                "https://github.com/Kilo-Org/kilocode/issues/5163",
                "https://github.com/edison7009/EchoBird/issues/338",
            ],
        },
        {
            "id": "anthropic.order.tool_result_first",
            "check": "results_follow_calls",
            "reason": "the user message after a tool_use must begin with its tool_result blocks; "
            "text before them is rejected ('Did not find 1 tool_result block(s) at the beginning "
            "of this message. Messages following tool_use blocks must begin with a matching "
            "number of tool_result blocks')",
            "source": [
                "https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use",
                "https://github.com/anthropics/anthropic-sdk-typescript/issues/653",
            ],
            "fix": "put every tool_result first in the next user message, then any text",
        },
    ],
    "reasoning": [
        {
            "id": "anthropic.reasoning.foreign",
            "check": "foreign",
            "families": ["openai_encrypted"],
            "reason": "Anthropic verifies thinking signatures and rejects reasoning produced by "
            "another model, such as encrypted_content sent as a signature ('Invalid signature in "
            "thinking block')",
            "source": [
                "https://github.com/anthropics/anthropic-sdk-python/issues/1598",
                "https://github.com/caozhiyuan/copilot-api/pull/379",
                "https://github.com/can1357/oh-my-pi/issues/6379",
            ],
            "fix": "leave other providers' reasoning out of the replay",
        },
        {
            "id": "anthropic.reasoning.thinking_order",
            "check": "signed_order",
            "reason": "thinking blocks must come back exactly where the model produced them: "
            "'the entire sequence of consecutive thinking blocks must match the outputs "
            "generated by the model during the original request; you cannot rearrange or "
            "modify the sequence of these blocks', and interleaved thinking moved ahead of the "
            "server tool blocks is rejected ('thinking blocks in the latest assistant message "
            "cannot be modified')",
            "source": [
                "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
                "#preserving-thinking-blocks",
                "https://github.com/BerriAI/litellm/pull/23093",
                "https://github.com/BerriAI/litellm/pull/23140",
            ],
            "fix": "replay the assistant's content blocks in their recorded order",
        },
    ],
}
