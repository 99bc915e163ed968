"""Fleet scan throughput: files per second with --jobs 1, --jobs 2 and Dask local, side by side.

Two fleets: 2,000 small files (the samples, mixed formats, some gzipped and some unreadable, as
the scan test makes them) and 20 large JSONL logs from `synthetic.py`. Each command is a whole
`inspector scan … --target openai` process, the runs interleaved and the median taken. Peak RSS
is the scan's main process (`measure.run_measured`): the one that writes the rows and holds the
aggregates, which is what must stay flat in the number of files; workers are separate processes.
Dask's time includes starting its LocalCluster (2 worker processes). Children run with bytecode
caching on (into the scratch folder, written by an untimed first run), as an installed package
does: compiling the package's sources at every start would add a fixed half second or so to
every figure, which no real scan pays and which hides how the scan itself scales.

The parent's CPU time is measured apart (`resource.getrusage`: RUSAGE_SELF in the scan's main
process from the moment the scan's modules are imported and its target profile loaded, against
RUSAGE_CHILDREN, its reaped workers): per file, and as a share of all the CPU the scan used.
Unlike files per second it does not depend on what else the machine runs, and a parent that
uses a few percent of the CPU leaves the second core to the second worker, which is what makes
`--jobs 2` near twice as fast on an idle machine. For Dask the parent also runs the scheduler.

The speed-up is also predicted from CPU accounting, which load changes far less than wall
time (Amdahl's law over the parts that are measured): `--jobs 1` takes its whole CPU time
(RUSAGE_SELF from the interpreter's start); `--jobs 2` takes the parent's CPU until it hands
out its first task (start-up, imports), the busiest worker's CPU up to its last task's end
(each worker logs it, getrusage, in a debug log beside the output), half the parent's CPU
while the workers run (it shares the two cores with them) and the parent's CPU after the
last result. The prediction is the first over the sum of the others. The total CPU of
`--jobs 2` (every process, from the interpreter's start) over that of `--jobs 1` says how much
work the pool adds to the same scan: what it hands over, what each worker repeats, and the two
cores slowing each other. That last part is measured apart on the small files, with no pool:
one process scanning them alone against each of two scanning them at once.

`--phases` instead times where a scan of the small files goes, for `--jobs 1` and `--jobs 2`
(interleaved, medians): each phase's end in ms from the moment the process was spawned, with
the main process's CPU by then (python's start, the imports, preloading, forking, the walk's
first file, the first task handed out and started in each worker, the first and last results,
the workers joined, the output published, the exit), and per worker its CPU, the time it waited
for a task and its page faults. The load average before and after says how quiet the machine was.

`--start` counts, with callgrind (valgrind must be installed), the instructions of the serial
start every `--jobs 2` worker waits for: the main process from its spawn to where its pool
would fork (the command line parsed, every format module preloaded, the target profile read),
beside python's own start (a process that ends at once, as the scan's does: no teardown).
Load does not change the count.

    python tests/benchmarks/bench_scan.py [--quick] [--runs N] [--phases | --start]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks import synthetic  # noqa: E402
from tests.benchmarks.measure import run_measured  # noqa: E402
from tests.core.test_scan import make_fleet  # noqa: E402

ENGINES = {
    "--jobs 1": ["--jobs", "1", "-o", "{out}/rows.jsonl"],
    "--jobs 2": ["--jobs", "2", "-o", "{out}/rows.jsonl"],
    "dask local (2 workers)": ["--engine", "dask", "--jobs", "2", "-o", "{out}/parts"],
}
#: Items per large file (2.9 MB): 20 of them take about 11 s with one job on an idle machine,
#: and `--runs 3` of everything under 3 minutes.
LARGE_ITEMS = 20_000

#: Runs the scan as `python -m inspector` does (the collector off), then writes the CPU seconds
#: of this process since the scan's modules were imported and its target profile loaded (fixed
#: costs, the same for every engine), and of its reaped children.
#: Each pool worker (forked from it, so with these wrappers in place) appends its CPU seconds
#: at each task's end to argv[1].workers; the parent writes its own at its first hand-out of
#: work and at the pool's end (the Amdahl accounting).
DRIVER = """\
import gc, os, resource, sys
import inspector.commands.scan
from inspector.core import fleet_pool
from inspector.cli import run
from inspector.core import scan
from inspector.core.targets import get_profile

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

get_profile("openai")
start = cpu()
marks = {}
worker_chunk = scan._worker_chunk

def traced_chunk(paths):
    chunk = worker_chunk(paths)
    with open(sys.argv[1] + ".workers", "a") as log:
        log.write(f"{os.getpid()} {cpu()}\\n")
    return chunk

