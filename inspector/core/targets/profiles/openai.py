"""OpenAI Responses API (the Open Responses reference implementation)."""

from inspector.core.targets.profiles._shared import thought_signature_in_call_id

_STRUCTURED = "https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas"
_PYDANTIC = (
    "https://github.com/pydantic/pydantic-ai/blob/4fda38988f29/"
    "pydantic_ai_slim/pydantic_ai/profiles/openai.py"
)
_ITEMS_TSP = "https://github.com/openresponses/openresponses/blob/main/schema/items.tsp"

PROFILE = {
    "name": "openai",
    "title": "OpenAI Responses API",
    "strict": {
        "default": "normalize",
        "reason": "a tool without `strict` is made strict when its schema allows it, and runs "
        "best-effort otherwise",
        "source": [
            "https://developers.openai.com/api/docs/guides/function-calling?api-mode=responses"
            "#strict-mode",
            "https://github.com/0xPlaygrounds/rig/issues/2477",
        ],
    },
    "schema": [
        {
            "id": "openai.strict.root_object",
            "check": "root_object",
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict mode needs an object schema at the root",
            "source": [_STRUCTURED, _PYDANTIC],
        },
        {
            "id": "openai.strict.root_anyof",
            "check": "keyword",
            "keywords": ["anyOf"],
            "where": "root",
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict mode does not allow anyOf at the root",
            "source": [_STRUCTURED, _PYDANTIC],
        },
        {
            "id": "openai.strict.closed_objects",
            "check": "closed_objects",
            "only_missing": True,
            "effect": "rejected",
            "mode": "strict",
            "when_normalized": "accepted",
            "reason": "strict mode needs `additionalProperties: false` on every object",
            "source": ["https://github.com/ravitemer/mcphub.nvim/pull/124", _STRUCTURED],
            "fix": "set additionalProperties: false on every object",
        },
        {
            "id": "openai.strict.open_objects",
            "check": "keyword",
            "keywords": ["additionalProperties"],
            "allowed_values": [False],
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict mode needs `additionalProperties: false`; open objects and maps "
            "are not supported",
            "source": [
                "https://github.com/ravitemer/mcphub.nvim/pull/124",
                _STRUCTURED,
                "https://github.com/vercel/ai/blob/ed857f50f112/"
                "packages/provider-utils/src/add-additional-properties-to-json-schema.ts",
            ],
        },
        {
            "id": "openai.strict.all_required",
            "check": "all_required",
            "effect": "rejected",
            "mode": "strict",
            "when_normalized": "altered",
            "reason": "strict mode needs every property listed in `required`, so the model "
            "always fills optional ones",
            "source": [
                _STRUCTURED,
                "https://github.com/anomalyco/opencode/issues/45245",
                "https://github.com/SamSaffron/term-llm/pull/180",
            ],
            "fix": "list it in required with a union with null, or set strict: false",
        },
        {
            "id": "openai.strict.one_of",
            "check": "keyword",
            "keywords": ["oneOf"],
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict mode does not support oneOf",
            "source": ["https://github.com/zirkelc/ai-assert-schema", _PYDANTIC],
            "fix": "rewrite oneOf as anyOf, as pydantic-ai does",
        },
        {
            "id": "openai.strict.composition",
            "check": "keyword",
            "keywords": [
                "allOf",
                "not",
                "if",
                "then",
                "else",
                "dependentRequired",
                "dependentSchemas",
            ],
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict mode does not support allOf, not, if/then/else or dependent* "
            "keywords",
            "source": [_STRUCTURED, "https://github.com/zirkelc/ai-assert-schema"],
        },
        {
            "id": "openai.strict.unsupported_keywords",
            "check": "keyword",
            "keywords": [
                "minLength",
                "maxLength",
                "patternProperties",
                "unevaluatedProperties",
                "propertyNames",
                "minProperties",
                "maxProperties",
                "unevaluatedItems",
                "contains",
                "minContains",
                "maxContains",
                "uniqueItems",
            ],
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict mode does not support this keyword",
            "source": [_PYDANTIC, _STRUCTURED],
            "fix": "move the constraint into the description, as pydantic-ai does",
        },
        {
            "id": "openai.strict.default",
            "check": "keyword",
            "keywords": ["default"],
            "effect": "rejected",
            "mode": "strict",
            "reason": "the `default` keyword is not allowed in strict mode",
            "source": _PYDANTIC,
        },
        {
            "id": "openai.strict.format",
            "check": "format",
            "allowed": [
                "date-time",
                "time",
                "date",
                "duration",
                "email",
                "hostname",
                "ipv4",
                "ipv6",
                "uuid",
            ],
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict mode knows only the formats date-time, time, date, duration, "
            "email, hostname, ipv4, ipv6 and uuid",
            "source": [_STRUCTURED, _PYDANTIC],
        },
        {
            "id": "openai.strict.pattern_lookaround",
            "check": "pattern_lookaround",
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict mode patterns cannot use lookahead or lookbehind",
            "source": _PYDANTIC,
        },
        {
            "id": "openai.strict.ref_siblings",
            "check": "ref_siblings",
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict mode does not allow keywords beside `$ref`",
            "source": _PYDANTIC,
            "fix": "wrap the reference as anyOf: [{$ref}] and keep the siblings beside anyOf",
        },
        {
            "id": "openai.strict.typed_items",
            "check": "typed_items",
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict mode needs `items` on every array",
            "source": ["https://github.com/pydantic/pydantic-ai/issues/4425", _PYDANTIC],
        },
        {
            "id": "openai.strict.object_properties",
            "check": "object_properties",
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict mode needs `properties` on every object (free-form maps are not "
            "supported)",
            "source": [_PYDANTIC, "https://github.com/SamSaffron/term-llm/pull/180"],
        },
        {
            "id": "openai.strict.nesting",
            "check": "max_depth",
            "max": 10,
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict mode allows up to 10 levels of nesting",
            "source": _STRUCTURED,
        },
        {
            "id": "openai.strict.property_count",
            "check": "max_properties",
            "max": 5000,
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict mode allows up to 5000 object properties in all",
            "source": _STRUCTURED,
        },
        {
            "id": "openai.strict.enum_count",
            "check": "max_enum_values",
            "max": 1000,
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict mode allows up to 1000 enum values across all enum properties",
            "source": _STRUCTURED,
        },
    ],
    "tool_names": [
        {
            "id": "openai.name.pattern",
            "pattern": "^[a-zA-Z0-9_-]{1,64}$",
            "scope": ["definitions", "history"],
            "reason": "function names may only hold letters, digits, _ and -, up to 64 "
            "characters, in tool definitions and in replayed calls alike",
            "source": [
                "https://github.com/run-llama/llama_index/issues/16093",
                "https://github.com/mcp-use/mcp-use/issues/90",
                _ITEMS_TSP,
            ],
        }
    ],
    "call_ids": [
        {
            "id": "openai.call_id.length",
            "pattern": "(?s)^.{1,64}$",
            "reason": "Responses accepts a call_id of 1 to 64 characters",
            "source": ["https://github.com/AnswerDotAI/fastllm/issues/45", _ITEMS_TSP],
            "fix": "map long ids to short ones, identically on calls and outputs",
        },
        thought_signature_in_call_id("openai"),
    ],
    "order": [
        {
            "id": "openai.order.output_required",
            "check": "output_required",
            "reason": "Responses pairs every replayed function_call with a function_call_output "
            "by call_id and rejects one without it ('No tool output found for function call')",
            "source": [
                "https://github.com/jeffdafoe/llm-memory-api/pull/179",
                "https://github.com/pydantic/pydantic-ai/issues/7430",
            ],
        },
        {
            "id": "openai.order.reasoning_followed",
            "check": "reasoning_followed",
            "reason": "a reasoning item must be replayed right before the item it was produced "
            "with, which carries its id ('provided without its required following item')",
            "source": [
                "https://github.com/vercel/ai/issues/7099",
                "https://github.com/continuedev/continue/issues/8933",
                "https://github.com/pydantic/pydantic-ai/blob/cd690736f718/tests/models/cassettes/"
                "test_openai_responses/test_openai_responses_thinking_with_modified_history.yaml",
            ],
        },
    ],
    "reasoning": [
        {
            "id": "openai.reasoning.encrypted_elsewhere",
            "check": "foreign",
            "families": ["openai_encrypted"],
            "severity": "warning",
            "reason": "encrypted_content opens only where it was sealed: reasoning from Azure "
            "OpenAI (or another Azure resource or region) sent to OpenAI, or the reverse, is "
            "refused ('The encrypted content … could not be verified', "
            "invalid_encrypted_content); a file does not say which deployment sealed it",
            "source": [
                "https://github.com/openai/codex/issues/3573",
                "https://github.com/manaflow-ai/subrouter/pull/259",
                "https://github.com/anomalyco/opencode/issues/29879",
            ],
            "fix": "replay to the deployment that produced the reasoning, or leave the encrypted "
            "reasoning items out",
        }
    ],
}
