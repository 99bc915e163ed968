"""The sample pairs under samples/, found by walking the folders (a new case folder is picked up
without editing a table): the golden tests and the all-outputs agreement test share this walk.

A pair is a folder's `left.*` against every other transcript of that folder (`right.*` and
other providers' runs such as `session/gemini.json`); a `*.tools.json` in the folder is the
pair's tools file. The pair's name is the folder's, with the right side's stem when it is not
`right` (`session-gemini`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.conftest import REPO, SAMPLES

#: Transcript suffixes a pair folder may hold.
SUFFIXES = (".json", ".jsonl", ".sse")
#: Pairs whose tools file lives elsewhere (shared with other samples).
TOOLS_ELSEWHERE = {"extra-call": SAMPLES / "tools" / "sales-tools.json"}


@dataclass(frozen=True)
class SamplePair:
    """One sample pair: its name, both files and the tools file given with it (or None)."""

    name: str
    left: Path
    right: Path
    tools: Path | None = None

    def args(self) -> list[str]:
        """The command-line arguments naming the pair from the repository root."""
        extra = ["--tools", _relative(self.tools)] if self.tools is not None else []
        return [_relative(self.left), _relative(self.right), *extra]


def _relative(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def is_tools_file(path: Path) -> bool:
    """Whether a sample file is a tools file rather than a transcript."""
    return path.name.endswith(".tools.json") or path.parent == SAMPLES / "tools"


def _folder_pairs(folder: Path) -> list[SamplePair]:
    lefts = [p for p in sorted(folder.glob("left.*")) if p.suffix in SUFFIXES]
    if not lefts:
        return []
    (left,) = lefts
    tools = [p for p in sorted(folder.iterdir()) if is_tools_file(p)]
    tool = tools[0] if tools else TOOLS_ELSEWHERE.get(folder.name)
    found = []
    for right in sorted(folder.iterdir()):
        if right == left or right.suffix not in SUFFIXES or is_tools_file(right):
            continue
        name = folder.name if right.stem == "right" else f"{folder.name}-{right.stem}"
        found.append(SamplePair(name, left, right, tool))
    return found


def sample_pairs() -> list[SamplePair]:
    """Every sample pair: the two providers of samples/providers/, then each folder's pairs."""
    providers = SAMPLES / "providers"
    found = [SamplePair("providers", providers / "provider-a.json", providers / "provider-b.json")]
    for left in sorted(SAMPLES.rglob("left.*")):
        if "expected" in left.relative_to(SAMPLES).parts or left.suffix not in SUFFIXES:
            continue
        found.extend(_folder_pairs(left.parent))
    return found
