"""Inspect AI eval logs: `.json` documents and `.eval` zip archives, one conversation per sample.

A sample's `messages` are Inspect's own chat messages: `content` a string or a list of parts,
an assistant's `tool_calls` (`{id, function, arguments}`, with `arguments` an object), and
`role: tool` results naming the call they answer. An `.eval` archive keeps each sample in its
own entry (`samples/<id>_epoch_<n>.json`): samples are read one at a time, never the archive
whole. `arguments` objects are serialised and marked so: the log cannot prove the model's exact
argument text. A log written without its samples is a `content_not_captured` finding.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from inspector.core.formats._convert import ABSENT, Api, Converter, text_part
from inspector.core.formats._records import Builder, Detection, Record
from inspector.core.formats._sessions import (
    builder,
    conversation_group,
    finish,
    finish_lossy,
    not_captured,
)
from inspector.core.formats.spec import FormatSpec
from inspector.core.model import (
    Derivation,
    Envelope,
    LoadError,
    Transcript,
    join_pointer,
)

KINDS = {"inspect_sample": "inspect"}
LABEL = "Inspect eval log"
SLUG = "inspect"
#: Inspect's messages are no provider's envelope: converted items are Open Responses items.
API = Api(Envelope.OPEN_RESPONSES, SLUG, {}, "stop_reason")
LOSSY = Derivation(
    "arguments",
    "serialised",
    "Inspect logs keep a tool call's arguments as an object; the model's exact argument text "
    "is not in the log, so this is a serialisation of it",
)
_ZIP = b"PK\x03\x04"
#: How a `.json` log opens (`{"version": 2, "status": "success", "eval": {...`).
_JSON_HEAD = re.compile(rb'\A\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')
_MESSAGE_KEYS = ("id", "role", "content", "source", "tool_calls", "tool_call_id", "function")


def detect(obj: Any) -> Detection | None:
    """Score a parsed value as one Inspect sample (with `messages` and `epoch`), or None."""
    if (
        isinstance(obj, dict)
        and isinstance(obj.get("messages"), list)
        and "epoch" in obj
        and "input" in obj
    ):
        return 85, "inspect_sample"
    return None


def matches(data: bytes, first: Any) -> bool:
    """Whether a file is an Inspect log: an `.eval` archive, or a `.json` log document."""
    if data.startswith(_ZIP):
        return True  # a zip archive is read as one (an archive that is not a log is said so)
    return _JSON_HEAD.match(data[:512]) is not None


def load(b: Builder, record: Record, kind: str) -> None:
    """Add one sample met on its own (a line of samples) as a conversation's items."""
    group = conversation_group(b, "inspect_sample", None)
    _sample(b, group, record.obj, record.base)


def _content(conv: Converter, role: Any, content: Any, pointer: str) -> None:
    if isinstance(content, str):
        conv.content(content)
        return
    for part in content if isinstance(content, list) else ():
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            conv.part(text_part(role, part.get("text")))
        elif kind == "reasoning":
            fields = {k: v for k, v in part.items() if k != "type"}
            conv.extra("reasoning", fields, join_pointer(pointer, "content"), part)
        elif isinstance(part, dict):
            conv.part({**part, "type": f"{SLUG}:{kind}" if isinstance(kind, str) else SLUG})


def _message(conv: Converter, message: dict[str, Any], pointer: str) -> None:
    role = message.get("role")
    fields = {f"{SLUG}:{k}": v for k, v in message.items() if k not in _MESSAGE_KEYS}
    if role == "tool":
        conv.end()
        conv.output(
            call_id=message.get("tool_call_id"),
            name=message.get("function"),
            output=message.get("content"),
            pointer=pointer,
            native=message,
            fields=fields,
        )
        return
    conv.begin(role, pointer, message, None, fields if role != "assistant" else {})
    content = message.get("content")
    # Inspect 0.3.95 writes a turn that only calls tools with `content: ""`: it holds no text,
    # so the turn is its calls alone (as Chat Completions' empty content beside `tool_calls`).
    if content == "" and message.get("tool_calls"):
        content = None
    _content(conv, role, content, pointer)
    for j, call in enumerate(message.get("tool_calls") or ()):
        if not isinstance(call, dict):
            continue
        conv.call(
            name=call.get("function"),
            call_id=call.get("id"),
            arguments=call.get("arguments", ABSENT),
            pointer=join_pointer(pointer, "tool_calls", j),
            native=call,
            fields={f"{SLUG}:{k}": v for k, v in call.items() if k in ("view", "parse_error")},
        )
    conv.end()


