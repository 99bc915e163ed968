"""The fleet scan: one per-file function, the same for the process pool and for Dask.

`scan_file(path, options)` loads every conversation a file holds, gates each, applies the
target profiles and returns one plain row (a dict of JSON values) per conversation; an
unreadable file is one row with its error. Rows hold counts, never items. `Fleet` folds rows
into the aggregates the readiness report shows, one row at a time, so a scan of a million files
holds no more than its aggregates. Where a chunk of files is scanned (a pool worker, a Dask
partition), its rows are encoded and folded there (`Chunk`); the coordinating process merges
the folds in walk order (`Fleet.merge`) and never handles a row.
"""

from __future__ import annotations

import json
import os
import pickle
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import cache
from typing import Any, TypeVar

import orjson
from msgspec import Struct, field

try:
    # BLAKE2 as hashlib gives it (hashlib.blake2b is this class), without hashlib's set-up of
    # OpenSSL: 11 M instructions, about 2 % of the start-up a scan's workers wait for.
    from _blake2 import blake2b
except ImportError:  # an interpreter without CPython's own BLAKE2 module
    from hashlib import blake2b

from inspector.core import formats
from inspector.core.decision import decide_file
from inspector.core.formats import conversations_from_bytes
from inspector.core.gate import GateResult, gate_transcript
from inspector.core.jsonio import GZIP_MAGIC, MAX_FILE_BYTES, display_name, inflate_gzip
from inspector.core.model import LoadError, Severity, Tool, Transcript
from inspector.core.targets import Profile, ToolVerdict, check_tool, check_transcript, get_profile
from inspector.core.targets.schema_rules import declared_in

#: Suffixes a folder walk picks up (each also gzipped); a file named on its own is always read.
SUFFIXES = (".json", ".jsonl", ".ndjson", ".sse", ".har", ".log")
#: Replay decisions of one conversation (DESIGN: replay mode), best first.
DECISIONS = ("safe", "safe_with_warnings", "unsafe")
#: Longest example message a row keeps per target rule.
EXAMPLE_CHARS = 300
#: Distinct tools and error reasons the aggregates track; past these, the rest are counted.
TOOL_LIMIT = 5_000
REASON_LIMIT = 200


class ScanOptions(Struct, frozen=True):
    """What every file is scanned with: target profile names and extra tool schemas."""

    targets: tuple[str, ...] = ()
    tools: Mapping[str, Tool] = field(default_factory=dict)


# --------------------------------------------------------------------------------------------
# Finding the files


def is_url(path: str) -> bool:
    """Whether a path is an fsspec URL (s3://…, gs://…, memory://…) rather than a local path."""
    scheme, sep, _ = path.partition("://")
    return bool(sep) and scheme.isidentifier()


def _wanted(name: str) -> bool:
    base = name.removesuffix(".gz").lower()
    return not name.startswith(".") and base.endswith(SUFFIXES)


def walk(arguments: Iterable[str]) -> Iterator[str]:
    """Every file to scan, in a stable order: folders walked sorted, globs expanded sorted.

    A file given by name is scanned whatever its suffix (a missing one becomes an error row);
    in a folder or glob, only transcript suffixes (SUFFIXES, also gzipped) and no hidden files.
    A file reached twice is scanned once.
    """
    import glob

    seen: set[str] = set()

    def once(path: str) -> Iterator[str]:
        key = path if is_url(path) else os.path.normpath(path)
        if key not in seen:
            seen.add(key)
            yield path

    for argument in arguments:
        if is_url(argument):
            yield from (p for found in _walk_url(argument) for p in once(found))
        elif os.path.isdir(argument):
            yield from (p for found in _walk_folder(argument) for p in once(found))
        elif glob.has_magic(argument):
            for found in sorted(glob.glob(argument, recursive=True)):
                if os.path.isdir(found):
                    yield from (p for inner in _walk_folder(found) for p in once(inner))
                elif _wanted(os.path.basename(found)):
                    yield from once(found)
        else:
            yield from once(argument)


def _walk_url(url: str) -> Iterator[str]:
    """An fsspec URL as files: a glob expanded, a folder walked (sorted), a file as it is."""
    import glob

    try:
        import fsspec
    except ImportError:
        yield url  # its row will say that reading a URL needs the fleet extra
        return
    fs, root = fsspec.core.url_to_fs(url)
    protocol = url.split("://", 1)[0]

    def named(path: str) -> str:
        return path if is_url(path) else f"{protocol}://{path.lstrip('/')}"

    if glob.has_magic(root):
        found = sorted(fs.glob(root))
        yield from (named(p) for p in found if _wanted(p.rsplit("/", 1)[-1]))
    elif url.endswith("/") or fs.isdir(root):
        found = sorted(fs.find(root))
        yield from (named(p) for p in found if _wanted(p.rsplit("/", 1)[-1]) and "/." not in p)
    else:
        yield url


def _walk_folder(folder: str) -> Iterator[str]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if _wanted(name):
                yield os.path.join(root, name)


# --------------------------------------------------------------------------------------------
# One file


def file_stamp(path: str) -> tuple[int | None, int | None]:
    """The size and modification time (ns) `--resume` compares; (None, None) when unknown."""
    if is_url(path):
        try:
            import fsspec

            info = fsspec.core.url_to_fs(path)[0].info(path)
        except Exception:  # any backend failure: the read reports it as the row's error
            return None, None
        mtime = info.get("mtime") or info.get("LastModified") or info.get("last_modified")
        stamp = getattr(mtime, "timestamp", None)
        nanos = int(stamp() * 1e9) if stamp else int(mtime * 1e9) if mtime else None
        size = info.get("size")
        return (int(size) if size is not None else None), nanos
    try:
        info = os.stat(path)
    except OSError:
        return None, None
    return info.st_size, info.st_mtime_ns


