"""Error messages read as sentences: no doubled words, JSON kinds named with their article."""

from __future__ import annotations

import pytest

from inspector.core.errors import ArgumentsError, LoadError
from inspector.core.formats import load_path
from inspector.core.gate import ToolSet, arguments_verdict
from inspector.core.jsonio import parse_arguments
from tests.conftest import SAMPLES


def test_an_unterminated_string_says_where_once():
    with pytest.raises(ArgumentsError) as caught:
        parse_arguments('{"region": "ap')
    assert caught.value.describe() == "Unterminated string starting at line 1 column 12"
    detail = arguments_verdict('{"region": "ap', "t", ToolSet()).detail
    assert detail == "arguments are not JSON: Unterminated string starting at line 1 column 12"
    assert "at at" not in detail


def test_a_field_of_the_wrong_kind_is_named_as_json_names_it(tmp_path):
    text = (SAMPLES / "native" / "anthropic-stream.sse").read_text(encoding="utf-8")
    start = text.index('"index":', text.index("content_block_start"))
    number = text[start + len('"index":') :].lstrip()[0]
    broken = tmp_path / "stream.sse"
    at = text.index(number, start)
    broken.write_text(text[:at] + '"first"' + text[at + 1 :], encoding="utf-8")
    with pytest.raises(LoadError) as caught:
        load_path(broken)
    assert "`index` is missing or not an integer" in caught.value.message
    assert "not a int" not in caught.value.message
