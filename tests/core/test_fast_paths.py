"""The fast paths (verdict memo, orjson) give the plain paths' answers."""

from __future__ import annotations

import json

import orjson
import pytest

from inspector.core import formats, jsonio
from inspector.core.formats import load_text, tools_from_document
from inspector.core.gate import gate_item, gate_transcript, make_toolset
from tests.benchmarks import synthetic


@pytest.fixture(scope="module")
def corpus():
    items = list(synthetic.items(4000, seed=11))
    text = "\n".join(json.dumps(item) for item in items)
    return load_text(text, "synthetic.jsonl"), tools_from_document(synthetic.tools(), "tools")


def _answers(result):
    return [(v.verdict, v.detail, v.errors) for v in result.verdicts]


def test_the_corpus_has_every_verdict(corpus):
    transcript, tools = corpus
    kinds = {v.verdict for v in gate_transcript(transcript, tools).verdicts}
    assert {
        "ok",
        "arguments_schema",
        "arguments_parse",
        "status",
        "unknown_tool",
        "arguments_type",
        "namespaced",
        "not_function_call",
    } <= kinds


def test_memoised_verdicts_match_item_by_item(corpus):
    transcript, tools = corpus
    toolset, _ = make_toolset(transcript, tools)
    memo = gate_transcript(transcript, tools)
    single = [gate_item(item.raw, toolset) for item in transcript.items]
    assert [(v.verdict, v.detail, v.errors) for v in single] == _answers(memo)


def test_orjson_loading_matches_the_standard_library(corpus, monkeypatch):
    transcript, _ = corpus
    text = "\n".join(json.dumps(item.raw) for item in transcript.items)
    fast = load_text(text, "synthetic.jsonl")

    class NoOrjson:
        JSONDecodeError = orjson.JSONDecodeError

        @staticmethod
        def loads(_text):
            raise orjson.JSONDecodeError("forced", "", 0)

    monkeypatch.setattr(jsonio, "orjson", NoOrjson)
    monkeypatch.setattr(formats, "orjson", NoOrjson)
    plain = load_text(text, "synthetic.jsonl")
    assert [i.raw for i in fast.items] == [i.raw for i in plain.items]
    assert [i.origin for i in fast.items] == [i.origin for i in plain.items]
