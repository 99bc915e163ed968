"""What must not look alike does not: verdict icons on the selection, look-alike tool rows."""

from __future__ import annotations

from PySide6.QtGui import QImage

from inspector.gui import qt_palette
from tests.conftest import SAMPLES
from tests.gui.test_resources import contrast


def test_each_verdict_icon_has_pixels_that_stand_out_on_the_selection(qapp):
    selection = qapp.palette().highlight().color()
    for verdict in qt_palette.all_verdicts():
        image = qt_palette.pixmap(qt_palette.verdict_swatch(verdict).icon, 16).toImage()
        image = image.convertToFormat(QImage.Format.Format_ARGB32)
        best = max(
            contrast(image.pixelColor(x, y).name(), selection.name())
            for x in range(image.width())
            for y in range(image.height())
            if image.pixelColor(x, y).alpha() > 200
        )
        assert best >= 3.0, (verdict, round(best, 2))


def test_a_look_alike_tool_row_does_not_look_like_the_real_one(window):
    window.open_file("left", str(SAMPLES / "findings" / "spoofed-names.json"))
    model = window.tools_panel.matrix
    shown = {row.name: model.index(n, 0).data() for n, row in enumerate(model.rows)}
    spoof, real = "get_user_pr\u043efile", "get_user_profile"
    assert real in shown and spoof in shown
    assert shown[real] == real
    assert shown[spoof].endswith("⚠ it differs from 'get_user_profile' by U+043E")
    assert len(set(shown.values())) == len(shown)
