"""Amazon Bedrock Converse API."""

from inspector.core.targets.profiles._shared import thought_signature_in_call_id

_PYDANTIC = (
    "https://github.com/pydantic/pydantic-ai/blob/4fda38988f29/"
    "pydantic_ai_slim/pydantic_ai/providers/bedrock.py"
)

PROFILE = {
    "name": "bedrock",
    "title": "Amazon Bedrock Converse API",
    "strict": {
        "default": "loose",
        "reason": "Bedrock constrains tool input only for tools that set `strict`",
        "source": [
            "https://docs.aws.amazon.com/bedrock/latest/userguide/structured-output.html",
            _PYDANTIC,
        ],
    },
    "schema": [
        {
            "id": "bedrock.schema.root_object",
            "check": "root_object",
            "effect": "rejected",
            "reason": "toolSpec.inputSchema.json must have type object at the root",
            "source": "https://github.com/aaif-goose/goose/pull/5064",
        },
        {
            "id": "bedrock.schema.refs",
            "check": "refs",
            "effect": "altered",
            "reason": "Amazon models on Bedrock do not resolve $ref (pydantic-ai inlines the "
            "definitions for them)",
            "source": "https://github.com/pydantic/pydantic-ai/blob/4fda38988f29/"
            "pydantic_ai_slim/pydantic_ai/profiles/amazon.py",
            "fix": "inline the $defs",
        },
        {
            "id": "bedrock.strict.numeric",
            "check": "keyword",
            "keywords": [
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "multipleOf",
            ],
            "types": ["number", "integer"],
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict tool use rejects numeric bounds (verified against Claude on Bedrock)",
            "source": _PYDANTIC,
            "fix": "move the bound into the description",
        },
        {
            "id": "bedrock.strict.max_items",
            "check": "keyword",
            "keywords": ["maxItems"],
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict tool use rejects maxItems",
            "source": _PYDANTIC,
            "fix": "move the limit into the description",
        },
        {
            "id": "bedrock.strict.min_items",
            "check": "keyword",
            "keywords": ["minItems"],
            "allowed_values": [0, 1],
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict tool use accepts minItems of 0 or 1 only",
            "source": _PYDANTIC,
        },
    ],
    "tool_names": [
        {
            "id": "bedrock.name.pattern",
            "pattern": "^[a-zA-Z0-9_-]{1,64}$",
            "scope": ["definitions", "history"],
            "reason": "Converse checks toolSpec.name and every replayed toolUse.name against "
            "[a-zA-Z0-9_-]+ (up to 64), so one bad name in the history fails every later turn",
            "source": [
                "https://github.com/NousResearch/hermes-agent/pull/90016",
                "https://github.com/openclaw/openclaw/pull/12949",
            ],
        }
    ],
    "order": [
        {
            "id": "bedrock.order.tool_config_with_history",
            "check": "tool_config_with_history",
            "reason": "a history holding toolUse or toolResult blocks needs toolConfig, even when "
            "the current turn offers no tools ('The toolConfig field must be defined when using "
            "toolUse and toolResult content blocks')",
            "source": [
                "https://github.com/vercel/ai/pull/7537",
                "https://github.com/langgenius/dify/issues/7328",
            ],
            "fix": "send toolConfig with the tools the history used",
        },
        {
            "id": "bedrock.order.result_count",
            "check": "next_turn_response_count",
            "reason": "the turn after a toolUse turn must hold as many toolResult blocks as there "
            "were toolUse blocks ('The number of toolResult blocks at messages.2.content exceeds "
            "the number of toolUse blocks of previous turn')",
            "source": [
                "https://github.com/OpenHands/OpenHands/issues/4912",
                "https://github.com/pydantic/pydantic-ai/issues/2327",
            ],
        },
    ],
    "call_ids": [thought_signature_in_call_id("bedrock")],
}
