"""HAR captures (browser devtools, mitmproxy, Charles, Proxyman, Polly.JS): one conversation per
provider API call.

A HAR file is `{"log": {"entries": [...]}}`, each entry a `request` (`method`, `url`,
`postData.text`) and its `response` (`content.text`, base64 when `content.encoding` says so).
Every entry whose URL path is a provider API the inspector reads (`PROVIDER_PATHS`) is loaded
by the existing formats from its request and response bodies, an event stream included; its
items point at the entry (`/log/entries/N/...`). Other entries (pages, assets, a model list, a
CORS preflight) are ignored and counted (`har_entries_ignored`, info). A capture that kept no
body of a provider call (devtools drop large ones) is a `content_not_captured` finding.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import re
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

import orjson

from inspector.core import jsonio
from inspector.core.formats._records import CERTAIN, Builder, Detection, Record
from inspector.core.formats._sessions import not_captured, several_note
from inspector.core.formats.spec import FormatSpec
from inspector.core.model import Item, LoadError, Note, Origin, Severity, Transcript, join_pointer

KINDS = {"har_capture": "har"}
LABEL = "HAR capture"
_HEAD = re.compile(rb'\A\s*\{\s*"log"\s*:')
#: URL paths of the provider APIs whose bodies the formats read, each with where it is
#: documented and, for the APIs whose requests are a `messages` list, the kind such a request
#: is read as. A path matches at its end, so proxies and gateways that prefix it match too.
PROVIDER_PATHS: tuple[tuple[re.Pattern[str], str, str | None], ...] = (
    (
        re.compile(r"/responses$"),
        "https://platform.openai.com/docs/api-reference/responses",
        None,
    ),
    (
        re.compile(r"/chat/completions$"),
        "https://platform.openai.com/docs/api-reference/chat/create",
        "chat_request",
    ),
    (
        re.compile(r"/v1/messages$"),
        "https://docs.anthropic.com/en/api/messages",
        "anthropic_request",
    ),
    (
        re.compile(r":(stream)?[gG]enerateContent$"),
        "https://ai.google.dev/api/generate-content",
        None,
    ),
    (re.compile(r"/v2/chat$"), "https://docs.cohere.com/reference/chat", "cohere_request"),
    (
        re.compile(r"/model/[^/]+/converse(-stream)?$"),
        "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html",
        "bedrock_request",
    ),
)
#: The request kinds whose bodies are told apart by their contents alone: a `messages` list of
#: text turns fits several of these APIs, so the URL it was sent to says which it is.
_MESSAGES_KINDS = frozenset(kind for _, _, kind in PROVIDER_PATHS if kind is not None)
#: Methods that carry no call (a CORS preflight to a provider path is not one).
_NO_CALL = frozenset({"OPTIONS", "HEAD"})
#: `content-encoding` values whose bodies are read: none, or a gzip stream (told by its magic).
_READ_CODINGS = frozenset({"", "identity", "gzip", "x-gzip"})


def detect(obj: Any) -> Detection | None:
    """Score a parsed value as a HAR document, or None."""
    log = obj.get("log") if isinstance(obj, dict) else None
    if isinstance(log, dict) and isinstance(log.get("entries"), list):
        return CERTAIN, "har_capture"
    return None


def matches(data: bytes, first: Any) -> bool:
    """Whether a file is a HAR document."""
    return detect(first) is not None or _HEAD.match(data[:512]) is not None


def load(b: Builder, record: Record, kind: str) -> None:
    """A HAR document is a file of its own, never a record among others."""
    raise b.fail("a HAR capture must be a file of its own, not one record among others", record)


def _api(url: Any) -> tuple[bool, str | None]:
    """Whether a request URL goes to a provider API the formats read, and the kind its
    `messages` request is read as."""
    if not isinstance(url, str):
        return False, None
    try:
        path = urlsplit(url).path
    except ValueError:
        return False, None
    for pattern, _, kind in PROVIDER_PATHS:
        if pattern.search(path):
            return True, kind
    return False, None


def provider_path(url: Any) -> bool:
    """Whether a request URL goes to a provider API the formats read."""
    return _api(url)[0]


def _request_as(data: bytes, kind: str | None) -> Any:
    """The parsed request body when the URL's API must decide how it is read (a `messages`
    request another API's reader would claim), else None: the body is detected as any file."""
    if kind is None:
        return None
    from inspector.core import formats  # the registry imports this module

    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None  # the formats' loader names what is wrong with it
    if not isinstance(obj, dict) or not isinstance(obj.get("messages"), list):
        return None
    found = formats.classify(obj)
    return obj if found != kind and found in _MESSAGES_KINDS else None


