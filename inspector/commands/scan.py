"""`inspector scan PATH|GLOB…`: gate a fleet of sessions, one row per conversation, and a report.

Files are scanned by a process pool (all cores unless `--jobs`), or on Dask (`--engine dask`).
With `-o OUT`, each finished chunk of files goes at once to OUT.partial (the pool's log, or the
folder of Dask's partitions), which `--resume` reads: files unchanged by size and mtime are not
scanned again. OUT is made from it at the end, in the order of the walk, so an interrupted and
resumed scan writes the same OUT as one that ran through. Without `-o`, rows go to stdout as
JSON Lines.
Exit status: 0 nothing blocks, 1 a conversation blocks a replay or a target rejects one, 2 a file
was unreadable or bad usage, 130/143 interrupted (the log is kept for `--resume`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from inspector.commands.common import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    EXIT_UNREADABLE,
    safe_text,
    target_profile,
)
from inspector.core import scan
from inspector.core.errors import UsageError
from inspector.core.fleet_pool import PoolError
from inspector.core.jsonio import STDIN
from inspector.core.model import Tool

#: Output kinds by -o suffix (the Dask engine writes a folder of Parquet partitions).
OUTPUTS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet"}
REPORTS = {".html": "html", ".htm": "html", ".md": "markdown"}
EXIT_INTERRUPTED: dict[int, int] = {signal.SIGINT: 130, signal.SIGTERM: 143}


class Interrupted(Exception):
    """SIGINT or SIGTERM arrived during the scan."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 1024:
        raise argparse.ArgumentTypeError("give a number of processes from 1 to 1024")
    return value


def add_parser(sub: Any) -> None:
    """Register the scan subcommand."""
    parser = sub.add_parser(
        "scan",
        help="scan a fleet of sessions: one row per conversation, a migration-readiness report",
        description=(
            "Walk folders and globs (gzip included), gate every conversation of every file, and "
            "write one row per conversation (-o OUT.jsonl or OUT.parquet; stdout otherwise), "
            "with a readiness report per target (--report OUT.html or OUT.md)."
        ),
    )
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help="files, folders, globs or fsspec URLs"
    )
    parser.add_argument(
        "--target",
        dest="targets",
        action="extend",
        nargs="+",
        type=target_profile,
        default=[],
        metavar="P",
        help="target providers to judge every conversation against",
    )
    parser.add_argument("--tools", metavar="FILE", help="tool schemas (override the transcripts')")
    parser.add_argument(
        "--jobs", type=_jobs, metavar="N", help="processes (default: every core; 1 runs inline)"
    )
    parser.add_argument("-o", "--output", metavar="OUT", help="OUT.jsonl or OUT.parquet")
    parser.add_argument("--report", metavar="OUT", help="readiness report: OUT.html or OUT.md")
    parser.add_argument(
        "--resume", action="store_true", help="skip files already in OUT (same size and mtime)"
    )
    parser.add_argument(
        "--engine", choices=("pool", "dask"), default="pool", help="process pool or Dask"
    )
    parser.add_argument(
        "--scheduler", metavar="ADDRESS", help="a Dask scheduler (default: a local cluster)"
    )
    parser.add_argument(
        "--no-redact", action="store_true", help="keep secrets in the report as they are"
    )
    parser.set_defaults(run=run)


