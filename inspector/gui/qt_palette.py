"""The one place verdicts, changes and severities become colours and icons (light and dark)."""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from typing import NamedTuple

from PySide6.QtCore import QSize
from PySide6.QtGui import QBrush, QColor, QIcon, QPalette, QPixmap
from PySide6.QtWidgets import QApplication, QStyleFactory

from inspector.core.verdicts import Verdict
from inspector.resources import APP_ICON, action_icon_name, palette_data, resource_path


class Theme(StrEnum):
    """Which set of colours the palette hands out."""

    LIGHT = "light"
    DARK = "dark"


class ChangeLevel(StrEnum):
    """How prominently a diff change is marked."""

    MAJOR = "major"
    MINOR = "minor"
    INFO = "info"


#: Change codes marked most prominently: a type or call_id change means the counterpart can
#: no longer stand in for the item.
PROMINENT_CHANGES: frozenset[str] = frozenset(
    {
        "type_changed",
        "became_namespaced",
        "became_portable",
        "became_non_portable",
        "call_id_changed",
    }
)


class Swatch(NamedTuple):
    """A colour pair and icon for one verdict, change level or severity in the current theme.

    Its brushes are made when first asked for: `QBrush(QColor)` makes PySide6 build the whole
    `Qt` namespace (see enum_values), and the window's first frame shows only the icons.
    """

    icon: QIcon
    colour: str
    background_colour: str | None
    meaning: str

    @property
    def foreground(self) -> QBrush:
        """The text colour's brush."""
        return _brush(self.colour)

    @property
    def background(self) -> QBrush | None:
        """The fill's brush (None: not filled)."""
        return _brush(self.background_colour) if self.background_colour else None


@cache
def _brush(colour: str) -> QBrush:
    return QBrush(QColor(colour))


_theme: Theme | None = None


def theme() -> Theme:
    """Return the active theme (detected from the application palette unless forced)."""
    global _theme
    if _theme is None:
        _theme = detect_theme()
    return _theme


def set_theme(value: Theme) -> None:
    """Make every swatch from now on come from this theme."""
    global _theme
    _theme = value


def detect_theme() -> Theme:
    """Return DARK when the application's base colour is dark."""
    app = QApplication.instance()
    if app is None:
        return Theme.LIGHT
    base = app.palette().color(QPalette.ColorRole.Base)  # type: ignore[attr-defined]
    return Theme.DARK if base.lightness() < 128 else Theme.LIGHT


@cache
def icon(name: str) -> QIcon:
    """Return a bundled icon by resource name (cached; icons are shared, never per item)."""
    return QIcon(str(resource_path(name)))


@cache
def _action_icon(action: str, colour: str) -> QIcon:
    # Qt's SVG module is loaded with the first toolbar icon (drawn after the first paint), and
    # the `Qt` namespace named then (enum_values).
    from PySide6.QtCore import QByteArray, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    text = resource_path(action_icon_name(action)).read_text(encoding="utf-8")
    renderer = QSvgRenderer(QByteArray(text.replace("currentColor", colour).encode("utf-8")))
    result = QIcon()
    for size in (16, 24, 32, 48):  # crisp at 1x and 2x device pixel ratios
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        renderer.render(painter)
        painter.end()
        result.addPixmap(QPixmap.fromImage(image))
    return result


def action_icon(action: str) -> QIcon:
    """Return a toolbar icon drawn in the palette's text colour (so it suits light and dark)."""
    app = QApplication.instance()
    colour = "#303030"
    if app is not None:
        colour = app.palette().color(QPalette.ColorRole.WindowText).name()  # type: ignore[attr-defined]
    return _action_icon(action, colour)


def app_icon() -> QIcon:
    """Return the application icon."""
    return icon(APP_ICON)


@cache
def _swatch(section: str, key: str, which: Theme) -> Swatch:
    entry = palette_data()[section][key] if section != "gap" else palette_data()["gap"]
    colours = entry[str(which)]
    return Swatch(
        icon(entry["icon"]), colours["fg"], colours.get("bg") or None, entry.get("meaning", "")
    )


def verdict_swatch(verdict: Verdict | str) -> Swatch:
    """Return the colours, icon and meaning of a verdict."""
    return _swatch("verdicts", str(verdict), theme())


def change_level(code: str, severity: str) -> ChangeLevel:
    """Return how prominently a change with this code and severity is marked."""
    if code in PROMINENT_CHANGES or severity == "error":
        return ChangeLevel.MAJOR
    if severity == "info":
        return ChangeLevel.INFO
    return ChangeLevel.MINOR


def change_swatch(level: ChangeLevel) -> Swatch:
    """Return the marker colours and icon of a change level."""
    return _swatch("changes", str(level), theme())


def severity_swatch(severity: str) -> Swatch:
    """Return the colours and icon of a finding or violation severity."""
    key = severity if severity in ("error", "warning", "info") else "info"
    return _swatch("severities", key, theme())


def target_swatch(severity: str) -> Swatch:
    """Return the marker of an item a target provider rejects (error) or changes (warning)."""
    key = "error" if str(severity) == "error" else "warning"
    return _swatch("targets", key, theme())


def short_verdict(verdict: Verdict | str) -> str:
    """Return a verdict's word for a narrow column (e.g. "schema" for arguments_schema)."""
    return _short_verdict(str(verdict))


@cache
def _short_verdict(verdict: str) -> str:
    # Cached: asked for every verdict cell drawn and fitted, and the palette is read from its
    # file each time it is asked for.
    return str(palette_data()["verdicts"][verdict].get("short", verdict))


class Mark(NamedTuple):
    """The Diff tab's mark on a changed value or word: a fill that stands out from the view's
    base colour, and the text colour drawn on it."""

    foreground: QBrush
    background: QBrush


@cache
def _mark(level: ChangeLevel, which: Theme) -> Mark | None:
    entry = palette_data()["marks"].get(str(level))
    if entry is None:
        return None
    colours = entry[str(which)]
    return Mark(QBrush(QColor(colours["fg"])), QBrush(QColor(colours["bg"])))


def mark(level: ChangeLevel) -> Mark | None:
    """Return the Diff tab's mark for a change level (None: not painted, e.g. info)."""
    return _mark(level, theme())


def gap_swatch() -> Swatch:
    """Return the look of an empty row standing in for an item the other side lacks."""
    return _swatch("gap", "", theme())


def syntax_style() -> str:
    """Return the pygments style name that suits the active theme."""
    return str(palette_data()["syntax"][str(theme())])


def pixmap(qicon: QIcon, size: int = 16) -> QPixmap:
    """Render an icon at a logical size for a label."""
    return qicon.pixmap(QSize(size, size))


def dark_palette() -> QPalette:
    """Build the forced dark QPalette from the palette file."""
    spec = palette_data()["dark_palette"]
    pal = QPalette()
    roles = QPalette.ColorRole
    for name, value in spec.items():
        if name == "disabled":
            continue
        pal.setColor(getattr(roles, name), QColor(value))
    for name, value in spec.get("disabled", {}).items():
        pal.setColor(QPalette.ColorGroup.Disabled, getattr(roles, name), QColor(value))
    return pal


def apply_forced_theme(app: QApplication, forced: Theme) -> None:
    """Switch to the Fusion style with a light or dark palette (for --dark / --light)."""
    style = QStyleFactory.create("Fusion")
    app.setStyle(style)
    app.setPalette(dark_palette() if forced == Theme.DARK else style.standardPalette())
    set_theme(forced)


def all_verdicts() -> list[Verdict]:
    """Return the verdicts in gate order (for the legend and the verdict combo)."""
    return list(Verdict)