scan._worker_chunk = traced_chunk
submit = fleet_pool.Pool.submit

def traced_submit(self, *args, **kwargs):
    marks.setdefault("first_task", cpu())
    return submit(self, *args, **kwargs)

fleet_pool.Pool.submit = traced_submit
run_pool = scan.run_pool

def traced_pool(*args, **kwargs):
    yield from run_pool(*args, **kwargs)
    marks["pool_end"] = cpu()

scan.run_pool = traced_pool
gc.disable()
status = run(sys.argv[2:])
sys.stdout.flush()
end = cpu()
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as report:
    report.write(f"{end - start} {kids.ru_utime + kids.ru_stime} {end} ")
    report.write(f"{marks.get('first_task', end)} {marks.get('pool_end', end)}")
os._exit(status)
"""


#: The two cores slowing each other, with no pool: a process scans the files (every module
#: imported and every cache warm), then forks one child that scans them alone and two that
#: scan them at once; prints the CPU seconds of the lone child and of each of the pair.
CONTENTION = """\
import gc, os, resource, sys
from inspector.core import scan

def children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime

gc.disable()
paths = list(scan.walk([sys.argv[1]]))
options = scan.ScanOptions(targets=("openai",))
scan.preload(options.targets)

def work():
    for start in range(0, len(paths), scan.CHUNK_FILES):
        scan.scan_chunk(paths[start : start + scan.CHUNK_FILES], options)

work()
figures = []
for count in (1, 2):
    before = children()
    pids = []
    for _ in range(count):
        pid = os.fork()
        if pid == 0:
            work()
            os._exit(0)
        pids.append(pid)
    for pid in pids:
        os.waitpid(pid, 0)
    figures.append((children() - before) / count)
print(*figures)
"""


def _contention(folder: Path) -> tuple[float, float]:
    """CPU seconds of one process scanning `folder` alone, and of each of two at once."""
    command = [sys.executable, "-c", CONTENTION, str(folder)]
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    alone, paired = (float(v) for v in done.stdout.split())
    return alone, paired


@dataclass(frozen=True, slots=True)
class Run:
    """One scan: wall seconds, peak RSS of its main process, CPU seconds of parent and children,
    and its CPU critical path (the Amdahl accounting; for one job, all its CPU)."""

    seconds: float
    peak_rss: int
    parent_cpu: float
    children_cpu: float
    critical_cpu: float
    #: All the CPU the scan used, its main process from the interpreter's start.
    total_cpu: float


#: Runs `python -m inspector ARGS…` (argv[2:]) as the entry point does, appending to argv[1]
#: one line per mark: pid, phase, CLOCK_MONOTONIC ns, the process's CPU seconds. The pool's and
#: the scan's functions are wrapped before the command starts; forked workers inherit the
#: wrappers. Each process writes its marks in one write at its end (O_APPEND: lines never mix).
PHASES = """\
import os, resource, sys, time
SPAWNED = time.monotonic_ns()

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

marks = [(os.getpid(), "python started", SPAWNED, cpu())]

def mark(name):
    marks.append((os.getpid(), name, time.monotonic_ns(), cpu()))

import inspector.__main__ as entry
import inspector.cli
mark("cli imported")
import inspector.commands.scan as command
mark("scan command imported")
from inspector.core import fleet_pool, scan

def write(extra=""):
    usage = resource.getrusage(resource.RUSAGE_SELF)
    lines = "".join("%d %s|%d %.6f\\n" % m for m in marks)
    lines += "%d faults %d%s|0 0\\n" % (os.getpid(), usage.ru_minflt, extra)
    fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, lines.encode())
    os.close(fd)
    marks.clear()

def around(owner, name, before, after=None):
    inner = getattr(owner, name)

    def wrapped(*args, **kwargs):
        if before:
            mark(before)
        try:
            return inner(*args, **kwargs)
        finally:
            if after:
                mark(after)

    setattr(owner, name, wrapped)

around(command, "run", "command started")
around(scan, "preload", "preload started", "preloaded")
around(fleet_pool.Pool, "__init__", "", "workers forked")
around(scan, "_worker_chunk", "task started", "task ended")
around(fleet_pool.Pool, "close", "", "workers joined")
around(scan.ScanLog, "publish", "", "output published")
walk = scan.walk

def marked_walk(arguments):
    found = False
    for path in walk(arguments):
        if not found:
            mark("walk's first file")
            found = True
        yield path
    mark("walk ended")

scan.walk = marked_walk
submit, finished = fleet_pool.Pool.submit, fleet_pool.Pool.finished