def _check_usage(args: argparse.Namespace) -> None:
    if STDIN in args.paths:
        raise UsageError("scan reads files, not standard input")
    if args.scheduler and args.engine != "dask":
        raise UsageError("--scheduler needs --engine dask")
    if args.resume and not args.output:
        raise UsageError("--resume needs -o OUT (the output it resumes)")
    if args.report and Path(args.report).suffix.lower() not in REPORTS:
        raise UsageError("--report must end in .html or .md")
    if args.engine == "dask":
        if not args.output:
            raise UsageError("--engine dask needs -o FOLDER (it writes Parquet partitions)")
        if os.path.isfile(args.output):
            raise UsageError(f"-o {args.output} is a file; Dask writes a folder of partitions")
    elif args.output and Path(args.output).suffix.lower() not in OUTPUTS:
        raise UsageError("-o must end in .jsonl or .parquet")
    wanted = {"dask": "dask.distributed"}.get(args.engine)
    if (args.output and Path(args.output).suffix.lower() == ".parquet") or args.engine == "dask":
        for module in ("pyarrow.parquet", *([wanted] if wanted else [])):
            try:
                importlib.import_module(module)
            except ImportError:
                raise UsageError(
                    f"{module.split('.')[0]} is not installed: the Dask engine and Parquet "
                    "output need pip install 'replay-inspector[fleet]'"
                ) from None


class Progress:
    """One status line on a terminal: files done of total, items per second, time left."""

    def __init__(
        self, total: int, err: TextIO, clock: Callable[[], float] = time.monotonic
    ) -> None:
        isatty = getattr(err, "isatty", None)
        try:
            self.enabled = bool(isatty and isatty())
        except (ValueError, OSError):
            self.enabled = False
        self.total, self.err, self.clock = total, err, clock
        self.files = self.items = self.skipped = 0
        #: Whether the walk is still finding files (`total` is then a count so far).
        self.counting = False
        self.start = clock()
        self.shown = -1.0

    def advance(self, files: int, items: int, *, skipped: bool = False) -> None:
        """Count finished files (skipped ones do not count toward the speed)."""
        self.files += files
        if skipped:
            self.skipped += files
        else:
            self.items += items
        now = self.clock()
        if self.enabled and (now - self.shown >= 0.2 or self.files == self.total):
            self.shown = now
            self.err.write("\r" + self.line(now) + "\x1b[K")
            self.err.flush()

    def line(self, now: float) -> str:
        """The status line at time `now`."""
        elapsed = max(now - self.start, 1e-9)
        scanned = self.files - self.skipped
        rate = self.items / elapsed
        left = self.total - self.files
        eta = "--:--" if not scanned else _clock(left * elapsed / scanned)
        width = 24
        filled = width * self.files // max(self.total, 1)
        bar = "#" * filled + "." * (width - filled)
        total = f"{self.total:,}{'+' if self.counting else ''}"
        return f"scan [{bar}] {self.files:,}/{total} files  {rate:,.0f} items/s  ETA {eta}"

    def finish(self) -> None:
        """End the status line."""
        if self.enabled:
            self.err.write("\n")
            self.err.flush()


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class Walk:
    """The files to scan, found as the scan reads them: the pool starts on the first ones
    while the walk goes on (a bucket's listing can take longer than scanning its first files).
    """

    def __init__(self, arguments: list[str], progress: Progress) -> None:
        self.arguments = arguments
        self.progress = progress
        #: The files found so far, in walk order.
        self.found: list[str] = []
        self.ended = False

    def __iter__(self) -> Iterator[str]:
        if self.ended:
            yield from self.found
            return
        self.progress.counting = True
        for path in scan.walk(self.arguments):
            self.found.append(path)
            self.progress.total = len(self.found)
            yield path
        self.ended = True
        self.progress.counting = False

    def finish(self) -> list[str]:
        """Walk to the end now; every file found."""
        for _ in self:
            pass
        return self.found


def _sink(path: str) -> Any:
    if OUTPUTS[Path(path).suffix.lower()] == "parquet":
        return scan.ParquetSink(path)
    return scan.JsonlSink(path)


