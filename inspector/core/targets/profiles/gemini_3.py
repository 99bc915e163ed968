"""Gemini 3 models: the Gemini rules, plus thought signatures required on replayed calls."""

PROFILE = {
    "name": "gemini-3",
    "title": "Google Gemini API, Gemini 3 models",
    "extends": "gemini",
    "reasoning": [
        {
            "id": "gemini_3.reasoning.signature_required",
            "check": "signature_required",
            "reason": "Gemini 3 requires the thought signature it issued on every replayed "
            "function-call turn ('Function call is missing a thought_signature')",
            "source": [
                "https://github.com/windmill-labs/windmill/issues/7679",
                "https://github.com/agentjido/req_llm/pull/427",
                "https://github.com/langgenius/dify-official-plugins/issues/2088",
            ],
            "fix": "replay Gemini's own thoughtSignature, or the dummy signature "
            "'skip_thought_signature_validator' for calls from other models",
        }
    ],
}
