"""The format contract: every format is a FormatSpec, and a new one is one module plus one line."""

from __future__ import annotations

import importlib
import json
import pkgutil
from collections.abc import Iterator
from typing import Any

import pytest
from msgspec import structs

from inspector.core import formats
from inspector.core.decision import decide_file as decide
from inspector.core.formats import REGISTRY, FormatSpec, Registry, register
from inspector.core.formats._records import Builder, Detection, Record, add_items
from inspector.core.gate import gate_transcript
from inspector.core.model import Envelope, Origin
from tests import codes_seen
from tests.conftest import REPO, SAMPLES

FOREIGN = [f for f in REGISTRY.formats if f.envelope is not None]


def _format_modules() -> list[str]:
    return [
        m.name
        for m in pkgutil.iter_modules(formats.__path__)
        if not m.name.startswith("_") and m.name != "spec"
    ]


def test_every_format_module_declares_one_registered_format_spec() -> None:
    registered = {id(f) for f in REGISTRY.formats}
    for name in _format_modules():
        module = importlib.import_module(f"inspector.core.formats.{name}")
        spec = getattr(module, "FORMAT", None)
        assert isinstance(spec, FormatSpec), f"{name}.py does not end with FORMAT = FormatSpec"
        assert id(spec) in registered, f"{name}.FORMAT is not in the registry"
    assert all(isinstance(f, FormatSpec) for f in REGISTRY.formats)


@pytest.mark.parametrize("spec", FOREIGN, ids=[f.name for f in FOREIGN])
def test_every_foreign_envelope_has_a_label_a_finding_and_a_golden_sample(spec: FormatSpec) -> None:
    envelope = spec.envelope
    assert envelope is not None and envelope.name == spec.name
    assert spec.label and envelope.label == spec.label
    assert envelope.finding and envelope.wording and spec.label in envelope.wording
    # A golden under samples/expected/ shows the finding on a sample that exists, and loading
    # that sample today still gives it (and blocks the replay).
    found = []
    for golden in sorted((SAMPLES / "expected").glob("*.gate.json")):
        for document in json.loads(golden.read_text(encoding="utf-8"))["files"]:
            if any(f["code"] == envelope.finding for f in document["findings"]):
                found.append(REPO / document["path"])
    assert found, f"no golden under samples/expected shows {envelope.finding}"
    sample = found[0]
    assert sample.is_file() and SAMPLES in sample.parents
    result = gate_transcript(formats.load_path(sample))
    assert envelope.finding in {f.code for f in result.findings}
    assert decide(result).blocks


def test_labels_findings_and_expected_are_derived_from_the_registry() -> None:
    assert dict(formats.FORMAT_LABELS) == {f.name: f.label for f in REGISTRY.formats}
    assert dict(REGISTRY.envelope_findings) == {
        f.envelope.finding: f.envelope.wording for f in FOREIGN if f.envelope
    }
    for spec in REGISTRY.formats:
        assert (spec.accepts or spec.label) in formats.EXPECTED
    assert REGISTRY.stream_formats == tuple(f for f in REGISTRY.formats if f.has_stream)


def test_every_loaded_envelope_belongs_to_a_registered_format() -> None:
    # An envelope made outside a format's spec would never have been checked.
    known = {f.envelope for f in FOREIGN} | {Envelope.OPEN_RESPONSES}
    for golden in sorted((SAMPLES / "expected").glob("*.gate.json")):
        for document in json.loads(golden.read_text(encoding="utf-8"))["files"]:
            transcript = formats.load_path(REPO / document["path"])
            assert {g.envelope for g in transcript.groups} <= known, document["path"]
            assert {i.envelope for i in transcript.items} <= known, document["path"]


def test_a_foreign_envelope_without_its_finding_cannot_be_made() -> None:
    anthropic = next(f for f in FOREIGN if f.name == "anthropic")
    assert anthropic.envelope is not None
    with pytest.raises(ValueError, match="no envelope finding"):
        structs.replace(anthropic.envelope, finding=None)
    with pytest.raises(ValueError, match="no envelope finding"):
        Envelope("acme", "Acme Chat", finding="acme_envelope")
    with pytest.raises(ValueError, match="no label"):
        Envelope("acme", "", finding="acme_envelope", wording="an Acme Chat")