def _scan_pool(
    args: argparse.Namespace,
    walk: Walk,
    options: scan.ScanOptions,
    fleet: scan.Fleet,
    progress: Progress,
    out: TextIO,
) -> None:
    jobs = args.jobs or scan.default_jobs()
    if not args.output:
        for done in scan.run_pool(walk, options, jobs):
            out.write(done.data.decode("utf-8"))
            _count(done, fleet, progress)
        out.flush()
        return
    log = _open_log(args)
    completed = False
    try:
        resumed = (lambda path: log.resumed(path, options.targets)) if args.resume else None
        in_order = log.fresh
        for done in scan.run_pool(walk, options, jobs, resumed=resumed):
            if done.resumed:
                in_order = False
            else:
                log.append_chunk(done)
            _count(done, fleet, progress)
        if in_order and OUTPUTS[Path(args.output).suffix.lower()] == "jsonl":
            # Every file was scanned and logged in walk order: the log is OUT already.
            log.publish(args.output)
            completed = True
            return
        sink = _sink(args.output)
        try:
            for path in walk.found:
                if isinstance(sink, scan.JsonlSink):
                    sink.add_lines(log.raw(path))  # bytes as logged: nothing parsed again
                else:
                    for row in log.rows(path):
                        sink.add(row)
        except BaseException:
            sink.abort()
            raise
        sink.close()
        completed = True
    finally:
        log.close(remove=completed)


def _count(done: scan.Chunk, fleet: scan.Fleet, progress: Progress) -> None:
    fleet.merge(done.tally)
    progress.advance(len(done.files), done.items, skipped=done.resumed)


def _open_log(args: argparse.Namespace) -> scan.ScanLog:
    partial = f"{args.output}.partial"
    seeded = args.resume and not os.path.exists(partial) and os.path.exists(args.output)
    log = scan.ScanLog(partial, resume=args.resume)
    if seeded:
        # A finished output: its rows count as done, the new or changed files are added.
        log.seed(scan.read_rows(args.output))
    return log


def _scan_dask(
    args: argparse.Namespace,
    paths: list[str],
    options: scan.ScanOptions,
    fleet: scan.Fleet,
    progress: Progress,
) -> None:
    import shutil

    output = os.path.abspath(args.output)
    os.makedirs(os.path.dirname(output), exist_ok=True)
    if os.path.isdir(output) and any(not n.startswith("part-") for n in os.listdir(output)):
        raise UsageError(f"-o {args.output} holds other files than a scan's partitions")
    # The partitions go to OUT.partial as they finish; it becomes OUT at the end, and is kept
    # when the scan is stopped, for --resume.
    work = f"{output}.partial"
    if os.path.isdir(work) and not args.resume:
        shutil.rmtree(work)
    if not os.path.isdir(work) and args.resume and os.path.isdir(output):
        shutil.copytree(output, work)  # a finished scan resumed: its partitions may be kept
    os.makedirs(work, exist_ok=True)
    merged = scan.InOrder(fleet)
    planned = set()
    for number, part in scan.run_dask(
        paths, options, work, scheduler=args.scheduler, jobs=args.jobs, resume=args.resume
    ):
        planned.add(part["part"])
        merged.add(number, part["fleet"])
        progress.advance(part["files"], part["items"], skipped=part["resumed"])
    for name in os.listdir(work):
        if name not in planned:  # a partition of an older plan, or a write cut short
            os.unlink(os.path.join(work, name))
    if os.path.isdir(output):
        shutil.rmtree(output)
    os.replace(work, output)


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise Interrupted(signum)


def _summary(fleet: scan.Fleet) -> str:
    decided = ", ".join(f"{d} {fleet.decisions.get(d, 0):,}" for d in scan.DECISIONS)
    text = (
        f"scanned {fleet.files:,} files: {fleet.conversations:,} conversations ({decided}), "
        f"{fleet.unreadable:,} unreadable"
    )
    for name in fleet.targets:
        tally = fleet.per_target[name]
        text += (
            f"; {name}: {fleet.verdict(name)} (rejected {tally.rejected:,}, "
            f"changed {tally.changed:,})"
        )
    return text


