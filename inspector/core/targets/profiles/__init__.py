"""Provider profiles as data: one module per target, each defining a PROFILE literal.

Every rule carries an id, a one-line reason and its source (a URL or an issue); the engine in
`inspector.core.targets` validates the data when it is loaded. Sources come from
../shared/reference/provider-rules/ unless the rule says otherwise.
"""

#: The profile modules, in the order targets are listed.
MODULES: tuple[str, ...] = (
    "openai",
    "openai_chat",
    "anthropic",
    "gemini",
    "gemini_3",
    "bedrock",
    "mistral",
    "groq",
    "ollama",
    "vllm",
)
