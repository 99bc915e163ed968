"""The Qt enum values the first frame sets as ints are PySide6's own, and what the first frame
relies on instead of naming the `Qt` namespace holds: a plain label's properties, an elided
label's painting, the link cursor and the splitters' orientations."""

from __future__ import annotations

import inspect

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QBrush, QColor, QEnterEvent, QLinearGradient, QPainter, QPalette, QPen
from PySide6.QtWidgets import QApplication, QLabel, QPushButton, QWidget

from inspector.gui import enum_values
from inspector.gui.qt_text import ElidedLabel, PointingHand, plain_label


def _declared() -> list[tuple[str, str, int]]:
    """Every (enum, member, value) the module declares."""
    found = []
    for name, holder in vars(enum_values).items():
        if inspect.isclass(holder) and holder.__module__ == enum_values.__name__:
            for member, value in vars(holder).items():
                if not member.startswith("_"):
                    found.append((name, member, value))
    return found


def test_every_value_is_the_one_pyside6_gives_its_qt_name(qapp) -> None:
    declared = _declared()
    assert len(declared) >= 10
    for enum_name, member, value in declared:
        assert type(value) is int, (enum_name, member)
        assert getattr(getattr(Qt, enum_name), member).value == value, f"Qt.{enum_name}.{member}"


def test_a_plain_label_is_plain_text_and_aligned_as_told(qtbot) -> None:
    label = plain_label("<b>x</b>")
    qtbot.addWidget(label)
    assert label.textFormat() == Qt.TextFormat.PlainText
    # Its recorded alignment is QLabel's own default until it is told another.
    assert label.alignment() == Qt.AlignmentFlag(label.alignment_flags)
    assert label.alignment() == QLabel().alignment()
    label.set_alignment(enum_values.AlignmentFlag.AlignCenter)
    assert label.alignment() == Qt.AlignmentFlag.AlignCenter
    label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
    assert label.alignment_flags == int(label.alignment())
    assert label.alignment() == Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop


class _Starting(QWidget):
    """Records the pen a painter begun on it starts with."""

    pen: QPen | None = None

    def paintEvent(self, event: object) -> None:
        painter = QPainter(self)
        self.pen = painter.pen()
        painter.end()


def test_a_painter_on_a_widget_starts_with_the_pen_an_elided_label_draws_with(qtbot) -> None:
    # ElidedLabel draws enabled text as QStyle.drawItemText does, with
    # QPen(palette brush of its foreground role, 1), without setting it: a painter begun on a
    # widget starts with that pen, whatever the brush (a gradient too).
    gradient = QLinearGradient(0, 0, 20, 0)
    gradient.setColorAt(0, QColor("red"))
    gradient.setColorAt(1, QColor("blue"))
    for brush in (None, QBrush(QColor("#3050a0")), QBrush(gradient)):
        widget = _Starting()
        qtbot.addWidget(widget)
        if brush is not None:
            palette = widget.palette()
            palette.setBrush(QPalette.ColorRole.WindowText, brush)
            widget.setPalette(palette)
        widget.grab()
        expected = QPen(widget.palette().brush(widget.foregroundRole()), 1.0)
        assert widget.pen == expected


def test_an_elided_label_shows_a_fitting_text_whole_and_elides_a_long_one(qtbot) -> None:
    label = ElidedLabel("provider-a.json")
    qtbot.addWidget(label)
    label.resize(400, 30)
    label.show()
    fits = label.grab().toImage()
    wide = QLabel("provider-a.json")  # Qt's own label draws the same pixels when it fits
    qtbot.addWidget(wide)
    wide.resize(400, 30)
    assert fits == wide.grab().toImage()
    long = "a-very-long-transcript-file-name-that-cannot-fit.json"
    label.setText(long)
    width = label.fontMetrics().horizontalAdvance(long) // 2
    label.resize(width, 30)
    elided = label.fontMetrics().elidedText(long, Qt.TextElideMode.ElideRight, width)
    assert elided.endswith("…") and elided != long
    shown = QLabel(elided)
    qtbot.addWidget(shown)
    shown.resize(width, 30)
    assert label.grab().toImage() == shown.grab().toImage()


def test_a_link_gets_the_pointing_hand_as_the_mouse_first_enters(qtbot) -> None:
    button = QPushButton("Open the sample pair")
    qtbot.addWidget(button)
    PointingHand(button)
    assert button.cursor().shape() == Qt.CursorShape.ArrowCursor
    QApplication.sendEvent(button, QEnterEvent(QPointF(2, 2), QPointF(2, 2), QPointF(2, 2)))
    assert button.cursor().shape() == Qt.CursorShape.PointingHandCursor
    button.unsetCursor()
    QApplication.sendEvent(button, QEvent(QEvent.Type.Enter))
    assert button.cursor().shape() == Qt.CursorShape.ArrowCursor  # once, then it stops watching


def test_the_windows_splitters_and_links_are_as_they_were(pair_window) -> None:
    window = pair_window
    assert window.main_split.orientation() == Qt.Orientation.Vertical
    assert window.pane_split.orientation() == Qt.Orientation.Horizontal
    assert window.details.item_panel.split.orientation() == Qt.Orientation.Horizontal
    pane = window.left
    QApplication.sendEvent(pane.sample_button, QEvent(QEvent.Type.Enter))
    assert pane.sample_button.cursor().shape() == Qt.CursorShape.PointingHandCursor
    label = window.status.label
    QApplication.sendEvent(label, QEvent(QEvent.Type.Enter))
    assert label.cursor().shape() == Qt.CursorShape.PointingHandCursor
