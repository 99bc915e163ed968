"""A command's malloc keeps what it frees: the next buffer does not fault its pages in again."""

from __future__ import annotations

import subprocess
import sys

import pytest

#: Allocate, free and allocate again a 64 MiB buffer; print the second one's page faults.
_REFAULTS = """
import resource, sys
from inspector import heap
if sys.argv[1] == "tuned":
    assert heap.keep_freed_memory()
size = 64 << 20
first = bytearray(size)
del first
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
second = bytearray(size)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _refaults(mode: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _REFAULTS, mode], capture_output=True, text=True, check=True
    )
    return int(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_a_tuned_command_reuses_freed_buffers_instead_of_faulting_them_in_again():
    pages = (64 << 20) // 4096
    # glibc's default maps the buffer afresh: every page faults again.
    assert _refaults("default") > pages // 2
    assert _refaults("tuned") < pages // 20


def test_a_command_tunes_malloc_only_when_the_address_space_is_not_capped():
    script = (
        "import resource, sys\n"
        "from unittest import mock\n"
        "from inspector import __main__ as entry, heap\n"
        "if sys.argv[1] == 'capped':\n"
        "    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, resource.RLIM_INFINITY))\n"
        "with mock.patch.object(heap, 'keep_freed_memory') as tuned, "
        "mock.patch('inspector.cli.run', return_value=0), "
        "mock.patch('os._exit', side_effect=SystemExit):\n"
        "    try:\n"
        "        entry.run_command(['gate'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(tuned.call_count)\n"
    )
    counts = {
        mode: subprocess.run(
            [sys.executable, "-c", script, mode], capture_output=True, text=True, check=True
        ).stdout.strip()
        for mode in ("free", "capped")
    }
    assert counts == {"free": "1", "capped": "0"}
