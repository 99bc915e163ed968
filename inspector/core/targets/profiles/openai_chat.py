"""OpenAI Chat Completions: the OpenAI rules, with Chat's own strict default and id limit."""

PROFILE = {
    "name": "openai-chat",
    "title": "OpenAI Chat Completions API",
    "extends": "openai",
    "drop": [
        "openai.call_id.length",
        "openai.order.output_required",
        "openai.order.reasoning_followed",
        # Chat Completions takes no reasoning items, so none are sent to be verified.
        "openai.reasoning.encrypted_elsewhere",
    ],
    "strict": {
        "default": "loose",
        "reason": "Chat Completions treats a tool without `strict` as non-strict",
        "source": [
            "https://platform.openai.com/docs/api-reference/chat/create",
            "https://github.com/open-webui/open-webui/pull/30046",
        ],
    },
    "call_ids": [
        {
            "id": "openai_chat.call_id.length",
            "pattern": "(?s)^.{1,40}$",
            "reason": "Chat Completions accepts a tool call id of at most 40 characters",
            "source": [
                "https://github.com/vercel/ai/issues/5171",
                "https://github.com/agno-agi/agno/issues/5382",
            ],
            "fix": "map long ids to short ones, identically on tool calls and tool messages",
        }
    ],
}
