"""Profile one CLI command: `python tests/benchmarks/profile_cli.py [--top N] gate FILE …`.

`python -m cProfile -m inspector …` prints nothing: the command ends with os._exit, which skips
the profiler's report. This runs the same command (its output to /dev/null, the cyclic
collector off as `python -m inspector` has it) under cProfile and prints the functions with the
largest cumulative time to stderr.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import os
import pstats
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from inspector.cli import run


def main() -> int:
    """Run the command under the profiler and print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=40, help="rows of the report")
    parser.add_argument("--sort", default="cumulative", help="a pstats sort key")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="an inspector subcommand")
    args = parser.parse_args()
    with open(os.devnull, "w", encoding="utf-8") as sink:
        profiler = cProfile.Profile()
        gc.disable()
        profiler.enable()
        status = run(args.command, stdout=sink)
        profiler.disable()
    report = io.StringIO()
    pstats.Stats(profiler, stream=report).sort_stats(args.sort).print_stats(args.top)
    sys.stderr.write(report.getvalue())
    return status


if __name__ == "__main__":
    sys.exit(main())
