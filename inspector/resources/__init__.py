"""The one resolver for bundled resources (icons, palette, desktop file) and the sample pair."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

#: Every plain file this package ships; a test checks each exists and is reachable.
PALETTE = "palette.json"
DESKTOP_FILE = "replay-inspector.desktop"
APP_ICON = "icons/replay-inspector.svg"
#: Toolbar and menu icons: line drawings in `currentColor`, tinted to the palette's text colour.
ACTIONS = (
    "open-left",
    "open-right",
    "reload",
    "aligned",
    "previous",
    "next",
    "problem",
    "tools",
    "paste",
)


def action_icon_name(action: str) -> str:
    """Return the resource name of an action icon."""
    return f"icons/action-{action}.svg"


#: This package's folder: a checkout or an unpacked wheel keeps the resources beside this file.
_HERE = Path(__file__).parent


def resource_path(name: str) -> Path:
    """Return the filesystem path of a bundled resource (relative name, '/'-separated)."""
    # A package installed as plain files (a checkout, an unpacked wheel) has its resources in
    # its own folder; only another loader (a zip) needs importlib.resources, whose import costs
    # a window's start about 14 M instructions (callgrind).
    if _HERE.joinpath(PALETTE).is_file():
        return _HERE.joinpath(*name.split("/"))
    from importlib import resources

    # Qt needs a real path to load SVG icons.
    return Path(str(resources.files(__name__).joinpath(*name.split("/"))))


@cache
def palette_data() -> dict[str, Any]:
    """Return the parsed palette file (verdict, change and severity colours and icons)."""
    return json.loads(resource_path(PALETTE).read_text(encoding="utf-8"))


def referenced_files() -> list[str]:
    """Return every resource name the palette and this module refer to."""
    data = palette_data()
    names = [PALETTE, DESKTOP_FILE, APP_ICON, *(action_icon_name(a) for a in ACTIONS)]
    for section in ("verdicts", "changes", "severities", "targets"):
        names.extend(entry["icon"] for entry in data[section].values())
    names.append(data["gap"]["icon"])
    return names


class SamplePair(NamedTuple):
    """The bundled left/right transcripts and the tools file that goes with them."""

    left: Path
    right: Path
    tools: Path


def samples_dir() -> Path | None:
    """Return the repository's samples/ folder when running from a checkout, else None."""
    # inspector/resources/__init__.py → the checkout root is two folders up from the package.
    candidate = Path(__file__).resolve().parents[2] / "samples"
    return candidate if candidate.is_dir() else None


def sample_pair() -> SamplePair | None:
    """Return the provider-a / provider-b sample pair, or None when it is not available."""
    root = samples_dir()
    if root is None:
        return None
    pair = SamplePair(
        root / "providers" / "provider-a.json",
        root / "providers" / "provider-b.json",
        root / "tools" / "sales-tools.json",
    )
    if all(p.is_file() for p in (pair.left, pair.right, pair.tools)):
        return pair
    return None
