"""vLLM's structured output for tool calls (xgrammar backend)."""

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
}