def _write_report(args: argparse.Namespace, fleet: scan.Fleet) -> None:
    from inspector.commands.report import write_atomic
    from inspector.core.report.readiness import render_readiness
    from inspector.core.report.redact import Redactor

    fmt = REPORTS[Path(args.report).suffix.lower()]
    base = os.path.dirname(os.path.abspath(args.report))
    text = render_readiness(
        fleet, Redactor(enabled=not args.no_redact), fmt=fmt, link_base=base, tools=args.tools
    )
    write_atomic(args.report, text)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Scan every file, write the rows and the report; return the exit status."""
    try:
        _check_usage(args)
    except UsageError as exc:
        err.write(f"inspector scan: error: {safe_text(str(exc))}\n")
        return EXIT_UNREADABLE
    tools: dict[str, Tool] = {}
    if args.tools:
        # Only then: the gate command's module brings its report documents and its own pools.
        from inspector.commands.gate import load_tool_option

        loaded = load_tool_option(args.tools, err)
        if loaded is None:
            return EXIT_UNREADABLE
        tools = loaded
    targets = tuple(dict.fromkeys(p.name for p in args.targets))
    options = scan.ScanOptions(targets=targets, tools=tools)
    progress = Progress(0, err)
    walk = Walk(args.paths, progress)
    written = [name for name in (args.output, args.report) if name and os.path.exists(name)]
    if written or args.engine == "dask":
        # An output that exists may be one of the inputs: every input is known before
        # anything is written. (One that does not exist yet is none of them.)
        inputs = [*walk.finish(), *([args.tools] if args.tools else [])]
        for name in written:
            if _is_input(name, inputs):
                err.write(f"inspector scan: error: {safe_text(name)} is an input file\n")
                return EXIT_UNREADABLE
    fleet = scan.Fleet(targets=targets)
    previous = {s: signal.getsignal(s) for s in EXIT_INTERRUPTED}
    in_main = _main_thread()
    try:
        if in_main:
            for signum in EXIT_INTERRUPTED:
                signal.signal(signum, _raise_interrupt)
        if args.engine == "dask":
            _scan_dask(args, walk.finish(), options, fleet, progress)
        else:
            _scan_pool(args, walk, options, fleet, progress, out)
        progress.finish()
        if args.report:
            _write_report(args, fleet)
    except (Interrupted, KeyboardInterrupt) as exc:
        progress.finish()
        signum = exc.signum if isinstance(exc, Interrupted) else int(signal.SIGINT)
        err.write(f"inspector scan: interrupted after {progress.files:,} files{_kept(args)}\n")
        return EXIT_INTERRUPTED[signum]
    except UsageError as exc:
        err.write(f"inspector scan: error: {safe_text(str(exc))}\n")
        return EXIT_UNREADABLE
    except PoolError as exc:
        progress.finish()
        err.write(f"inspector scan: error: {safe_text(str(exc))}{_kept(args)}\n")
        return EXIT_UNREADABLE
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        reason = exc.strerror or str(exc)
        err.write(f"inspector scan: cannot write{safe_text(where)}: {safe_text(reason)}\n")
        return EXIT_UNREADABLE
    finally:
        if in_main:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
    err.write(_summary(fleet) + "\n")
    if fleet.unreadable:
        return EXIT_UNREADABLE
    blocked = fleet.decisions.get("unsafe", 0) or any(
        fleet.per_target[name].rejected for name in targets
    )
    return EXIT_FINDINGS if blocked else EXIT_CLEAN


def _kept(args: argparse.Namespace) -> str:
    """What a stopped scan leaves for --resume, as the end of its message."""
    return f"; {safe_text(args.output)}.partial is kept for --resume" if args.output else ""


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _is_input(name: str, inputs: list[str]) -> bool:
    """Whether `name` is one of the inputs (the same file, by device and inode)."""
    try:
        target = os.stat(name)
    except OSError:
        return False  # not there yet, so no input is it: no need to look at each input
    for path in inputs:
        try:
            info = os.stat(path)
        except OSError:
            continue
        if (info.st_dev, info.st_ino) == (target.st_dev, target.st_ino):
            return True
    return False


__all__ = ["Progress", "add_parser", "run"]