def _body(holder: Any, key: str, where: str, path: str | None) -> bytes | None:
    """The bytes of a request's `postData` or a response's `content` (base64 decoded, and
    gunzipped when the recorder kept the bytes as they came over the wire)."""
    part = holder.get(key) if isinstance(holder, dict) else None
    text = part.get("text") if isinstance(part, dict) else None
    if not isinstance(text, str) or not text.strip():
        return None
    if not (isinstance(part, dict) and part.get("encoding") == "base64"):
        return text.encode("utf-8", "surrogatepass")
    data = _base64(text, where, path)
    if data.startswith(jsonio.GZIP_MAGIC):
        return _gunzip(data, where, path)
    coding = _content_coding(holder)
    if coding not in _READ_CODINGS and not _is_utf8(data):
        raise LoadError(
            f"{where}: the body is kept {coding}-compressed, as it came over the wire, and "
            "only gzip is decoded",
            path=path,
        )
    return data


def _base64(text: str, where: str, path: str | None) -> bytes:
    """A base64 body; Polly.JS keeps a content-encoded response as a JSON list of its
    chunks, each base64 on its own, in the order they arrived."""
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        pass
    chunks: Any = None
    if text.lstrip().startswith("["):
        try:
            chunks = orjson.loads(text)
        except orjson.JSONDecodeError:
            chunks = None
    if isinstance(chunks, list) and all(isinstance(c, str) for c in chunks):
        try:
            return b"".join(base64.b64decode(c, validate=True) for c in chunks)
        except (binascii.Error, ValueError):
            pass
    raise LoadError(f"{where}: the body says base64 but is not", path=path)


def _gunzip(data: bytes, where: str, path: str | None) -> bytes:
    """A gzip body decompressed, refused past the size a file may have (a small body can
    decompress to gigabytes)."""
    limit = jsonio.MAX_FILE_BYTES  # read at call time: a test may lower it
    try:
        out, ended = jsonio.inflate_gzip(data, limit)
    except zlib.error as exc:
        raise LoadError(f"{where}: the gzip body does not decompress: {exc}", path=path) from None
    if len(out) > limit:
        raise LoadError(
            f"{where}: the gzip body decompresses to more than {limit:,} bytes", path=path
        )
    if not ended:
        raise LoadError(f"{where}: the gzip body is cut short", path=path)
    return out


def _content_coding(holder: Any) -> str:
    """The `content-encoding` header of a request or response, lower case ("" if none)."""
    headers = holder.get("headers") if isinstance(holder, dict) else None
    for header in headers if isinstance(headers, list) else ():
        if isinstance(header, dict) and str(header.get("name", "")).lower() == "content-encoding":
            return str(header.get("value", "")).strip().lower()
    return ""


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _relocated(loaded: Transcript, pointer: str, path: str | None, start: int, group: int):
    """The items of a body's transcript, renumbered after `start` items and `group` groups,
    pointing at the body in the capture (a pointer cannot go into the string itself)."""
    for item in loaded.items:
        # Made anew from the value: a lean item reads its value by its old index.
        event = item.origin.event_index if item.origin is not None else None
        yield Item(
            start + item.index,
            item.raw,
            Origin(path, None, pointer, event),
            group + item.group,
            item.envelope,
            item.conversion,
        )