def _read_url(url: str) -> bytes:
    """The bytes of an fsspec URL, gunzipped when they are gzip, bounded like a local read."""
    try:
        import fsspec

        with fsspec.open(url, "rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except ImportError:
        need = "reading a URL needs fsspec: pip install 'replay-inspector[fleet]'"
        raise LoadError(need, path=url) from None
    except FileNotFoundError:
        raise LoadError("no such file", path=url) from None
    except Exception as exc:  # a storage backend's own errors: one line, never a traceback
        raise LoadError(f"cannot read: {exc}", path=url) from None
    if data[:2] == GZIP_MAGIC:
        try:
            data, _ = inflate_gzip(data, MAX_FILE_BYTES)
        except zlib.error as exc:
            raise LoadError(f"not valid gzip data: {exc}", path=url) from None
    if len(data) > MAX_FILE_BYTES:
        raise LoadError(f"larger than {MAX_FILE_BYTES:,} bytes", path=url)
    return data


def load_conversations(path: str) -> list[Transcript]:
    """Every conversation a file (local or an fsspec URL) holds, in file order."""
    if is_url(path):
        return conversations_from_bytes(_read_url(path), display_name(path))
    return formats.load_conversations(path)


@cache
def _profiles(names: tuple[str, ...]) -> tuple[Profile, ...]:
    return tuple(get_profile(name) for name in names)


def decision_word(result: GateResult) -> str:
    """safe, safe_with_warnings or unsafe: the replay decision of one gated conversation."""
    return str(decide_file(result).outcome)


def tool_digest(tool: Tool) -> str:
    """A short digest of a tool's schema and strict flag: the same tool in two files matches."""
    value = [tool.parameters, tool.strict]
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (orjson.JSONEncodeError, TypeError):
        data = json.dumps(value, sort_keys=True, default=repr).encode("utf-8", "surrogatepass")
    return blake2b(data, digest_size=8).hexdigest()


def conversation_row(
    path: str, number: int, of: int, result: GateResult, targets: Sequence[str]
) -> dict[str, Any]:
    """The row of one gated conversation: counts from the same values `gate` prints."""
    transcript = result.transcript
    calls: Counter[str] = Counter()
    for item in transcript.items:
        if item.type == "function_call":
            calls[item.name if isinstance(item.name, str) else ""] += 1
    stream = transcript.stream
    tools = sorted(result.toolset.tools.values(), key=lambda t: t.name)
    digests = {tool.name: tool_digest(tool) for tool in tools}
    row: dict[str, Any] = {
        "path": path,
        "conversation": number,
        "conversation_id": transcript.conversation,
        "conversations": of,
        "format": transcript.format,
        "items": len(transcript.items),
        "calls": sum(calls.values()),
        "verdicts": result.summary(),
        "findings": dict(Counter(f.code for f in result.findings)),
        "stream_violations": (
            dict(Counter(v.code for v in stream.violations) + Counter(stream.left_out_by_code()))
            if stream is not None
            else {}
        ),
        "decision": decision_word(result),
        "tools": digests,
        "tool_calls": dict(sorted(calls.items())),
        "targets": {},
        "error": None,
    }
    for profile in _profiles(tuple(targets)):
        verdicts = _tool_verdicts(tools, digests, profile)
        found = check_transcript(transcript, result.toolset, profile, verdicts)
        rules: Counter[str] = Counter(f.rule for f in found)
        examples: dict[str, str] = {}
        for finding in found:
            examples.setdefault(finding.rule, example_text(finding.message))
        with_target = replace(result, findings=result.findings + tuple(found))
        row["targets"][profile.name] = {
            "decision": decision_word(with_target),
            "errors": sum(1 for f in found if f.severity == Severity.ERROR),
            "warnings": sum(1 for f in found if f.severity == Severity.WARNING),
            "rules": dict(sorted(rules.items())),
            "examples": dict(sorted(examples.items())),
            "tools": {name: verdict.mark for name, verdict in verdicts.items()},
        }
    return row


def example_text(message: str) -> str:
    """A finding's message as a row keeps it: whole up to EXAMPLE_CHARS, else cut and marked.

    The cut falls between words, never inside one: a secret in the message is dropped whole,
    never kept in part where the report's redaction could no longer recognise it.
    """
    if len(message) <= EXAMPLE_CHARS:
        return message
    cut = message.rfind(" ", 0, EXAMPLE_CHARS + 1)
    head = message[:cut].rstrip() if cut > 0 else ""
    return f"{head} … ({len(message):,} chars)"


#: Each worker's tool verdicts by target and definition: a fleet repeats its tools.
_VERDICTS: dict[tuple[str, str, str, str, str | None], ToolVerdict] = {}


def _tool_verdicts(
    tools: Sequence[Tool], digests: Mapping[str, str], profile: Profile
) -> dict[str, ToolVerdict]:
    """check_tools for the gate's tools, each definition judged once per process and target."""
    verdicts = {}
    for tool in tools:
        # Everything check_tool reads: the schema and strict flag (the digest), the kind, and
        # the member the schema was declared in (Gemini skips rules for parametersJsonSchema).
        key = (profile.name, tool.name, digests[tool.name], tool.kind, declared_in(tool))
        verdict = _VERDICTS.get(key)
        if verdict is None:
            verdict = check_tool(tool, profile)
            if len(_VERDICTS) < TOOL_LIMIT:
                _VERDICTS[key] = verdict
        verdicts[tool.name] = verdict
    return verdicts


def error_row(path: str, error: LoadError) -> dict[str, Any]:
    """The row of a file that could not be read: where and why, no counts."""
    return {
        "path": path,
        "conversation": None,
        "conversation_id": None,
        "conversations": 0,
        "format": None,
        "items": 0,
        "calls": 0,
        "verdicts": {},
        "findings": {},
        "stream_violations": {},
        "decision": None,
        "tools": {},
        "tool_calls": {},
        "targets": {},
        # The gate's JSON error object, with every key present (Parquet rows have them all).
        "error": {"event_index": None, "pointer": None, **error.to_json()},
    }


def scan_file(path: str, options: ScanOptions) -> list[dict[str, Any]]:
    """Scan one file: a row per conversation (or one error row), each with size and mtime."""
    name = display_name(path)
    size, mtime = file_stamp(path)
    try:
        conversations = load_conversations(path)
        rows = []
        for number, transcript in enumerate(conversations):
            result = gate_transcript(transcript, options.tools)
            rows.append(conversation_row(name, number, len(conversations), result, options.targets))
    except LoadError as exc:
        rows = [error_row(name, exc)]
    except (RecursionError, MemoryError) as exc:
        # A pathological file must cost its own row, never the scan.
        rows = [error_row(name, LoadError(f"too deep or too large to scan ({type(exc).__name__})"))]
    except Exception as exc:  # a bug met on one file of a million: its row says so, the rest go on
        text = f"internal error while scanning ({type(exc).__name__}: {exc}); please report it"
        rows = [error_row(name, LoadError(text[:EXAMPLE_CHARS]))]
    for row in rows:
        row["size"] = size
        row["mtime_ns"] = mtime
    return rows


def dumps_rows(rows: Iterable[Mapping[str, Any]]) -> bytes:
    """Rows as JSON Lines bytes (one file's rows are written in one piece)."""
    return b"".join(_dumps(row) + b"\n" for row in rows)


def _dumps(row: Mapping[str, Any]) -> bytes:
    try:
        return orjson.dumps(row)
    except (orjson.JSONEncodeError, TypeError):
        # Lone surrogates in a name from a file: the standard library escapes them.
        return json.dumps(row, ensure_ascii=True).encode("ascii")


# --------------------------------------------------------------------------------------------
# Aggregates for the readiness report


class RuleTally(Struct):
    """One target rule across the fleet: findings, conversations hit, the first example."""

    findings: int = 0
    conversations: int = 0
    example: tuple[str, int, str] | None = None  # path, conversation number, message


class TargetTally(Struct):
    """One target across the fleet: conversations by decision, and each rule's tally."""

    decisions: Counter[str] = field(default_factory=Counter)
    rejected: int = 0
    changed: int = 0
    rules: dict[str, RuleTally] = field(default_factory=dict)


class ToolTally(Struct):
    """One tool name across the fleet: its schema variants, calls, and each target's marks."""

    variants: set[str] = field(default_factory=set)
    conversations: int = 0
    calls: int = 0
    marks: dict[str, Counter[str]] = field(default_factory=dict)


class FormatTally(Struct):
    """Parse health of one format (or one suffix, for files that could not be read)."""

    files: int = 0
    conversations: int = 0
    items: int = 0
    unreadable: int = 0
    violations: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)


