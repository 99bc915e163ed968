"""vLLM's structured output for tool calls (xgrammar backend)."""

from inspector.core.targets.profiles._shared import (
    custom_calls_as_text,
    thought_signature_in_call_id,
)

PROFILE = {
    "name": "vllm",
    "title": "vLLM (guided tool calls, xgrammar backend)",
    "schema": [
        {
            "id": "vllm.schema.length_with_pattern",
            "check": "keyword",
            "keywords": ["minLength", "maxLength"],
            "only_with": ["pattern", "format"],
            "types": ["string"],
            "effect": "altered",
            "reason": "the xgrammar backend silently drops minLength/maxLength on a string that "
            "also has a pattern or a format",
            "source": "https://github.com/vllm-project/vllm/blob/030141c1/"
            "vllm/v1/structured_output/backend_xgrammar.py",
        }
    ],
    "call_ids": [thought_signature_in_call_id("vllm")],
    "reasoning": [
        {
            "id": "vllm.reasoning.encrypted",
            "check": "foreign",
            "families": ["openai_encrypted"],
            "reason": "vLLM's Responses API refuses a reasoning item that carries "
            "encrypted_content ('Encrypted content is not supported'): it holds no key to "
            "another server's sealed reasoning",
            "source": [
                "https://github.com/vllm-project/vllm/pull/28248",
                "https://github.com/openai/codex/issues/3573",
            ],
            "fix": "leave the encrypted reasoning items out, or send their summary as text",
        }
    ],
    "calls": [custom_calls_as_text("vllm")],
}