def marked_submit(self, *args):
    if not any(m[1] == "first task handed out" for m in marks):
        mark("first task handed out")
    submit(self, *args)

def marked_finished(self):
    for result in finished(self):
        mark("result")
        yield result

fleet_pool.Pool.submit, fleet_pool.Pool.finished = marked_submit, marked_finished
read, serve, waited = fleet_pool._read_exactly, fleet_pool._serve, [0]

def timed_read(fd, size):
    start = time.monotonic_ns()
    try:
        return read(fd, size)
    finally:
        waited[0] += time.monotonic_ns() - start

def marked_serve(*args):
    marks[:] = []
    mark("worker started")
    fleet_pool._read_exactly = timed_read
    try:
        return serve(*args)
    finally:
        mark("worker ended")
        write(" waited %.1f" % (waited[0] / 1e6))

fleet_pool._serve = marked_serve
end = os._exit
parent = os.getpid()

def marked_exit(status):
    if os.getpid() == parent:
        mark("exit")
        write()
    end(status)

os._exit = marked_exit
entry.main(sys.argv[2:])
"""

#: Parent phases in the order a pooled scan passes them ("result" marks give the first and last).
PARENT_PHASES = (
    "python started", "cli imported", "scan command imported", "command started",
    "preload started", "preloaded", "workers forked", "walk's first file",
    "first task handed out", "first result", "walk ended", "last result", "workers joined",
    "output published", "exit",
)  # fmt: skip


def _phase_run(folder: Path, out: Path, jobs: int) -> dict[str, float]:
    """One scan through PHASES: each phase's end in ms after the spawn (and `cpu …` the parent's
    CPU ms by then), and per worker (`w0 …`, `w1 …`, the first to start first) its marks."""
    log = out / "phases"
    scan = ["scan", str(folder), "--target", "openai", "--jobs", str(jobs)]
    command = [sys.executable, "-c", PHASES, str(log), *scan, "-o", str(out / "rows.jsonl")]
    spawned = time.monotonic_ns()
    done = subprocess.run(command, capture_output=True, cwd=ROOT)
    ended = time.monotonic_ns()
    assert done.returncode in (0, 1, 2), done.stderr
    by_pid: dict[int, list[tuple[str, int, float]]] = {}
    for line in log.read_text().splitlines():
        head, tail = line.split("|")
        who, what = head.split(" ", 1)
        when, used = tail.split()
        by_pid.setdefault(int(who), []).append((what, int(when), float(used)))
    (parent,) = [p for p, m in by_pid.items() if m[0][0] == "python started"]
    figures = {"total": (ended - spawned) / 1e6}
    marks = by_pid.pop(parent)
    results = [m for m in marks if m[0] == "result"]
    if results:
        marks += [("first result", *results[0][1:]), ("last result", *results[-1][1:])]
    for name, ns, seconds in marks:
        if name in PARENT_PHASES and name not in figures:
            figures[name] = (ns - spawned) / 1e6
            figures[f"cpu {name}"] = seconds * 1e3
    starts = sorted(by_pid, key=lambda p: by_pid[p][0][1])
    for number, pid in enumerate(starts):
        worker = by_pid[pid]
        times = {name: ns for name, ns, _ in worker}  # the last of each name
        cpu = [s for name, _, s in worker if name in ("worker started", "worker ended")]
        tasks = [ns for name, ns, _ in worker if name == "task started"]
        faults = next(n for n, _, _ in worker if n.startswith("faults")).split()
        figures[f"w{number} started"] = (times["worker started"] - spawned) / 1e6
        figures[f"w{number} first task started"] = (min(tasks) - spawned) / 1e6
        figures[f"w{number} last task ended"] = (times["task ended"] - spawned) / 1e6
        figures[f"w{number} ended"] = (times["worker ended"] - spawned) / 1e6
        figures[f"w{number} cpu"] = 1e3 * (cpu[-1] - cpu[0])
        figures[f"w{number} tasks"] = len(tasks)
        figures[f"w{number} waited for tasks"] = float(faults[3])
        figures[f"w{number} faults"] = float(faults[1])
    figures["parent faults"] = float(
        next(n for n, _, _ in marks if n.startswith("faults")).split()[1]
    )
    return figures


def _phases(scratch: Path, folder: Path, runs: int) -> None:
    """Print where the time of a scan of `folder` goes, for --jobs 1 and --jobs 2."""
    measured: dict[int, list[dict[str, float]]] = {1: [], 2: []}
    for jobs in measured:  # untimed: writes the bytecode caches of every module either imports
        warm = scratch / f"phases-{jobs}-warm"
        warm.mkdir()
        _phase_run(folder, warm, jobs)
    load = os.getloadavg()[0]
    for run in range(runs):
        for jobs in measured:
            out = scratch / f"phases-{jobs}-{run}"
            out.mkdir()
            measured[jobs].append(_phase_run(folder, out, jobs))
    print(f"load average (1 min) before {load:.2f}, after {os.getloadavg()[0]:.2f}")
    for jobs, results in measured.items():
        print(f"--jobs {jobs}: ms after the spawn (median of {runs}), main process's CPU ms")
        names = list(dict.fromkeys(k for r in results for k in r if not k.startswith("cpu ")))
        rows = [(statistics.median(r[n] for r in results if n in r), n) for n in names]
        # Marks in time order; then counts: CPU ms, tasks, ms waited for a task, page faults.
        moments = (*PARENT_PHASES, "total")
        timeline = [(v, n) for v, n in rows if n in moments or n.endswith(("started", "ended"))]
        for value, name in sorted(timeline):
            cpu = [r[f"cpu {name}"] for r in results if f"cpu {name}" in r]
            said = f"  cpu {statistics.median(cpu):7.1f}" if cpu else ""
            print(f"  {name:<24} {value:8.1f}{said}")
        for value, name in rows:
            if (value, name) not in timeline:
                print(f"  {name:<24} {value:8.1f}")


#: Runs `python -m inspector ARGS…` and ends the process where its pool would fork.
TO_THE_FORK = """\
import os, sys
from inspector.core import fleet_pool

