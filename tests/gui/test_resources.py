"""Bundled resources: every referenced file exists, icons load, colours stay readable."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QIcon

from inspector.core.gate import Verdict
from inspector.gui import qt_palette
from inspector.resources import palette_data, referenced_files, resource_path, sample_pair

#: Backgrounds the colours are drawn on: the view base, and the tint behind the verdict word.
BASES = {"light": "#ffffff", "dark": "#1e1f22"}


def _luminance(colour: QColor) -> float:
    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(colour.redF())
        + 0.7152 * channel(colour.greenF())
        + 0.0722 * channel(colour.blueF())
    )


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two colours."""
    la, lb = sorted((_luminance(QColor(a)), _luminance(QColor(b))), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_every_referenced_resource_exists():
    for name in referenced_files():
        assert resource_path(name).is_file(), name


def test_every_verdict_has_a_distinct_icon(qapp):
    entries = palette_data()["verdicts"]
    assert set(entries) == {str(v) for v in Verdict}
    icons = {entries[str(v)]["icon"] for v in Verdict}
    assert len(icons) == len(Verdict)  # shape tells verdicts apart, not colour alone
    for verdict in Verdict:
        icon = qt_palette.verdict_swatch(verdict).icon
        assert isinstance(icon, QIcon) and not icon.isNull()
        assert not icon.pixmap(16, 16).toImage().isNull()
    assert not qt_palette.app_icon().isNull()


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("section", ["verdicts", "changes", "severities"])
def test_colours_are_readable_in_both_palettes(theme, section):
    for name, entry in palette_data()[section].items():
        colours = entry[theme]
        assert contrast(colours["fg"], BASES[theme]) >= 4.5, (section, name, theme)
        if colours["bg"]:
            assert contrast(colours["fg"], colours["bg"]) >= 4.5, (section, name, theme)


def test_blocking_verdicts_do_not_share_a_colour_with_ok():
    entries = palette_data()["verdicts"]
    ok = entries["ok"]["light"]["fg"]
    for verdict in Verdict:
        if verdict != Verdict.OK:
            assert entries[str(verdict)]["light"]["fg"] != ok


def test_sample_pair_is_found_in_a_checkout():
    pair = sample_pair()
    assert pair is not None
    assert pair.left.name == "provider-a.json" and pair.right.name == "provider-b.json"
    assert pair.tools.name == "sales-tools.json"


def test_desktop_file_names_the_script():
    text = resource_path("replay-inspector.desktop").read_text(encoding="utf-8")
    assert "Exec=replay-inspector" in text and "Type=Application" in text
