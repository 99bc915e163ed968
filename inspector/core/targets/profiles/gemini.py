"""Google Gemini API function declarations (`parameters`, an OpenAPI 3.0 subset).

Every schema rule here is about `parameters`: a tool declared with `parametersJsonSchema`
(JSON Schema, "mutually exclusive with parameters") is not judged by them. Source:
https://ai.google.dev/api/caching#FunctionDeclaration. Live Gemini 2.5 and Vertex requests with
such tools, and with `properties: {}`, were answered with 200 and the tool called; the
third-party rule that rejected an empty `properties` (langchainjs PR 7935) was dropped for it.
"""

from typing import Any

_ZED = "https://github.com/zed-industries/zed/issues/43231"
_FIELDS = "https://googleapis.github.io/js-genai/release_docs/interfaces/types.Schema.html"
_PYDANTIC = (
    "https://github.com/pydantic/pydantic-ai/blob/4fda38988f29/"
    "pydantic_ai_slim/pydantic_ai/profiles/google.py"
)
_VERCEL = (
    "https://github.com/vercel/ai/blob/ed857f50f112/"
    "packages/google/src/convert-json-schema-to-openapi-schema.ts"
)
_JSON_SCHEMA_FIX = "declare the tool with parametersJsonSchema, which takes JSON Schema"

PROFILE = {
    "name": "gemini",
    "title": "Google Gemini API (function declarations with `parameters`)",
    "schema": [
        {
            "id": "gemini.schema.additional_properties",
            "check": "keyword",
            "keywords": ["additionalProperties"],
            "effect": "rejected",
            "reason": "`parameters` has no additionalProperties field ('Cannot find field')",
            "source": [_ZED, _PYDANTIC],
            "fix": _JSON_SCHEMA_FIX,
        },
        {
            "id": "gemini.schema.exclusive_bounds",
            "check": "keyword",
            "keywords": ["exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
            "effect": "rejected",
            "reason": "`parameters` has no exclusive bounds or multipleOf ('Cannot find field')",
            "source": [_ZED, "https://github.com/decolua/9router/issues/2309"],
            "fix": _JSON_SCHEMA_FIX,
        },
        {
            "id": "gemini.schema.one_of",
            "check": "keyword",
            "keywords": ["oneOf"],
            "effect": "rejected",
            "reason": "of the combinators `parameters` knows only anyOf; oneOf is rejected",
            "source": _PYDANTIC,
            "fix": "rewrite oneOf as anyOf",
        },
        {
            "id": "gemini.schema.const",
            "check": "keyword",
            "keywords": ["const"],
            "effect": "rejected",
            "reason": "`parameters` has no const field",
            "source": [_FIELDS, _PYDANTIC],
            "fix": "write const as a one-value enum",
        },
        {
            "id": "gemini.schema.refs",
            "check": "refs",
            "effect": "rejected",
            "reason": "the Gemini Developer API rejects $ref and $defs in `parameters`",
            "source": _VERCEL,
            "fix": "inline the $defs",
        },
        {
            "id": "gemini.schema.type_array",
            "check": "type_array",
            "effect": "rejected",
            "reason": "`type` must be a single type ('Proto field is not repeating')",
            "source": "https://github.com/prism-php/prism/issues/974",
            "fix": "one type with nullable: true",
        },
        {
            "id": "gemini.schema.anyof_alone",
            "check": "anyof_alone",
            "effect": "rejected",
            "reason": "when anyOf is used it must be the only field of its schema",
            "source": "https://github.com/hideya/langchain-mcp-tools-ts/blob/main/TECHNICAL.md",
        },
        {
            "id": "gemini.schema.type_required",
            "check": "type_required",
            "effect": "rejected",
            "reason": "`type` must be given unless anyOf, oneOf or allOf is used",
            "source": "https://github.com/danny-avila/LibreChat/issues/6971",
        },
        {
            "id": "gemini.schema.enum_strings",
            "check": "enum_types",
            "allowed": ["string"],
            "effect": "rejected",
            "reason": "enum values must be strings",
            "source": ["https://cloud.google.com/vertex-ai/docs/reference/rest/v1/Schema", _FIELDS],
            "fix": "format: enum with the values written as strings",
        },
        {
            "id": "gemini.schema.format",
            "check": "format",
            "allowed": ["enum", "date-time"],
            "effect": "rejected",
            "reason": "the Gemini Developer API accepts only the formats enum and date-time",
            "source": "https://firebase.google.com/docs/reference/js/ai.schemashared",
        },
        {
            "id": "gemini.schema.property_names",
            "check": "property_names",
            "pattern": "^[A-Za-z_][A-Za-z0-9_]{0,63}$",
            "effect": "rejected",
            "reason": "parameter names must start with a letter or _ and hold only letters, "
            "digits and _, up to 64 characters",
            "source": "https://googleapis.github.io/java-genai/javadoc/com/google/genai/types/"
            "FunctionDeclaration.Builder.html",
        },
        {
            "id": "gemini.schema.default",
            "check": "keyword",
            "keywords": ["default"],
            "effect": "altered",
            "reason": "`default` is accepted but ignored",
            "source": "https://hexdocs.pm/geminix/Geminix.V1beta.Schema.html",
        },
        {
            "id": "gemini.schema.unknown_fields",
            "check": "unknown_keyword",
            "known": [
                "anyOf",
                "default",
                "description",
                "enum",
                "example",
                "format",
                "items",
                "maximum",
                "maxItems",
                "maxLength",
                "maxProperties",
                "minimum",
                "minItems",
                "minLength",
                "minProperties",
                "nullable",
                "pattern",
                "properties",
                "propertyOrdering",
                "required",
                "title",
                "type",
            ],
            "effect": "rejected",
            "reason": "`parameters` is a fixed set of Schema fields; any other name fails "
            "('Unknown name … Cannot find field')",
            "source": [_ZED, _FIELDS],
            "fix": _JSON_SCHEMA_FIX,
        },
    ],
    "tool_names": [
        {
            "id": "gemini.name.pattern",
            "pattern": "^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$",
            "scope": ["definitions"],
            "reason": "function names must start with a letter or _ and hold only letters, "
            "digits, _, ., : and -, up to 64 characters",
            "source": "https://github.com/google-gemini/gemini-cli/issues/2966",
        }
    ],
    "order": [
        {
            "id": "gemini.order.response_count",
            "check": "next_turn_response_count",
            "reason": "the turn after a function-call turn must hold as many function responses "
            "as there were calls",
            "source": "https://github.com/google-gemini/gemini-cli/issues/4217",
        }
    ],
    "reasoning": [
        {
            "id": "gemini.reasoning.foreign",
            "check": "foreign",
            "families": ["openai_encrypted", "anthropic_signature"],
            "severity": "warning",
            "reason": "Gemini has no use for another model's reasoning signatures; replays drop "
            "or replace them",
            "source": [
                "https://github.com/openclaw/openclaw/blob/main/docs/reference/"
                "transcript-hygiene.md",
                "https://github.com/open-gsd/gsd-pi/pull/155",
            ],
        }
    ],
}

#: The declaration members holding JSON Schema, which the OpenAPI-subset rules do not judge.
_JSON_SCHEMA_MEMBERS = ["parametersJsonSchema", "parameters_json_schema"]
_rules: list[dict[str, Any]] = PROFILE["schema"]  # type: ignore[assignment]
for _rule in _rules:
    _rule["skips_declared_in"] = _JSON_SCHEMA_MEMBERS