def _entry(entry: dict[str, Any], n: int, path: str | None, strict: bool) -> Transcript:
    """One provider call: its request and response bodies loaded as one conversation."""
    from inspector.core import formats  # the registry imports this module

    request, response = entry.get("request"), entry.get("response")
    base = join_pointer("", "log", "entries", n)
    asked = request if isinstance(request, dict) else {}
    what = f"entry {n} ({asked.get('method')} {asked.get('url')})"
    _, kind = _api(asked.get("url"))
    bodies = [
        (
            join_pointer(base, "request", "postData", "text"),
            _body(request, "postData", what, path),
            kind,
        ),
        (
            join_pointer(base, "response", "content", "text"),
            _body(response, "content", what, path),
            None,
        ),
    ]
    parts: list[tuple[str, Transcript]] = []
    for pointer, data, request_kind in bodies:
        if data is None:
            continue
        try:
            # A request to /v1/messages of text turns alone would read as Chat Completions.
            obj = _request_as(data, request_kind)
            if obj is not None:
                loaded = formats.transcript_from_record(obj, path, None, kind=kind)
            else:
                loaded = formats.load_bytes(data, path, strict=strict)
            parts.append((pointer, loaded))
        except LoadError as exc:
            raise LoadError(f"{what}, {pointer}: {exc.message}", path=path) from None
    conversation = f"entry {n}"
    if not parts:
        kept = f"{what} kept no request or response body"
        return not_captured(path, "har", "har_entry", conversation, kept)
    items: list[Item] = []
    groups: list[Any] = []
    tools: dict[str, Any] = {}
    for pointer, loaded in parts:
        items += _relocated(loaded, pointer, path, len(items), len(groups))
        groups += [
            dataclasses.replace(
                g, index=len(groups) + g.index, origin=Origin(path, None, pointer, None)
            )
            for g in loaded.groups
        ]
        tools.update(loaded.tools)
    last = parts[-1][1]
    return dataclasses.replace(
        last,
        items=tuple(items),
        groups=tuple(groups),
        tools=MappingProxyType(tools),
        tool_choice=next((t.tool_choice for _, t in parts if t.tool_choice is not None), None),
        conversation=conversation,
    )


def _ignored_note(path: str | None, ignored: Mapping[str, int], total: int) -> Note:
    shown = ", ".join(f"{count} {why}" for why, count in ignored.items())
    count = sum(ignored.values())
    return Note(
        "har_entries_ignored",
        Severity.INFO,
        f"{path or '<input>'}: {count} of {total} entries are not provider API calls and were "
        f"ignored ({shown})",
    )


def load_file(
    data: bytes,
    path: str | None,
    source: Path | None = None,
    check: Callable[[int], None] | None = None,
    strict: bool = False,
) -> list[Transcript]:
    """One transcript per provider API call of the capture, in entry order."""
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise LoadError(f"the HAR file is not JSON: {exc}", path=path) from None
    if detect(document) is None:
        raise LoadError('not a HAR file: expected {"log": {"entries": [...]}}', path=path)
    entries = document["log"]["entries"]
    found: list[Transcript] = []
    ignored: dict[str, int] = {}
    for n, entry in enumerate(entries):
        if check is not None:
            check(0)
        request = entry.get("request") if isinstance(entry, dict) else None
        if not isinstance(request, dict):
            raise LoadError(f"entry {n} has no request object", path=path)
        if not provider_path(request.get("url")):
            ignored["to other URLs"] = ignored.get("to other URLs", 0) + 1
        elif request.get("method") in _NO_CALL:
            ignored[f"{request['method']} requests"] = (
                ignored.get(f"{request['method']} requests", 0) + 1
            )
        else:
            found.append(_entry(entry, n, path, strict))
    if not found:
        raise LoadError(
            f"the capture holds no provider API call ({len(entries)} entries; expected requests "
            "to /v1/responses, /chat/completions, /v1/messages, :generateContent, /v2/chat or "
            "/converse)",
            path=path,
        )
    notes: list[Note] = []
    if len(found) > 1:
        notes.append(several_note(path, [t.conversation or "" for t in found]))
    if ignored:
        notes.append(_ignored_note(path, ignored, len(entries)))
    if notes:
        first = found[0]
        head = first.groups[0]
        found[0] = dataclasses.replace(
            first,
            groups=(dataclasses.replace(head, notes=(*head.notes, *notes)), *first.groups[1:]),
        )
    return found


FORMAT = FormatSpec(
    name="har",
    label=LABEL,
    kinds=KINDS,
    detect=detect,
    load=load,
    accepts="a HAR capture of provider API calls",
)
