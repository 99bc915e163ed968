"""Ollama's native chat API."""

from inspector.core.targets.profiles._shared import (
    custom_calls_as_text,
    thought_signature_in_call_id,
)

_ISSUE = "https://github.com/ollama/ollama/issues/11444"

PROFILE = {
    "name": "ollama",
    "title": "Ollama (native /api/chat)",
    "schema": [
        {
            "id": "ollama.schema.root_fields",
            "check": "unknown_keyword",
            "known": ["type", "$defs", "items", "required", "properties"],
            # Dropping these changes nothing the model or the validator sees.
            "ignore": ["$schema", "$comment"],
            "where": "root",
            "effect": "altered",
            "reason": "Ollama keeps only type, $defs, items, required and properties of "
            "`parameters` and silently drops the rest",
            "source": _ISSUE,
        },
        {
            "id": "ollama.schema.property_fields",
            "check": "unknown_keyword",
            "known": ["type", "items", "description", "enum"],
            "where": "root_property",
            "effect": "altered",
            "reason": "Ollama keeps only type, items, description and enum of each parameter and "
            "silently drops the rest (nested objects lose their properties)",
            "source": [_ISSUE, "https://github.com/ollama/ollama/issues/13472"],
        },
    ],
    "call_ids": [thought_signature_in_call_id("ollama")],
    "calls": [custom_calls_as_text("ollama", "https://github.com/ollama/ollama/issues/17673")],
}