_Value = TypeVar("_Value")


def _entry(table: dict[str, _Value], key: str, make: Callable[[], _Value]) -> _Value:
    """`table[key]`, made first when missing (setdefault would make one at every call)."""
    value = table.get(key)
    if value is None:
        value = table[key] = make()
    return value


#: A Fleet as plain values, in the order `Fleet.pack` lays them out.
Tally = tuple[Any, ...]


class Fleet(Struct):
    """The readiness report's aggregates, folded from rows one at a time (memory stays flat)."""

    targets: tuple[str, ...] = ()
    files: int = 0
    unreadable: int = 0
    conversations: int = 0
    items: int = 0
    calls: int = 0
    decisions: Counter[str] = field(default_factory=Counter)
    verdicts: Counter[str] = field(default_factory=Counter)
    findings: Counter[str] = field(default_factory=Counter)
    per_target: dict[str, TargetTally] = field(default_factory=dict)
    tools: dict[str, ToolTally] = field(default_factory=dict)
    tools_left_out: int = 0
    formats: dict[str, FormatTally] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in self.targets:
            self.per_target.setdefault(name, TargetTally())

    def add(self, row: Mapping[str, Any]) -> None:
        """Fold one row in (rows of one file come together, in order)."""
        path = row["path"]
        first = row.get("conversation") in (None, 0)
        self.files += first
        error = row.get("error")
        if error is not None:
            self.unreadable += 1
            tally = _entry(self.formats, _suffix_label(path), FormatTally)
            tally.files += 1
            tally.unreadable += 1
            reason = str(error.get("message", ""))
            if reason in tally.reasons or len(tally.reasons) < REASON_LIMIT:
                tally.reasons[reason] += 1
                tally.examples.setdefault(reason, path)
            return
        self.conversations += 1
        self.items += row["items"]
        self.calls += row["calls"]
        self.decisions[row["decision"]] += 1
        self.verdicts.update(row["verdicts"])
        self.findings.update(row["findings"])
        tally = _entry(self.formats, str(row["format"]), FormatTally)
        tally.files += first
        tally.conversations += 1
        tally.items += row["items"]
        tally.violations += sum(row.get("stream_violations", {}).values())
        self._add_tools(row)
        for name, entry in row.get("targets", {}).items():
            self._add_target(name, entry, path, row.get("conversation") or 0)

    def _add_tools(self, row: Mapping[str, Any]) -> None:
        calls = row.get("tool_calls", {})
        for name, digest in row.get("tools", {}).items():
            tool = self.tools.get(name)
            if tool is None:
                if len(self.tools) >= TOOL_LIMIT:
                    self.tools_left_out += 1
                    continue
                tool = self.tools[name] = ToolTally()
            tool.variants.add(digest)
            tool.conversations += 1
            tool.calls += calls.get(name, 0)
            for target, entry in row.get("targets", {}).items():
                mark = entry.get("tools", {}).get(name)
                if mark is not None:
                    _entry(tool.marks, target, Counter)[mark] += 1

    def _add_target(self, name: str, entry: Mapping[str, Any], path: str, number: int) -> None:
        tally = _entry(self.per_target, name, TargetTally)
        tally.decisions[entry["decision"]] += 1
        if entry["errors"]:
            tally.rejected += 1
        elif entry["warnings"]:
            tally.changed += 1
        examples = entry.get("examples", {})
        for rule, count in entry["rules"].items():
            rule_tally = _entry(tally.rules, rule, RuleTally)
            rule_tally.findings += count
            rule_tally.conversations += 1
            if rule_tally.example is None:
                rule_tally.example = (path, number, examples.get(rule, ""))

    def pack(self) -> Tally:
        """These aggregates as plain values (tuples, dicts, sets, numbers and text).

        What a worker hands back: pickled and unpickled without a class or constructor per
        tally, and merged from as they are (`merge`).
        """
        targets = {
            name: (
                dict(t.decisions),
                t.rejected,
                t.changed,
                {rule: (r.findings, r.conversations, r.example) for rule, r in t.rules.items()},
            )
            for name, t in self.per_target.items()
        }
        tools = {
            name: (t.variants, t.conversations, t.calls, {k: dict(m) for k, m in t.marks.items()})
            for name, t in self.tools.items()
        }
        parse = {
            label: (
                *(f.files, f.conversations, f.items, f.unreadable, f.violations),
                *(dict(f.reasons), f.examples),
            )
            for label, f in self.formats.items()
        }
        return (
            self.files,
            self.unreadable,
            self.conversations,
            self.items,
            self.calls,
            dict(self.decisions),
            dict(self.verdicts),
            dict(self.findings),
            targets,
            self.tools_left_out,
            tools,
            parse,
        )

    def merge(self, other: Fleet | Tally) -> None:
        """Fold in another fleet's aggregates (or their `pack`), as if its rows came after these.

        A worker folds its own chunk of files; the parent merges the chunks in walk order,
        which gives what adding every row here would (the first example of each rule, the
        first tools and reasons up to their limits), unless one chunk alone passes a limit.
        """
        packed = other.pack() if isinstance(other, Fleet) else other
        files, unreadable, conversations, items, calls, decisions, verdicts, findings = packed[:8]
        per_target, tools_left_out, tools, parse = packed[8:]
        self.files += files
        self.unreadable += unreadable
        self.conversations += conversations
        self.items += items
        self.calls += calls
        self.decisions.update(decisions)
        self.verdicts.update(verdicts)
        self.findings.update(findings)
        for name, (their_decisions, rejected, changed, rules) in per_target.items():
            mine = _entry(self.per_target, name, TargetTally)
            mine.decisions.update(their_decisions)
            mine.rejected += rejected
            mine.changed += changed
            for rule, (rule_findings, rule_conversations, example) in rules.items():
                my_rule = _entry(mine.rules, rule, RuleTally)
                my_rule.findings += rule_findings
                my_rule.conversations += rule_conversations
                if my_rule.example is None:
                    my_rule.example = example
        self.tools_left_out += tools_left_out
        for name, (variants, tool_conversations, tool_calls, marks) in tools.items():
            tool = self.tools.get(name)
            if tool is None:
                if len(self.tools) >= TOOL_LIMIT:
                    self.tools_left_out += tool_conversations
                    continue
                tool = self.tools[name] = ToolTally()
            tool.variants |= variants
            tool.conversations += tool_conversations
            tool.calls += tool_calls
            for target, counts in marks.items():
                _entry(tool.marks, target, Counter).update(counts)
        for label, (
            f_files,
            f_conversations,
            f_items,
            f_unreadable,
            violations,
            reasons,
            examples,
        ) in parse.items():
            tally = _entry(self.formats, label, FormatTally)
            tally.files += f_files
            tally.conversations += f_conversations
            tally.items += f_items
            tally.unreadable += f_unreadable
            tally.violations += violations
            for reason, count in reasons.items():
                if reason in tally.reasons or len(tally.reasons) < REASON_LIMIT:
                    tally.reasons[reason] += count
                    tally.examples.setdefault(reason, examples[reason])

    def verdict(self, target: str) -> str:
        """'go', 'go with changes' or 'no-go' for one target: what the target itself would do.

        Conversations the gate blocks on any provider are counted apart (`decisions`).
        """
        tally = self.per_target.get(target, TargetTally())
        if tally.rejected:
            return "no-go"
        return "go with changes" if tally.changed else "go"