def stop(*args, **kwargs):
    os._exit(0)

fleet_pool.Pool.__init__ = stop
import inspector.__main__ as entry
entry.main(sys.argv[1:])
"""


def _instructions(command: list[str]) -> int:
    """Instructions one run of `command` executes (callgrind's total)."""
    valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    done = subprocess.run([*valgrind, *command], capture_output=True, text=True, cwd=ROOT)
    found = re.search(r"Collected : (\d+)", done.stderr)
    assert found, done.stderr[-2000:]
    return int(found.group(1))


def _start(folder: Path, out: Path) -> None:
    """Print the instructions of a --jobs 2 scan's main process up to its fork."""
    scan = ["scan", str(folder), "--target", "openai", "--jobs", "2", "-o", str(out / "rows.jsonl")]
    subprocess.run([sys.executable, "-c", TO_THE_FORK, *scan], check=True, cwd=ROOT)  # caches
    bare = _instructions([sys.executable, "-c", "import os; os._exit(0)"])
    forked = _instructions([sys.executable, "-c", TO_THE_FORK, *scan])
    print(f"python's start alone: {bare / 1e6:,.1f} M instructions")
    print(f"scan --jobs 2, the main process up to its fork: {forked / 1e6:,.1f} M instructions")


def _command(folder: Path, out: Path, engine: str) -> list[str]:
    extra = [a.format(out=out) for a in ENGINES[engine]]
    scan = ["scan", str(folder), "--target", "openai", *extra]
    return [sys.executable, "-c", DRIVER, str(out / "cpu"), *scan]


def _run(folder: Path, out: Path, engine: str) -> Run:
    measured = run_measured(_command(folder, out, engine), ok=(0, 1, 2))
    parent, children, total, first_task, pool_end = (
        float(v) for v in (out / "cpu").read_text().split()
    )
    busiest: dict[str, float] = {}
    log = out / "cpu.workers"
    for line in log.read_text().splitlines() if log.exists() else []:
        pid, seconds = line.split()
        busiest[pid] = max(busiest.get(pid, 0.0), float(seconds))
    if busiest:
        during = pool_end - first_task
        critical = first_task + max(busiest.values()) + during / 2 + (total - pool_end)
    else:
        critical = total
    return Run(measured.seconds, measured.peak_rss, parent, children, critical, total + children)


def _fleets(scratch: Path, quick: bool, *, large_too: bool = True) -> dict[str, tuple[Path, int]]:
    small = scratch / "small"
    count = 200 if quick else 2_000
    make_fleet(small, count)
    if not large_too:
        return {f"{count:,} small files": (small, count)}
    large = scratch / "large"
    large.mkdir()
    items = 2_000 if quick else LARGE_ITEMS
    for number in range(20):
        synthetic.write_jsonl(large / f"session-{number:02d}.jsonl", items)
    size = sum(p.stat().st_size for p in large.iterdir()) / 20 / 1e6
    return {
        f"{count:,} small files": (small, count),
        f"20 large files ({size:.1f} MB, {items:,} items each)": (large, 20),
    }


def main() -> int:
    """Run every engine on both fleets and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small fleets, one run")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (median)")
    parser.add_argument(
        "--phases", action="store_true", help="where the small files' scan goes, phase by phase"
    )
    parser.add_argument(
        "--start", action="store_true", help="instructions before a --jobs 2 scan forks"
    )
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    with tempfile.TemporaryDirectory(prefix="bench-scan-") as scratch_name:
        scratch = Path(scratch_name)
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
        fleets = _fleets(scratch, args.quick, large_too=not (args.phases or args.start))
        if args.start:
            _start(fleets[next(iter(fleets))][0], scratch)
            return 0
        warm = scratch / "warm-up"
        warm.mkdir()
        _run(ROOT / "samples" / "logs", warm, "--jobs 1")  # writes the bytecode caches
        if args.phases:
            _phases(scratch, fleets[next(iter(fleets))][0], runs)
            return 0
        rows = []
        made = 0
        for label, (folder, files) in fleets.items():
            measured: dict[str, list[Run]] = {e: [] for e in ENGINES}
            for _ in range(runs):
                for engine in ENGINES:  # interleaved: a slow moment hits every engine alike
                    made += 1
                    out = scratch / f"out-{made}"
                    out.mkdir()
                    measured[engine].append(_run(folder, out, engine))
            for engine, results in measured.items():
                seconds = statistics.median(m.seconds for m in results)
                peak = statistics.median(m.peak_rss for m in results) / 1e6
                per_file = 1e3 * statistics.median(m.parent_cpu for m in results) / files
                share = statistics.median(
                    m.parent_cpu / max(m.parent_cpu + m.children_cpu, 1e-9) for m in results
                )
                rows.append((label, engine, files / seconds, seconds, peak, per_file, share))
            one = statistics.median(m.seconds for m in measured["--jobs 1"])
            two = statistics.median(m.seconds for m in measured["--jobs 2"])
            rows.append(
                (label, "speed-up --jobs 2 ÷ --jobs 1 (target ≥ 1.7)", one / two, 0, 0, 0, 0)
            )
            pooled = measured["--jobs 2"]
            parent = statistics.median(m.parent_cpu for m in pooled)
            total = statistics.median(m.parent_cpu + m.children_cpu for m in pooled)
            said = (
                f"--jobs 2: the parent used {1e3 * parent / files:.3f} ms of CPU per file, "
                f"{100 * parent / max(total, 1e-9):.1f}% of the scan's {total:.2f} CPU s"
            )
            rows.append((label, said, 0, 0, 0, 0, 0))
            cpu_one = statistics.median(m.critical_cpu for m in measured["--jobs 1"])
            cpu_two = statistics.median(m.critical_cpu for m in pooled)
            said = (
                f"CPU accounting: --jobs 1 {cpu_one:.2f} s, --jobs 2 critical path "
                f"{cpu_two:.2f} s, predicted speed-up {cpu_one / max(cpu_two, 1e-9):.2f}×"
            )
            rows.append((label, said, 0, 0, 0, 0, 0))
            total_one = statistics.median(m.total_cpu for m in measured["--jobs 1"])
            total_two = statistics.median(m.total_cpu for m in pooled)
            said = (
                f"total CPU of the same work: --jobs 1 {total_one:.2f} s, --jobs 2 "
                f"{total_two:.2f} s ({total_two / max(total_one, 1e-9):.2f}×)"
            )
            rows.append((label, said, 0, 0, 0, 0, 0))
            if folder.name != "small":
                continue  # each pass over the large files takes as long as a scan
            pairs = [_contention(folder) for _ in range(runs)]
            alone = statistics.median(a for a, _ in pairs)
            paired = statistics.median(p for _, p in pairs)
            said = (
                f"no pool, caches warm: one process alone {alone:.2f} CPU s, each of two at once "
                f"{paired:.2f} CPU s ({paired / max(alone, 1e-9):.2f}×: the cores slowing "
                "each other, which no change to the scan removes)"
            )
            rows.append((label, said, 0, 0, 0, 0, 0))
    print(
        f"{'fleet':<44} {'engine':<44} {'files/s':>9} {'seconds':>8} {'peak MB':>8} "
        f"{'parent ms/file':>14} {'parent CPU':>10}"
    )
    for label, engine, rate, seconds, peak, per_file, share in rows:
        if seconds:
            print(
                f"{label:<44} {engine:<44} {rate:>9.1f} {seconds:>8.2f} {peak:>8.1f} "
                f"{per_file:>14.3f} {100 * share:>9.1f}%"
            )
        elif rate:
            print(f"{label:<44} {engine:<44} {rate:>8.2f}×")
        else:
            print(f"{label:<44} {engine}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
