"""Fleet scan throughput: files per second with --jobs 1, --jobs 2 and Dask local, side by side.

Two fleets: 2,000 small files (the samples, mixed formats, some gzipped and some unreadable, as
the scan test makes them) and 20 large JSONL logs from `synthetic.py`. Each command is a whole
`python -m inspector scan … --target openai` process, the runs interleaved and the median taken.
Peak RSS is the scan's main process (`measure.run_measured`): the one that streams the rows and
holds the aggregates, which is what must stay flat in the number of files; workers are separate
processes. Dask's time includes starting its LocalCluster (2 worker processes).

    python tests/benchmarks/bench_scan.py [--quick] [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks import synthetic  # noqa: E402
from tests.benchmarks.measure import Measured, run_measured  # noqa: E402
from tests.core.test_scan import make_fleet  # noqa: E402

ENGINES = {
    "--jobs 1": ["--jobs", "1", "-o", "{out}/rows.jsonl"],
    "--jobs 2": ["--jobs", "2", "-o", "{out}/rows.jsonl"],
    "dask local (2 workers)": ["--engine", "dask", "--jobs", "2", "-o", "{out}/parts"],
}


def _command(folder: Path, out: Path, engine: str) -> list[str]:
    extra = [a.format(out=out) for a in ENGINES[engine]]
    return [sys.executable, "-m", "inspector", "scan", str(folder), "--target", "openai", *extra]


def _fleets(scratch: Path, quick: bool) -> dict[str, tuple[Path, int]]:
    small = scratch / "small"
    count = 200 if quick else 2_000
    make_fleet(small, count)
    large = scratch / "large"
    large.mkdir()
    items = 2_000 if quick else 50_000
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
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    with tempfile.TemporaryDirectory(prefix="bench-scan-") as scratch_name:
        scratch = Path(scratch_name)
        rows = []
        made = 0
        for label, (folder, files) in _fleets(scratch, args.quick).items():
            measured: dict[str, list[Measured]] = {e: [] for e in ENGINES}
            for _ in range(runs):
                for engine in ENGINES:  # interleaved: a slow moment hits every engine alike
                    made += 1
                    out = scratch / f"out-{made}"
                    out.mkdir()
                    command = _command(folder, out, engine)
                    measured[engine].append(run_measured(command, ok=(0, 1, 2)))
            for engine, results in measured.items():
                seconds = statistics.median(m.seconds for m in results)
                peak = statistics.median(m.peak_rss for m in results) / 1e6
                rows.append((label, engine, files / seconds, seconds, peak))
            one = statistics.median(m.seconds for m in measured["--jobs 1"])
            two = statistics.median(m.seconds for m in measured["--jobs 2"])
            rows.append((label, "speed-up --jobs 2 ÷ --jobs 1 (target ≥ 1.7)", one / two, 0, 0))
    print(f"{'fleet':<44} {'engine':<44} {'files/s':>9} {'seconds':>8} {'peak MB':>8}")
    for label, engine, rate, seconds, peak in rows:
        if seconds:
            print(f"{label:<44} {engine:<44} {rate:>9.1f} {seconds:>8.2f} {peak:>8.1f}")
        else:
            print(f"{label:<44} {engine:<44} {rate:>8.2f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