#: One file of a chunk: its path as the rows name it, size, mtime (ns), where its rows end.
ChunkFile = tuple[str, int | None, int | None, int]


class Chunk(Struct):
    """Scanned files as a worker hands them back: rows already as JSON Lines, and their fold.

    The parent of a pool only writes `data` and merges `tally` (the fold, packed: plain
    values): it never decodes, re-encodes or folds a row, so the cores do the scanning and not
    the coordination. `resumed` marks files taken from a previous scan's log, not scanned again.
    """

    files: list[ChunkFile]
    data: bytes
    tally: Tally
    resumed: bool = False

    @property
    def items(self) -> int:
        """Items of the chunk's conversations (for the progress line)."""
        return int(self.tally[3])

    def spans(self) -> Iterator[tuple[ChunkFile, bytes]]:
        """Each file with the JSON Lines of its rows."""
        start = 0
        for entry in self.files:
            yield entry, self.data[start : entry[3]]
            start = entry[3]

    def encode(self) -> bytes:
        """The chunk as one message of plain values (what a worker writes to its pipe)."""
        return pickle.dumps((self.files, self.data, self.tally), pickle.HIGHEST_PROTOCOL)

    @classmethod
    def decode(cls, message: bytes) -> Chunk:
        """The chunk a worker encoded."""
        return cls(*pickle.loads(message))


def make_chunk(
    groups: Iterable[Sequence[Mapping[str, Any]]],
    targets: tuple[str, ...],
    *,
    resumed: bool = False,
) -> Chunk:
    """A chunk from the rows of each of its files (rows made by scan_file, or read back)."""
    fleet = Fleet(targets=targets)
    files: list[ChunkFile] = []
    parts: list[bytes] = []
    end = 0
    for rows in groups:
        for row in rows:
            fleet.add(row)
        data = dumps_rows(rows)
        parts.append(data)
        end += len(data)
        first = rows[0]
        files.append((first["path"], first.get("size"), first.get("mtime_ns"), end))
    return Chunk(files, b"".join(parts), fleet.pack(), resumed)