def _tools(b: Builder, sample: dict[str, Any], base: str) -> None:
    """The tools the model was offered: on the sample's `model` events (a later one wins)."""
    events = sample.get("events")
    for i, event in enumerate(events if isinstance(events, list) else ()):
        if not (isinstance(event, dict) and event.get("event") == "model"):
            continue
        tools = event.get("tools")
        for j, tool in enumerate(tools if isinstance(tools, list) else ()):
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                pointer = join_pointer(base, "events", i, "tools", j, "parameters")
                b.add_tool(tool["name"], tool.get("parameters"), pointer, None)


def _sample(b: Builder, group: int, sample: dict[str, Any], base: str) -> None:
    _tools(b, sample, base)
    conv = Converter(b, Record(sample, None, base), group, API, ABSENT)
    for i, message in enumerate(sample.get("messages") or ()):
        if isinstance(message, dict):
            _message(conv, message, join_pointer(base, "messages", i))
    finish_lossy(conv, LOSSY, (FORMAT.name, LABEL))


def _samples(data: bytes, path: str | None) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each sample with its pointer base: from the archive's entries one at a time, or from the
    document's `samples` array."""
    if data.startswith(_ZIP):
        import zipfile  # only an .eval archive needs it (with shutil, bz2 and lzma)

        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile as exc:
            raise LoadError(f"a zip archive that cannot be read: {exc}", path=path) from None
        names = archive.namelist()
        if "header.json" not in names and "_journal/start.json" not in names:
            raise LoadError(
                "a zip archive, but not an Inspect .eval log (no header.json)", path=path
            )
        entries = sorted(n for n in names if n.startswith("samples/"))
        for name in entries:
            try:
                sample = orjson.loads(archive.read(name))
            except (orjson.JSONDecodeError, zipfile.BadZipFile, OSError) as exc:
                raise LoadError(f"archive entry {name}: {exc}", path=path) from None
            if isinstance(sample, dict):
                yield join_pointer("", name), sample
        return
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise LoadError(f"the Inspect log is not JSON: {exc}", path=path) from None
    samples = document.get("samples") if isinstance(document, dict) else None
    for i, sample in enumerate(samples if isinstance(samples, list) else ()):
        if isinstance(sample, dict):
            yield join_pointer("", "samples", i), sample


def _conversation_id(sample: dict[str, Any]) -> str:
    return f"sample {sample.get('id')} epoch {sample.get('epoch', 1)}"


def load_file(
    data: bytes,
    path: str | None,
    source: Path | None = None,
    check: Callable[[int], None] | None = None,
) -> list[Transcript]:
    """One transcript per sample of the log."""
    found: list[Transcript] = []
    for base, sample in _samples(data, path):
        if check is not None:
            check(0)  # between samples: a cancelled load stops here
        b = builder(path)
        group = conversation_group(b, "inspect_sample", None)
        _sample(b, group, sample, base)
        found.append(finish(b, "inspect", _conversation_id(sample)))
    if not found:
        what = "the log holds no samples (written without them, or still running)"
        return [not_captured(path, "inspect", "inspect_sample", None, what)]
    return found


FORMAT = FormatSpec(
    name="inspect",
    label=LABEL,
    kinds=KINDS,
    detect=detect,
    load=load,
    accepts="an Inspect AI eval log (.json or .eval)",
)