def _spec(**fields: Any) -> FormatSpec:
    base: dict[str, Any] = {
        "name": "acme",
        "kinds": {"acme_chat": "acme"},
        "detect": _detect,
        "load": _load,
        "envelope": ACME,
    }
    return FormatSpec(**{**base, **fields})


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"envelope": None}, "no label"),
        ({"label": "Acme"}, "its label is its envelope's"),
        ({"envelope": Envelope.OPEN_RESPONSES, "name": "open_responses"}, "envelope=None"),
        ({"name": "acme2"}, "is named 'acme'"),
        ({"kinds": {}}, "no record kinds"),
        ({"detect_stream": lambda events: None}, "come together"),
        ({"array_stream_kind": "acme_stream"}, "not one of its kinds"),
    ],
)
def test_a_spec_that_breaks_the_contract_fails_when_it_is_made(
    fields: dict[str, Any], why: str
) -> None:
    with pytest.raises(TypeError, match=why):
        _spec(**fields)


def test_the_registry_refuses_what_is_not_a_spec_and_what_two_formats_claim() -> None:
    acme = _spec()
    with pytest.raises(TypeError, match="not a FormatSpec"):
        register(*REGISTRY.formats, object())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="format acme is declared by"):
        register(acme, _spec(kinds={"acme_other": "acme"}))
    with pytest.raises(TypeError, match="record kind acme_chat is declared by"):
        register(acme, _spec(name="acme2", envelope=None, label="Acme 2"))
    chat = next(f for f in FOREIGN if f.name == "chat_completions")
    assert chat.envelope is not None
    twin = Envelope("acme", "Acme", finding=chat.envelope.finding, wording="an Acme")
    with pytest.raises(TypeError, match="envelope finding chat_completions_envelope"):
        register(chat, _spec(envelope=twin, kinds={"acme_x": "acme"}))


# --------------------------------------------------------------------------------------------
# A new format: one module (here, these few lines) plus one registry entry


ACME = Envelope("acme", "Acme Chat", finding="acme_envelope", wording="an Acme Chat")


def _detect(obj: Any) -> Detection | None:
    if isinstance(obj, dict) and isinstance(obj.get("acme_turns"), list):
        return 90, "acme_chat"
    return None


def _load(b: Builder, record: Record, kind: str) -> None:
    group = b.group(kind, Origin(b.path, record.line, record.base), envelope=ACME)
    add_items(b, record, record.obj["acme_turns"], ("acme_turns",), group, ACME)


@pytest.fixture
def throwaway_code() -> Iterator[None]:
    """Forget the throwaway format's finding once the test is done: it exists only here."""
    yield
    for key in [k for k in codes_seen.SEEN if k[1] == ACME.finding]:
        del codes_seen.SEEN[key]


@pytest.mark.usefixtures("throwaway_code")
def test_a_new_format_is_one_spec_and_one_registry_line(monkeypatch: pytest.MonkeyPatch) -> None:
    acme = _spec()
    record = '{"acme_turns": [{"type": "function_call", "call_id": "c1", "name": "f",'
    record += ' "arguments": "{}", "status": "completed"}]}'
    with pytest.raises(formats.LoadError, match="unrecognised record"):
        formats.load_text(record, "acme.json")
    monkeypatch.setattr(formats, "REGISTRY", Registry((*REGISTRY.formats, acme)))
    assert "Acme Chat record" in formats.REGISTRY.expected
    assert formats.REGISTRY.labels["acme"] == "Acme Chat"
    transcript = formats.load_text(record, "acme.json")
    assert transcript.format == "acme"
    assert [i.envelope for i in transcript.items] == [ACME]
    result = gate_transcript(transcript)
    (finding,) = [f for f in result.findings if f.code == "acme_envelope"]
    assert "the file is an Acme Chat record, not Open Responses" in finding.message
    assert decide(result).blocks