def scan_chunk(paths: Sequence[str], options: ScanOptions) -> Chunk:
    """scan_file over a chunk of paths, encoded and folded where it ran (one pool task)."""
    return make_chunk((scan_file(path, options) for path in paths), options.targets)


def unchanged(size: int | None, mtime_ns: int | None, path: str) -> bool:
    """The `--resume` rule, for every engine: a file's recorded size and mtime are still its own."""
    return size is not None and (size, mtime_ns) == file_stamp(path)


def _suffix_label(path: str) -> str:
    base = path.removesuffix(".gz")
    suffix = os.path.splitext(base)[1] or "(no suffix)"
    return f"unreadable {suffix}{'.gz' if base != path else ''}"


__all__ = [
    "DECISIONS",
    "SUFFIXES",
    "Chunk",
    "Fleet",
    "ScanOptions",
    "conversation_row",
    "decision_word",
    "dumps_rows",
    "error_row",
    "example_text",
    "file_stamp",
    "is_url",
    "load_conversations",
    "make_chunk",
    "scan_chunk",
    "scan_file",
    "tool_digest",
    "unchanged",
    "walk",
]


# --------------------------------------------------------------------------------------------
# Engines: the process pool and Dask, both around scan_file


def default_jobs() -> int:
    """Every core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


#: Most files one pool task scans, and the bytes past which a task takes no further file: a
#: task of many small files pays the hand-off once, a large file is a task of its own.
CHUNK_FILES = 32
CHUNK_BYTES = 1 << 20


_WORKER_OPTIONS = ScanOptions()

#: Modules a scan imports on first use besides the format modules (which the registry names):
#: the stream machinery a recorded stream needs. (The gate's patterns are the standard
#: library's: the `regex` engine is no longer imported to judge a file.)
WORKER_MODULES = (
    "inspector.core.stream.events",
    "inspector.core.stream.reducer",
    "inspector.core.stream.results",
    "inspector.core.stream.sse",
)
_preloaded = False


def preload(targets: Sequence[str] = ()) -> None:
    """Import and build here what every pool worker would otherwise do on its first files.

    The format modules are imported when a file first needs them, which in a pool means once
    per worker: a scan's CPU paid for them `jobs` times, and one `--jobs 1` pays once. Called
    before the pool forks, the workers inherit them (and a fork server imports them once):
    every format module and its helpers, the stream machinery, the gate's compiled patterns
    and the target profiles. `--jobs 1` does not call it and imports only what it meets.
    """
    import importlib
    import sys

    from inspector.core.lazy import LazyPattern

    global _preloaded
    if not _preloaded:
        formats.REGISTRY.formats  # noqa: B018 -- imports every format module, in order
        for name in WORKER_MODULES:
            importlib.import_module(name)
        for name, module in list(sys.modules.items()):
            if name.startswith("inspector.core."):
                for value in list(vars(module).values()):
                    if isinstance(value, LazyPattern):
                        value.compiled()
        _preloaded = True
    _profiles(tuple(targets))


def worker_modules() -> tuple[str, ...]:
    """Every module `preload` imports: what a fork server imports before it forks a worker."""
    return (*(f"{formats.__name__}.{name}" for name in formats.FORMAT_MODULES), *WORKER_MODULES)


def _init_worker(options: ScanOptions) -> None:
    global _WORKER_OPTIONS
    _WORKER_OPTIONS = options
    # Forked from a process that preloaded: nothing left to do. From a fork server (which
    # imported `worker_modules`): the patterns and profiles, once, before the first task.
    preload(options.targets)


def _worker_chunk(paths: Sequence[str]) -> Chunk:
    return scan_chunk(paths, _WORKER_OPTIONS)


def _worker_task(message: bytes) -> bytes:
    """One pool task: the paths it names scanned, handed back encoded (`Chunk.encode`)."""
    return _worker_chunk(pickle.loads(message)).encode()


class Task(Struct, eq=False):
    """Consecutive files of the walk scanned as one pool task, with their sizes in bytes.

    `chunk` is set once the files are scanned (or were taken from a previous scan's log).
    """

    paths: list[str]
    sizes: list[int]
    chunk: Chunk | None = None
    started: bool = False

    @property
    def cost(self) -> int:
        """The bytes the task reads: what its scan takes, roughly."""
        return sum(self.sizes)


def _size(path: str) -> int:
    """A file's size for planning; a URL or a missing file counts as a small file."""
    if is_url(path):
        return 0
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _tasks(
    paths: Iterable[str],
    chunk: int,
    resumed: Callable[[str], Chunk | None] | None,
    budget: int | None = None,
) -> Iterator[Task]:
    """Walk order as work: tasks of up to `chunk` files (and `budget` bytes, when given).

    With a budget (the pool), the first tasks are small (1 file, then 2, 4 … up to `chunk`):
    the processes start on the first files the walk finds, not once it has found `chunk`.
    A file already logged (`resumed`) is a finished task of its own that ends the task before
    it, so chunks merge in walk order whatever is resumed.
    """
    task = Task([], [])
    cap = 1 if budget is not None else chunk
    for path in paths:
        done = resumed(path) if resumed is not None else None
        if done is not None:
            if task.paths:
                yield task
                task = Task([], [])
            yield Task([path], [0], done)
            continue
        size = _size(path) if budget is not None else 0
        if task.paths and budget is not None and task.cost + size > budget:
            yield task
            task = Task([], [])
        task.paths.append(path)
        task.sizes.append(size)
        if len(task.paths) >= cap:
            yield task
            task = Task([], [])
            cap = min(chunk, 2 * cap)
    if task.paths:
        yield task


def split_tail(tasks: Sequence[Task], jobs: int) -> list[Task]:
    """The last tasks of a walk cut finer, so that no process waits idle at the end.

    Once the walk has ended, the tasks not yet started are halved, the largest first, until
    there are `4 × jobs` of them; then the smallest are halved until `2 × jobs` of them hold
    one file (or each does). Started largest first, the tasks shrink towards the end and the
    last of each process is one file: the processes end within about a file of each other.
    Order and contents are kept.
    """
    result = list(tasks)
    while True:
        waiting = [t for t in result if not t.started and t.chunk is None]
        parts = [t for t in waiting if len(t.paths) > 1]
        if not parts:
            return result
        if len(waiting) < 4 * jobs:
            cut = max(parts, key=lambda t: t.cost)
        elif len(waiting) - len(parts) < 2 * jobs:
            cut = min(parts, key=lambda t: t.cost)
        else:
            return result
        half = len(cut.paths) // 2
        at = result.index(cut)
        result[at : at + 1] = [
            Task(cut.paths[:half], cut.sizes[:half]),
            Task(cut.paths[half:], cut.sizes[half:]),
        ]


def next_tasks(tasks: Iterable[Task], free: int) -> list[Task]:
    """The `free` waiting tasks to start now: the largest first (a large file started last
    would leave every other process idle while it runs)."""
    waiting = [t for t in tasks if not t.started and t.chunk is None]
    return sorted(waiting, key=lambda t: -t.cost)[:free]


def run_pool(
    paths: Iterable[str],
    options: ScanOptions,
    jobs: int,
    *,
    chunk: int = CHUNK_FILES,
    resumed: Callable[[str], Chunk | None] | None = None,
) -> Iterator[Chunk]:
    """Chunks of scanned files, in the order of `paths`, scanned by `jobs` processes.

    `resumed(path)` gives the chunk of a file a previous scan logged (None: scan the file); it
    comes back in its place. `paths` is read as the work goes, so the processes scan the first
    files while the walk goes on; at most `4 × jobs` tasks are read ahead of the oldest
    unfinished one, so neither the paths still to scan nor the rows already made pile up.
    Within that window the largest waiting task starts first, and the last tasks of the walk
    are cut finer (`split_tail`). One job scans in this process, in walk order.
    """
    if jobs <= 1:
        for task in _tasks(paths, chunk, resumed):
            yield task.chunk if task.chunk is not None else scan_chunk(task.paths, options)
        return
    import threading
    from collections import deque

    from inspector.core.fleet_pool import Pool

    # A plain fork when this process has no other thread (the CLI): the workers start with its
    # imports and what `preload` adds, at no cost, all at once. Otherwise (a test runner, a
    # GUI) forking is unsafe; the workers come from a fork server that has them imported.
    fork = threading.active_count() == 1 and hasattr(os, "fork")
    if fork:
        preload(options.targets)
    preloaded = ("inspector.core.scan", *worker_modules())
    pool = Pool(jobs, _worker_task, _init_worker, options, fork=fork, preload=preloaded)
    source = _tasks(paths, chunk, resumed, CHUNK_BYTES)
    window: deque[Task] = deque()  # walk order, from the oldest task not yet handed back
    walking = True
    ended = False

    def start() -> None:
        # Each process busy and one task queued for it: a process never waits for the parent
        # (even one slow to be scheduled), and the next task is chosen late.
        for task in next_tasks(window, 2 * jobs - pool.busy()):
            task.started = True
            pool.submit(task, pickle.dumps(task.paths, pickle.HIGHEST_PROTOCOL))

    try:
        while True:
            while walking and len(window) < jobs * 4:
                read = next(source, None)
                if read is None:
                    walking = False
                    window = deque(split_tail(window, jobs))
                else:
                    window.append(read)
                start()  # work is handed out as the walk finds it
            start()
            if not window:
                ended = True
                return
            head = window[0].chunk
            if head is not None:
                window.popleft()
                yield head
                continue
            for task, message in pool.finished():
                task.chunk = Chunk.decode(message)
    finally:
        pool.close(stop=not ended)


def part_name(index: int) -> str:
    """The Parquet file of the partition whose first file is number `index` of the walk."""
    return f"part-{index:09d}.parquet"


def plan_partitions(paths: Sequence[str], size: int) -> list[list[tuple[int, str]]]:
    """The walk cut into partitions of `size` files, each file with its number in the walk."""
    numbered = list(enumerate(paths))
    return [numbered[start : start + size] for start in range(0, len(numbered), size)]


def _write_partitions(
    plans: Sequence[Sequence[tuple[int, str]]], folder: str, options: ScanOptions
) -> list[dict[str, Any]]:
    """Scan planned partitions into their Parquet files; return each one's tally and fold."""
    tallies = []
    for elements in plans:
        groups = [scan_file(path, options) for _, path in elements]
        rows = [row for group in groups for row in group]
        name = part_name(elements[0][0])
        write_parquet(rows, os.path.join(folder, name))
        chunk = make_chunk(groups, options.targets)
        tallies.append(_tally(name, len(elements), chunk.tally, resumed=False))
    return tallies


def _tally(name: str, files: int, tally: Tally, *, resumed: bool) -> dict[str, Any]:
    return {"part": name, "files": files, "items": tally[3], "fleet": tally, "resumed": resumed}


def kept_partition(
    folder: str, elements: Sequence[tuple[int, str]], targets: tuple[str, ...]
) -> Fleet | None:
    """The fold of a partition a previous scan wrote into `folder`, if it may be kept.

    Kept when it holds the rows of exactly these files and each is unchanged (`unchanged`, the
    rule the pool's log uses); otherwise None, and the partition is scanned again.
    """
    import pyarrow.parquet as pq

    path = os.path.join(folder, part_name(elements[0][0]))
    if not os.path.isfile(path):
        return None
    try:
        table = pq.read_table(path, columns=["path", "size", "mtime_ns"])
    except Exception:  # a torn or foreign file: scanned again
        return None
    columns = (table.column(name).to_pylist() for name in ("path", "size", "mtime_ns"))
    stamps = list(dict.fromkeys(zip(*columns, strict=True)))
    if [s[0] for s in stamps] != [display_name(p) for _, p in elements]:
        return None
    pairs = zip(stamps, elements, strict=True)
    if not all(unchanged(size, mtime, p) for (_, size, mtime), (_, p) in pairs):
        return None
    fleet = Fleet(targets=targets)
    for row in read_parquet(path):
        fleet.add(row)
    return fleet


def run_dask(
    paths: Sequence[str],
    options: ScanOptions,
    folder: str,
    *,
    scheduler: str | None = None,
    jobs: int | None = None,
    partition_files: int | None = None,
    cluster_options: Mapping[str, Any] | None = None,
    resume: bool = False,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Scan on Dask, a bag over the file list, one Parquet file per partition into `folder`.

    Yields (partition number, tally) as each partition finishes, its fold (packed) in the tally's
    `fleet`. With `resume`, a partition already in `folder` whose files are all unchanged is
    kept (tally `resumed`). Without a scheduler address a LocalCluster of processes is
    started, and closed when the scan ends.
    """
    import logging

    import dask.bag
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler is None:
        settings: dict[str, Any] = {
            "n_workers": jobs or default_jobs(),
            "threads_per_worker": 1,
            "processes": True,
            "dashboard_address": ":0",  # a free port: another cluster may hold the default
            "silence_logs": logging.ERROR,
        }
        settings.update(cluster_options or {})
        cluster = LocalCluster(**settings)
    client = Client(cluster if cluster is not None else scheduler)
    try:
        if partition_files is None:
            # A few partitions per worker thread: 20 large files must not share one partition.
            threads = sum(client.nthreads().values()) or 1
            partition_files = max(1, min(64, len(paths) // (threads * 4)))
        todo = []
        for number, elements in enumerate(plan_partitions(paths, partition_files)):
            kept = kept_partition(folder, elements, options.targets) if resume else None
            if kept is None:
                todo.append((number, elements))
            else:
                yield (
                    number,
                    _tally(part_name(elements[0][0]), len(elements), kept.pack(), resumed=True),
                )
        if not todo:
            return
        # One planned partition per bag partition: its Parquet file is named by its first file.
        bag = dask.bag.from_sequence([e for _, e in todo], npartitions=len(todo))
        parts = bag.map_partitions(_write_partitions, folder, options).to_delayed()
        futures = client.compute(parts)
        order = {future.key: number for future, (number, _) in zip(futures, todo, strict=True)}
        for future in as_completed(futures):
            for tally in future.result():
                yield order[future.key], tally
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


class InOrder:
    """Folds that arrive in any order (Dask partitions), merged into `fleet` in walk order."""

    def __init__(self, fleet: Fleet) -> None:
        self.fleet = fleet
        self.next = 0
        self.waiting: dict[int, Fleet | Tally] = {}

    def add(self, number: int, fleet: Fleet | Tally) -> None:
        """Take partition `number`'s fold; merge every fold now contiguous with the merged."""
        self.waiting[number] = fleet
        while self.next in self.waiting:
            self.fleet.merge(self.waiting.pop(self.next))
            self.next += 1


# --------------------------------------------------------------------------------------------
# Parquet


def parquet_schema() -> Any:
    """The Arrow schema of a row (maps for the counts, a map of structs for the targets)."""
    import pyarrow as pa

    counts = pa.map_(pa.string(), pa.int64())
    texts = pa.map_(pa.string(), pa.string())
    target = pa.struct(
        [
            ("decision", pa.string()),
            ("errors", pa.int64()),
            ("warnings", pa.int64()),
            ("rules", counts),
            ("examples", texts),
            ("tools", texts),
        ]
    )
    error = pa.struct(
        [
            ("message", pa.string()),
            ("line", pa.int64()),
            ("column", pa.int64()),
            ("event_index", pa.int64()),
            ("pointer", pa.string()),
        ]
    )
    return pa.schema(
        [
            ("path", pa.string()),
            ("conversation", pa.int64()),
            ("conversation_id", pa.string()),
            ("conversations", pa.int64()),
            ("format", pa.string()),
            ("items", pa.int64()),
            ("calls", pa.int64()),
            ("verdicts", counts),
            ("findings", counts),
            ("stream_violations", counts),
            ("decision", pa.string()),
            ("tools", texts),
            ("tool_calls", counts),
            ("targets", pa.map_(pa.string(), target)),
            ("error", error),
            ("size", pa.int64()),
            ("mtime_ns", pa.int64()),
        ]
    )


def _arrow_safe(value: Any) -> Any:
    # Arrow writes UTF-8 only: a lone surrogate from a file is kept as its escape.
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return value
    if isinstance(value, dict):
        return {_arrow_safe(k): _arrow_safe(v) for k, v in value.items()}
    return value


class ParquetSink:
    """Rows written to one Parquet file in row groups, through a temporary file beside it."""

    def __init__(self, path: str, batch: int = 4096) -> None:
        import pyarrow.parquet as pq

        self.path = path
        self.temp = f"{path}.{os.getpid()}.tmp"
        self.schema = parquet_schema()
        self.writer = pq.ParquetWriter(self.temp, self.schema)
        self.batch = batch
        self.rows: list[dict[str, Any]] = []

    def add(self, row: Mapping[str, Any]) -> None:
        """Buffer one row; a full batch becomes a row group."""
        self.rows.append(_arrow_safe(dict(row)))
        if len(self.rows) >= self.batch:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if self.rows:
            self.writer.write_table(pa.Table.from_pylist(self.rows, schema=self.schema))
            self.rows = []

    def close(self) -> None:
        """Write what is left and move the file into place."""
        self._flush()
        self.writer.close()
        os.replace(self.temp, self.path)

    def abort(self) -> None:
        """Drop the temporary file (nothing is left half-written)."""
        try:
            self.writer.close()
        finally:
            if os.path.exists(self.temp):
                os.unlink(self.temp)


def write_parquet(rows: Iterable[Mapping[str, Any]], path: str) -> None:
    """Write rows to one Parquet file, atomically."""
    sink = ParquetSink(path)
    try:
        for row in rows:
            sink.add(row)
    except BaseException:
        sink.abort()
        raise
    sink.close()


def read_parquet(path: str) -> Iterator[dict[str, Any]]:
    """The rows of a Parquet file (or of a folder of partitions, in partition order)."""
    import pyarrow.parquet as pq

    files = (
        sorted(os.path.join(path, n) for n in os.listdir(path) if n.endswith(".parquet"))
        if os.path.isdir(path)
        else [path]
    )
    for name in files:
        for batch in pq.ParquetFile(name).iter_batches():
            yield from batch.to_pylist(maps_as_pydicts="strict")


# --------------------------------------------------------------------------------------------
# The scan log behind -o, and the JSON Lines output


class ScanLog:
    """An append-only JSON Lines log of finished files: what `--resume` reads, OUT is built from.

    Each file's rows are appended in one write as its scan ends, in whatever order files
    finish; the index keeps, per path, its size, mtime and where its rows are. A scan killed
    half-way leaves at worst a torn last line, which the next open drops.
    """

    def __init__(self, path: str, *, resume: bool) -> None:
        self.path = path
        self.index: dict[str, tuple[int | None, int | None, int, int]] = {}
        end = self._read_index() if resume and os.path.exists(path) else 0
        #: Whether the log holds only what this scan appended (in the order it appended it).
        self.fresh = end == 0
        self.stream = open(path, "r+b" if end or os.path.exists(path) else "wb")  # noqa: SIM115
        self.stream.truncate(end)
        self.stream.seek(end)
        self.reader = open(path, "rb")  # noqa: SIM115

    def _read_index(self) -> int:
        """Index the complete file groups; return where the last complete one ends."""
        offset = good = 0
        group: list[dict[str, Any]] = []
        start = 0
        with open(self.path, "rb") as stream:
            for line in stream:
                if not line.endswith(b"\n"):
                    break
                try:
                    row = orjson.loads(line)
                except orjson.JSONDecodeError:
                    break
                if not group or group[0]["path"] != row["path"] or row.get("conversation") == 0:
                    group, start = [], offset
                group.append(row)
                offset += len(line)
                if len(group) >= max(1, group[0].get("conversations") or 0):
                    first = group[0]
                    self.index[first["path"]] = (first["size"], first["mtime_ns"], start, offset)
                    good = offset
                    group = []
        return good

    def done(self, path: str) -> bool:
        """Whether this file's rows are in the log and the file is unchanged since."""
        entry = self.index.get(display_name(path))
        return entry is not None and unchanged(entry[0], entry[1], path)

    def resumed(self, path: str, targets: tuple[str, ...]) -> Chunk | None:
        """The logged rows of an unchanged file as a chunk (None: the file must be scanned)."""
        if not self.done(path):
            return None
        return make_chunk([self.rows(path)], targets, resumed=True)

    def append(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Add one file's rows, flushed, so a kill loses at most the file being written."""
        self.append_chunk(make_chunk([rows], ()))

    def append_chunk(self, chunk: Chunk) -> None:
        """Add a chunk's files in one write, flushed: a kill loses at most the chunks in flight."""
        start = self.stream.tell()
        self.stream.write(chunk.data)
        self.stream.flush()
        offset = start
        for path, size, mtime, end in chunk.files:
            self.index[path] = (size, mtime, offset, start + end)
            offset = start + end

    def seed(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Take the rows of a finished output (a scan resumed after it completed)."""
        self.fresh = False
        group: list[Mapping[str, Any]] = []
        for row in rows:
            if group and (group[0]["path"] != row["path"] or row.get("conversation") == 0):
                self.append(group)
                group = []
            group.append(row)
        if group:
            self.append(group)

    def raw(self, path: str) -> bytes:
        """The logged JSON Lines of one file (empty when it is not in the log)."""
        entry = self.index.get(display_name(path))
        if entry is None:
            return b""
        self.reader.seek(entry[2])
        return self.reader.read(entry[3] - entry[2])

    def rows(self, path: str) -> list[dict[str, Any]]:
        """The logged rows of one file ([] when it is not in the log)."""
        return [orjson.loads(line) for line in self.raw(path).splitlines()]

    def publish(self, path: str) -> None:
        """Make the log OUT itself, when it holds OUT's lines already (a scan in walk order)."""
        self.stream.flush()
        os.fsync(self.stream.fileno())
        self.close()
        os.replace(self.path, path)

    def close(self, *, remove: bool = False) -> None:
        """Close the log (and delete it, once OUT is complete)."""
        self.stream.close()
        self.reader.close()
        if remove and os.path.exists(self.path):
            os.unlink(self.path)


class JsonlSink:
    """Rows written as JSON Lines to a temporary file beside `path`, moved into place at close."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.temp = f"{path}.{os.getpid()}.tmp"
        self.stream = open(self.temp, "wb")  # noqa: SIM115

    def add(self, row: Mapping[str, Any]) -> None:
        """Write one row."""
        self.stream.write(_dumps(row) + b"\n")

    def add_lines(self, data: bytes) -> None:
        """Write rows already encoded as JSON Lines."""
        self.stream.write(data)

    def close(self) -> None:
        """Flush to disk and move the file into place."""
        self.stream.flush()
        os.fsync(self.stream.fileno())
        self.stream.close()
        os.replace(self.temp, self.path)

    def abort(self) -> None:
        """Drop the temporary file."""
        self.stream.close()
        if os.path.exists(self.temp):
            os.unlink(self.temp)


def read_rows(path: str) -> Iterator[dict[str, Any]]:
    """The rows of a scan output: JSON Lines, or Parquet (a file or a folder of partitions)."""
    if path.endswith(".parquet") or os.path.isdir(path):
        yield from read_parquet(path)
        return
    with open(path, "rb") as stream:
        for line in stream:
            if line.strip():
                yield orjson.loads(line)
