"""A large OTLP trace file (the collector's file exporter's lines) gated on every core.

Each line of the file exporter is one export request, and a conversation is a trace (or a
`gen_ai.conversation.id`), so once the lines are cut into runs, each run's conversations can be
loaded, gated and written by a forked worker on its own. The runs are put together in order
when no conversation id, trace or joined span is in two of them; the file's first
conversation, whose note counts every conversation of the file, is made here once all are known.
Anything else (a run that does not load, runs that share a trace, a worker that dies) gives
None, and the caller gates the file the usual way, which also gives any error exactly. The
report is byte for byte what one process writes.

Most conversations of a large trace have one of a few shapes: the same kinds of items in the
same places, the same verdicts and the same tools, differing only in their ids, lines and
conversation id. A worker writes the report of a shape once for a copy of the conversation
whose ids and lines are marks (`_Shapes`), keeps it as a template with holes at the marks, and
fills it for every later conversation of that shape; a template is kept only when filling it
gives the report of the conversation it was made from, byte for byte.
"""

from __future__ import annotations

import mmap
import os
import pickle
import re
import struct
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast

from inspector.commands.common import Encoded, write_element
from inspector.core import parallel
from inspector.core.formats import SESSION_MARKERS
from inspector.core.jsonio import GZIP_MAGIC, MAX_FILE_BYTES
from inspector.core.model import Tool, Transcript, paused_gc
from inspector.core.parallel import POOL_MIN_BYTES, default_jobs, forkable_file
from inspector.core.schema import DEFAULT_BUDGET

if TYPE_CHECKING:
    from inspector.core.formats import otel

#: A conversation's report: its JSON document, and whether its decision blocks.
Report = Callable[[str, Transcript], tuple[dict[str, Any], bool]]
#: Bytes of the file in the smallest run; a file is cut into about sixteen runs a process, so
#: a process that ends its runs early takes another, and a run's conversations, held until the
#: run is written, are a small heap that the next run reuses (four runs a process: some 6k
#: more page faults on a 100 MB trace).
RUN_MIN_BYTES = 1 << 20
RUNS_PER_JOB = 16


@dataclass(frozen=True, slots=True)
class _Run:
    """What a worker sends back of one run: the rest is in its documents' file."""

    ids: list[str]
    links: set[otel.Link]
    #: Bytes of encoded documents written to the run's file.
    size: int
    blocks: bool
    #: The first run's first conversation's inferences, pickled: made by the gate's process.
    first: bytes | None
    pid: int
    #: Conversations whose reports were filled into their shape's template.
    filled: int


@dataclass(frozen=True, slots=True)
class TraceGate:
    """A trace file gated by runs: its conversations' documents, encoded, in order."""

    encoded: Encoded
    #: Whether any conversation's decision blocks.
    blocks: bool
    #: Each run's file of encoded documents, and its size.
    files: list[Any]
    sizes: list[int]
    #: The processes that made runs.
    makers: frozenset[int]
    #: Conversations whose reports were filled into their shape's template.
    filled: int = 0

    def close(self) -> None:
        """Close the runs' files."""
        for handle in self.files:
            handle.close()


#: What a forked worker reads (set before the fork).
_SHARED: dict[str, Any] = {}


def gate_trace_on_cores(
    arg: str,
    path: str,
    report: Report,
    *,
    jobs: int | None,
    level: int,
    tools: Mapping[str, Tool] | None = None,
    budget: float = DEFAULT_BUDGET,
) -> TraceGate | None:
    """Gate an OTLP JSON Lines file on `jobs` processes (None: every core), each loading,
    gating and encoding (`report`, at `level` of the document) runs of its lines; None when
    the file is not one, is smaller than POOL_MIN_BYTES, or cannot be gated so. `tools` and
    `budget`: the extra tools and item budget `report` gates with, which the conversations
    written from templates are judged with (None: no conversation is, as `report`'s are not
    known)."""
    jobs = default_jobs() if jobs is None else jobs
    if not forkable_file(arg, jobs, POOL_MIN_BYTES):
        return None
    try:
        with open(arg, "rb") as handle:
            # Mapped, not read: each worker reads its own runs' pages. A compressed or
            # oversized file goes the usual way, which reads or refuses it.
            if handle.read(2) == GZIP_MAGIC or os.fstat(handle.fileno()).st_size > MAX_FILE_BYTES:
                return None
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    try:
        return _mapped(cast(bytes, mapped), path, report, jobs, level, (tools, budget))
    finally:
        mapped.close()


