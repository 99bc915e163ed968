"""Every target profile is clean on real requests its provider accepted (HTTP 200).

A rule that a live provider contradicts destroys trust in every other rule: each request here
was answered with 200 by the provider the profile describes (see samples/SOURCES.md and
../shared/corpus/SOURCES.md for where each was recorded).
"""

from __future__ import annotations

import pytest

from inspector.core.formats import load_path
from inspector.core.gate import gate_transcript
from inspector.core.targets import check_transcript, profile_names
from tests.conftest import CORPUS, SAMPLES

REAL = SAMPLES / "real"
PROVIDERS = SAMPLES / "providers"

#: Profile → real requests its provider accepted.
ACCEPTED = {
    "openai": [CORPUS / "pydantic-ai" / "tool_call_roundtrip.req1.json"],
    "openai-chat": [CORPUS / "mirascope" / "chat_parallel_tools.req1.json"],
    "anthropic": [
        CORPUS / "mirascope" / "anthropic_parallel_tools.req1.json",
        # The response with its signed thinking, then the request that sent it back.
        REAL / "anthropic-thinking-tool.resp0-req1.jsonl",
    ],
    "gemini": [REAL / "gemini-3-thought-signature.req1.json"],
    "gemini-3": [REAL / "gemini-3-thought-signature.req1.json"],
    "bedrock": [REAL / "bedrock-tool-roundtrip.req1.json"],
    "mistral": [REAL / "mistral-tool.req0.json"],
    "groq": [REAL / "groq-tools.req0.json"],
    "ollama": [PROVIDERS / "ollama-tool-roundtrip.req.json"],
    "vllm": [PROVIDERS / "vllm-tool-call.req.json"],
}
#: Profiles without a public recording of an accepted request yet (none: every one has one).
UNRECORDED: set[str] = set()


def test_every_profile_is_listed():
    assert set(ACCEPTED) | UNRECORDED == set(profile_names())


@pytest.mark.parametrize(
    ("profile", "path"),
    [(p, path) for p, paths in ACCEPTED.items() for path in paths],
    ids=lambda v: v if isinstance(v, str) else v.name,
)
def test_profile_is_clean_on_a_real_accepted_request(profile, path):
    if not path.is_file():
        pytest.skip(f"{path} is not in this checkout")
    transcript = load_path(path)
    result = gate_transcript(transcript)
    findings = check_transcript(transcript, result.toolset, profile)
    assert [f.to_json() for f in findings] == []


#: Provider recordings → what the recorded answer holds: its calls' names and its text.
ANSWERS = {
    PROVIDERS / "ollama-tool-roundtrip.resp.jsonl": (
        (),
        "The boiling point of Polyjuice is -100°C.",
    ),
    PROVIDERS / "vllm-tool-call.resp.json": (("get_weather",), None),
}


@pytest.mark.parametrize("path", sorted(ANSWERS), ids=lambda p: p.name)
def test_the_recorded_answer_is_read_whole(path):
    transcript = load_path(path)
    calls = tuple(i.name for i in transcript.items if i.type == "function_call")
    texts = [i.raw.get("content") for i in transcript.items if i.type == "message"]
    expected_calls, expected_text = ANSWERS[path]
    assert calls == expected_calls
    if expected_text is not None:
        assert texts == [expected_text]
