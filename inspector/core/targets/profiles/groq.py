"""Groq (OpenAI-compatible chat completions)."""

from inspector.core.targets.profiles._shared import thought_signature_in_call_id

_DOCS = "https://console.groq.com/docs/structured-outputs"

PROFILE = {
    "name": "groq",
    "title": "Groq API",
    "strict": {
        "default": "loose",
        "reason": "best-effort mode (strict: false) is the default; strict is opt-in",
        "source": _DOCS,
    },
    "schema": [
        {
            "id": "groq.strict.closed_objects",
            "check": "closed_objects",
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict mode needs `additionalProperties: false` on every object",
            "source": _DOCS,
        },
        {
            "id": "groq.strict.all_required",
            "check": "all_required",
            "effect": "rejected",
            "mode": "strict",
            "reason": "strict mode needs every field required",
            "source": _DOCS,
        },
    ],
    "call_ids": [thought_signature_in_call_id("groq")],
}