#: The extra tools and item budget conversations are gated with (tools None: not known).
_Gating = tuple[Mapping[str, Tool] | None, float]


def _mapped(
    data: bytes, path: str, report: Report, jobs: int, level: int, gating: _Gating
) -> TraceGate | None:
    if not any(mark in data[:4096] for mark in SESSION_MARKERS["otel"]):
        return None  # not a trace: its reader is not imported
    from inspector.core.formats import otel

    size = max(RUN_MIN_BYTES, len(data) // (jobs * RUNS_PER_JOB) + 1)
    runs = otel.line_runs(data, size)
    if runs is None:
        return None
    files: list[Any] = []
    try:
        # Closed once read (TraceGate.close), or here when the gate fails.
        files.extend(parallel.rows_file(number) for number in range(len(runs)))
        made = _gate(data, runs, path, report, jobs, level, [f.fileno() for f in files], gating)
    except OSError:  # no memory files, pipes or processes to be had: the usual way
        made = None
    except BaseException:
        for handle in files:
            handle.close()
        raise
    if made is None:
        for handle in files:
            handle.close()
        return None
    first, sizes, blocks, makers, filled = made
    encoded = Encoded(_joined(first, files, sizes, level))
    return TraceGate(encoded, blocks, files, sizes, makers, filled)


#: A run in the queue the workers take runs from: its number and the number of its first line.
_QUEUED = struct.Struct("<Iq")


def _gate(
    data: bytes,
    runs: list[otel.Cut],
    path: str,
    report: Report,
    jobs: int,
    level: int,
    files: list[int],
    gating: _Gating,
) -> tuple[bytes, list[int], bool, frozenset[int], int] | None:
    """Every run made by the workers, then the file's first conversation here: its encoded
    document, each run's bytes of documents, whether any decision blocks, the processes that
    made runs and how many reports were filled into templates (None: the usual way)."""
    from inspector.core.formats import otel

    _SHARED.update(
        data=data, runs=runs, path=path, report=report, level=level, files=files, gating=gating
    )
    workers: list[parallel.Worker] = []
    said = told = taken = queue = -1
    try:
        said, told = os.pipe()
        # Room for every run's word: this process never waits to queue one.
        taken, queue = parallel.word_pipe(_QUEUED.size * len(runs))
        task = (told, taken, _worker_run, files, _QUEUED)
        workers = parallel.fork_workers(_worker, [(queue, *task)] * min(jobs, len(runs)))
        for end in (told, taken):  # the workers hold them
            os.close(end)
        told = taken = -1
        # Each run's first line is counted as it is queued: the workers begin meanwhile.
        for number, (_start, _stop, line) in enumerate(otel.numbered(data, runs)):
            parallel.write_all(queue, _QUEUED.pack(number, line))
        os.close(queue)  # every run is queued: a worker that finds none left ends
        queue = -1
        heard = parallel.hear_runs(said, range(len(runs)), files, _Run)
    except BaseException:  # Ctrl-C, an error: the workers' runs are not wanted
        parallel.end_workers(workers, stop=True)
        raise
    finally:
        for end in (said, told, taken, queue):
            if end >= 0:
                os.close(end)
        _SHARED.clear()
    if heard is None:
        parallel.end_workers(workers, stop=True)
        return None  # a worker that failed or died: the usual way decides
    try:
        return _put_together([heard[number] for number in range(len(runs))], path, report, level)
    finally:
        # Reaped once the first conversation is made: every run is said, so the workers end
        # meanwhile (the kernel freeing their memory is not waited for first).
        parallel.end_workers(workers, stop=False)


def _put_together(
    made: list[_Run], path: str, report: Report, level: int
) -> tuple[bytes, list[int], bool, frozenset[int], int] | None:
    """What `_gate` gives of the runs made, the file's first conversation made here (None:
    the runs cannot be put together)."""
    from inspector.core.formats import otel

    if made[0].first is None:
        return None
    ids = [cid for run in made for cid in run.ids]
    links = [link for run in made for link in run.links]
    if len(set(ids)) != len(ids) or len(set(links)) != len(links):
        return None  # a conversation or a trace in two runs: grouped only by the whole file
    with paused_gc():
        first = otel.build(path, ids[0], pickle.loads(made[0].first), otel.first_notes(path, ids))
        document, blocks = report(path, first)
        encoded: list[bytes] = []
        write_element(document, level, encoded.append)
    blocks = blocks or any(run.blocks for run in made)
    makers = frozenset(run.pid for run in made)
    filled = sum(run.filled for run in made)
    return b"".join(encoded), [run.size for run in made], blocks, makers, filled


def _worker(queue: int, *task: Any) -> None:
    """A worker's life (`parallel.worker_runs`), once it has closed its copy of the queue's
    writing end: the queue ends when this process has queued every run."""
    os.close(queue)
    parallel.worker_runs(*task)


def _joined(first: bytes, files: list[Any], sizes: list[int], level: int) -> Iterator[bytes]:
    """The first document, then each run's, joined as the writer joins a nested array's."""
    separator = b",\n" + b"  " * level
    yield first
    for handle, size in zip(files, sizes, strict=True):
        if size:
            yield separator
            yield from _blocks(handle.fileno(), size)


#: Bytes of a run's documents read at a time: a run read whole would be a fresh buffer of
#: another size for each run, its pages faulted in each time; a block's are reused.
_BLOCK = 1 << 20


def _blocks(handle: int, size: int) -> Iterator[bytes]:
    """The first `size` bytes of a file, in blocks of about `_BLOCK` that end between two
    characters (whole UTF-8, as the writer needs)."""
    done = 0
    while done < size:
        block = os.pread(handle, min(_BLOCK, size - done), done)
        if not block:
            raise OSError("a run's documents' file ended early")
        cut = len(block) if done + len(block) == size else _whole_utf8(block)
        yield block if cut == len(block) else block[:cut]
        done += cut


def _whole_utf8(block: bytes) -> int:
    """Where the block's last character that may be cut off begins (its length when it ends
    with an ASCII byte): a UTF-8 character is at most four bytes, its later ones 0b10xxxxxx."""
    at = len(block) - 1
    if block[at] < 0x80:
        return len(block)
    stop = max(at - 3, 0)
    while at > stop and block[at] & 0xC0 == 0x80:
        at -= 1
    return at or len(block)


def _worker_run(number: int, line: int) -> _Run | None:
    """Load, gate and encode run `number`, whose first line is `line` (the file's first run's
    first conversation is left to the gate's process); None on any error, which the usual way
    gives exactly."""
    start, stop = _SHARED["runs"][number]
    try:
        return _run(number, (start, stop, line))
    except Exception:
        return None


def _run(number: int, run: otel.LineRun) -> _Run | None:
    from inspector.core.formats import otel

    data: bytes = _SHARED["data"]
    path: str = _SHARED["path"]
    level: int = _SHARED["level"]
    separator = b",\n" + b"  " * level
    shapes = _Shapes.of_process(path, _SHARED["report"], level, _SHARED["gating"])
    with paused_gc(), shapes.judging():
        grouped, links = otel.run_conversations(data, run, path)
        ids = list(grouped)
        first = None
        if number == 0:
            if not ids:
                return None  # the file's first conversation is in a later run
            first = pickle.dumps(grouped.pop(ids[0]), pickle.HIGHEST_PROTOCOL)
        out = _Out(_SHARED["files"][number])
        blocks = False
        filled = shapes.filled
        for cid, inferences in grouped.items():
            encoded, blocked = shapes.document(cid, inferences)
            blocks = blocks or blocked
            if out.size or out.pieces:
                out.add(separator)
            out.add(encoded)
        out.flush()
    return _Run(ids, links, out.size, blocks, first, os.getpid(), shapes.filled - filled)


#: Marks a copy of a conversation carries for its ids (call and result ids `c0`, `c1` …,
#: response ids `r0` …) and its conversation id (`v`), each between two `_MARK`s, and for its
#: lines (`_LINE_BASE` + n): plain text no report holds otherwise.
_MARK = "zq9OTELtemplate9qz"
_LINE_BASE = 7_345_678_901_234_000_000
_HOLES = re.compile(
    rb"zq9OTELtemplate9qz(v|c[0-9]+|r[0-9]+)zq9OTELtemplate9qz|(?<![0-9])7345678901234([0-9]{6})(?![0-9])"
)
#: Shapes whose templates a process keeps (a trace of more makes the others the usual way).
MAX_TEMPLATES = 4096
#: Verdicts a process keeps, by tool definitions, name, arguments and status.
_MAX_VERDICTS = 1 << 16
_UNKNOWN = object()


class _Template:
    """A shape's report: bytes between holes, and the value each hole takes (an index into a
    conversation's values: its conversation id, its lines, its call and result ids, then its
    response ids)."""

    __slots__ = ("blocks", "holes", "pieces")

    def __init__(self, pieces: list[bytes], holes: list[int], blocks: bool) -> None:
        self.pieces = pieces
        self.holes = holes
        self.blocks = blocks

    def fill(self, values: list[bytes]) -> bytes:
        """The report of a conversation of this shape with these values."""
        pieces = self.pieces
        out = [pieces[0]]
        for n, hole in enumerate(self.holes, 1):
            out.append(values[hole])
            out.append(pieces[n])
        return b"".join(out)


def _plain(text: str) -> bool:
    """Whether a value is written alike in JSON text and in a message's repr (`'…'`): printable
    ASCII with no quote or backslash, which neither escapes."""
    return (
        text.isascii() and text.isprintable() and not ('"' in text or "'" in text or "\\" in text)
    )


class _Shapes:
    """A process's conversations' reports: made the usual way, or filled into the template
    of their shape (`otel.direct_conversation`, its calls' verdicts, its tools)."""

    _process: _Shapes | None = None

    def __init__(self, path: str, report: Report, level: int, gating: _Gating) -> None:
        self.path = path
        self.report = report
        self.level = level
        self.gating = gating
        self.tools, self.budget = gating
        self.templates: dict[Any, _Template | None] = {}
        self.toolsets: dict[str | None, Any] = {}
        #: Each tool definitions met, by itself (`_one_copy`).
        self.definitions: dict[str, str] = {}
        self.verdicts: dict[tuple[Any, ...], tuple[Any, ...] | None] = {}
        #: By tool definitions and name: the tool set a call is judged with (None: not shared).
        self.judged: dict[tuple[str | None, str], Any] = {}
        #: Reports filled into a template so far.
        self.filled = 0
        # Imported once here, not for every conversation (the trace's reader is imported only
        # for a trace).
        from inspector.core import schema
        from inspector.core.formats import otel
        from inspector.core.gate import gate_item

        self._direct = otel.direct_conversation
        self._gate_item, self._compile = gate_item, schema.compile_schema
        self._python_engine = schema.ENGINE_PY
        self._schema = schema
        #: The file budget each call's verdict is judged in, made afresh for each (`_fresh`).
        self._budget = schema.FileBudget()

    @classmethod
    def of_process(cls, path: str, report: Report, level: int, gating: _Gating) -> _Shapes:
        """This process's shapes (kept across its runs of one file)."""
        found = cls._process
        if found is None or (found.path, found.report, found.level, found.gating) != (
            path,
            report,
            level,
            gating,
        ):
            found = cls._process = cls(path, report, level, gating)
        return found

    def document(self, cid: str, inferences: list[otel.Inference]) -> tuple[bytes, bool]:
        """A conversation's encoded report, and whether its decision blocks."""
        direct = self._direct(inferences) if self.tools is not None else None
        shape = self._shape(cid, direct) if direct is not None else None
        if shape is None:
            return self._usual(cid, inferences)
        key, values, names = shape
        template = self.templates.get(key, _UNKNOWN)
        if template is _UNKNOWN:
            encoded, blocks = self._usual(cid, inferences)
            if len(self.templates) < MAX_TEMPLATES:
                self.templates[key] = self._template(inferences, names, values, encoded, blocks)
            return encoded, blocks
        if template is None:
            return self._usual(cid, inferences)
        assert isinstance(template, _Template)
        self.filled += 1
        return template.fill(values), template.blocks

    def _usual(self, cid: str, inferences: list[otel.Inference]) -> tuple[bytes, bool]:
        from inspector.core.formats import otel

        document, blocks = self.report(self.path, otel.build(self.path, cid, inferences, []))
        encoded: list[bytes] = []
        write_element(document, self.level, encoded.append)
        return b"".join(encoded), blocks

    def _shape(
        self, cid: str, direct: otel.DirectConversation
    ) -> tuple[Any, list[bytes], tuple[list[int], list[str], list[str]]] | None:
        """A conversation's shape, its values (as `_Template.fill` takes them) and its lines,
        call ids and response ids in their order; None when its report is made the usual way
        (a value that is not plain, a verdict a template cannot share)."""
        lines: dict[int, int] = {}
        responses: dict[str, int] = {}
        groups = []
        for line, status, response_id in direct.groups:
            if type(line) is not int:
                return None
            slot = (
                None if response_id is None else responses.setdefault(response_id, len(responses))
            )
            groups.append((lines.setdefault(line, len(lines)), status, slot))
        ids: dict[str, int] = {}
        items: list[tuple[Any, ...]] = []
        definitions = self._one_copy(direct.definitions)
        for group, raw, pointer, derived in direct.items:
            kind = raw["type"]
            marks = tuple([(d.field, d.how, d.detail) for d in derived]) if derived else ()
            if kind == "message":
                items.append((group, pointer, raw["role"], marks))
                continue
            slot = ids.setdefault(raw["call_id"], len(ids))
            if kind == "function_call":
                verdict = self._verdict(definitions, raw)
                if verdict is None:
                    return None
                items.append((group, pointer, slot, raw["name"], raw["status"], marks, verdict))
            else:
                items.append((group, pointer, slot, marks))
        if not (_plain(cid) and all(map(_plain, ids)) and all(map(_plain, responses))):
            return None
        values = [cid, *map(str, lines), *ids, *responses]
        key = (definitions, tuple(groups), tuple(items))
        try:
            hash(key)
        except TypeError:  # a role or name that is not a string
            return None
        return key, [v.encode() for v in values], (list(lines), list(ids), list(responses))

    def _one_copy(self, definitions: str | None) -> str | None:
        """The first copy met of these tool definitions: each conversation parses its own, and
        the keys of the verdicts kept would hold one a conversation (a few KB each, the heap
        growing run after run: 6.5k page faults a worker on a 100 MB trace)."""
        if definitions is None:
            return None
        found = self.definitions.get(definitions)
        if found is None:
            if len(self.definitions) >= _MAX_VERDICTS:
                return definitions
            found = self.definitions[definitions] = definitions
        return found

    def _verdict(self, definitions: str | None, raw: dict[str, Any]) -> tuple[Any, ...] | None:
        """What a call's report shows of its verdict (None: a verdict no template shares)."""
        name = raw["name"]
        memo = (definitions, name, raw["arguments"], raw["status"])
        try:
            found = self.verdicts.get(memo, _UNKNOWN)
        except TypeError:  # a name that is not a string
            return None
        if found is not _UNKNOWN:
            return cast("tuple[Any, ...] | None", found)
        made: tuple[Any, ...] | None = None
        toolset = self._shared_toolset(definitions, name)
        if toolset is not None:
            schema = self._schema
            if schema.current_file_budget() is self._budget:
                self._fresh()
                verdict = self._gate_item(raw, toolset, budget=self.budget)
            else:
                with schema.file_budget():
                    verdict = self._gate_item(raw, toolset, budget=self.budget)
            errors = verdict.errors
            if not errors or not any(issue.keyword == "budget" for issue in errors):
                made = (verdict.verdict, verdict.detail, errors, verdict.tool)
        if len(self.verdicts) < _MAX_VERDICTS:
            self.verdicts[memo] = made
        return made

    def judging(self) -> AbstractContextManager[Any]:
        """The context the verdicts of calls are judged in: this process's one file budget,
        made afresh before each call (a context entered once, not once a call)."""
        return self._schema.file_budget(self._budget)

    def _fresh(self) -> None:
        """Make the file budget as `FileBudget()` makes a new one: each call is judged on its
        own budget, as a conversation of one call would be."""
        schema, budget = self._schema, self._budget
        budget.seconds, budget.steps = schema.DEFAULT_FILE_BUDGET, schema.FILE_STEPS
        budget.started, budget.used = schema.budget_clock(), 0

    def _shared_toolset(self, definitions: str | None, name: str) -> Any:
        """The tool set a call of `name` is judged with, when its verdict may be shared (None:
        its schema is checked by python-jsonschema, whose budget a conversation's calls share)."""
        key = (definitions, name)
        found = self.judged.get(key, _UNKNOWN)
        if found is _UNKNOWN:
            toolset = self._toolset(definitions)
            tool = toolset.tools.get(name)
            shared = (
                tool is None
                or not tool.has_schema
                or self._compile(tool.parameters).engine != self._python_engine
            )
            found = toolset if shared else None
            if len(self.judged) < _MAX_VERDICTS:
                self.judged[key] = found
        return found

    def _toolset(self, definitions: str | None) -> Any:
        """The tool set the gate makes for a conversation of these tool definitions."""
        found = self.toolsets.get(definitions)
        if found is None:
            from inspector.core.formats import otel
            from inspector.core.gate import make_toolset

            tools = MappingProxyType(otel.definitions_tools(definitions))
            transcript = Transcript(self.path, "otel", (), tools=tools)
            found = self.toolsets[definitions] = make_toolset(transcript, self.tools)[0]
        return found

    def _template(
        self,
        inferences: list[otel.Inference],
        names: tuple[list[int], list[str], list[str]],
        values: list[bytes],
        encoded: bytes,
        blocks: bool,
    ) -> _Template | None:
        """The template of a conversation's shape, from the report of a copy of it whose ids,
        lines and conversation id are marks; None unless it fills to `encoded`, the
        conversation's own report, and says the same of blocking."""
        from inspector.core.formats import otel

        lines, ids, responses = names
        calls = {old: f"{_MARK}c{n}{_MARK}" for n, old in enumerate(ids)}

        def call(old: str) -> str:
            # An id read only in messages that are repeats: marked too, never a hole.
            return calls.setdefault(old, f"{_MARK}c{len(calls)}{_MARK}")

        answers = {old: f"{_MARK}r{n}{_MARK}" for n, old in enumerate(responses)}
        marked_lines: dict[int | None, int | None] = {
            old: _LINE_BASE + n for n, old in enumerate(lines)
        }
        try:
            copies = otel.renamed(
                inferences, call, lambda old: answers.get(old, old), marked_lines.__getitem__
            )
            marked = otel.build(self.path, f"{_MARK}v{_MARK}", copies, [])
            document, marked_blocks = self.report(self.path, marked)
            parts: list[bytes] = []
            write_element(document, self.level, parts.append)
        except Exception:  # whatever the copy cannot be made or reported: the usual way
            return None
        text = b"".join(parts)
        pieces, holes, start = [], [], 0
        first_call, first_response = 1 + len(lines), 1 + len(lines) + len(ids)
        for match in _HOLES.finditer(text):
            mark, line = match.group(1), match.group(2)
            if line is not None:
                hole, end = 1 + int(line), first_call
            elif mark == b"v":
                hole, end = 0, 1
            elif mark[:1] == b"c":
                hole, end = first_call + int(mark[1:]), first_response
            else:
                hole, end = first_response + int(mark[1:]), len(values)
            if hole >= end:
                return None  # a mark that is no value of the conversation's
            pieces.append(text[start : match.start()])
            holes.append(hole)
            start = match.end()
        pieces.append(text[start:])
        template = _Template(pieces, holes, marked_blocks)
        if marked_blocks != blocks or template.fill(values) != encoded:
            return None
        return template


class _Out:
    """A run's encoded documents, written to its file a megabyte at a time."""

    def __init__(self, handle: int) -> None:
        self.handle = handle
        self.pieces: list[bytes] = []
        #: Bytes written to the file, and held in `pieces`.
        self.size = self.held = 0

    def add(self, piece: bytes) -> None:
        """Append a piece; write what is held once it is a megabyte (or IOV_MAX pieces)."""
        self.pieces.append(piece)
        self.held += len(piece)
        if self.held >= _FLUSH or len(self.pieces) >= _IOV_MAX:
            self.flush()

    def flush(self) -> None:
        """Write the pieces held to the file, as they are: joining them would copy a megabyte
        into a buffer whose size differs each time, so fresh pages faulted in for every
        flush (some 4k page faults a worker on a 100 MB trace)."""
        pieces, left = self.pieces, self.held
        while left:
            written = os.pwritev(self.handle, pieces, self.size)
            self.size += written
            left -= written
            if left:  # a short write (rare): the rest joined
                pieces = [b"".join(pieces)[-left:]]
        self.pieces = []
        self.held = 0


#: Bytes of encoded documents a worker holds before it writes them to its run's file.
_FLUSH = 1 << 20
#: Pieces one `pwritev` takes at most (Linux's IOV_MAX).
_IOV_MAX = 1024


__all__ = ["RUN_MIN_BYTES", "TraceGate", "gate_trace_on_cores"]
