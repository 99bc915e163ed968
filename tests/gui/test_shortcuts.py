"""The action table: menus, toolbar and the shortcuts dialog come from it; the README agrees."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication

from inspector.gui.actions import ACTIONS, KEY_NOTES, TAB_NAMES, TOOLBAR, Tab
from inspector.gui.qt_actions import ShortcutsDialog, key_text, shortcut_rows
from tests.conftest import REPO


def _readme_keys() -> set[str]:
    """Every key the README's key table names (ranges such as Alt+1 … Alt+9 spelt out)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    table = text.split("| keys | action |", 1)[1].split("\n\n", 1)[0]
    keys: set[str] = set()
    for line in table.splitlines()[2:]:
        cell = line.split("|")[1].strip()
        ranged = re.fullmatch(r"(\w+)\+(\d) … \1\+(\d)", cell)
        if ranged:
            prefix, first, last = ranged.groups()
            keys.update(f"{prefix}+{n}" for n in range(int(first), int(last) + 1))
            continue
        keys.update(k.strip() for k in re.split(r" / |, ", cell))
    return keys


def test_the_readme_table_is_the_window_s_keys(window):
    keys = {key_text(a) for a in window.shortcut_actions()} - {""}
    keys |= {key for key, _what in KEY_NOTES}
    assert _readme_keys() == keys


def test_every_table_action_is_built_and_listed_in_a_menu(window):
    in_menus = {action for menu in window.menus.values() for action in menu.actions()}
    for spec in ACTIONS:
        action = getattr(window, f"{spec.name}_action")
        assert action is window.act[spec.name]
        assert action in in_menus, spec.name
        assert key_text(action) == spec.shortcut
    toolbar = set(window.toolbar.actions())
    assert all(window.act[n] in toolbar for n in TOOLBAR if n[0] not in "-@")


def test_alt_keys_show_every_tab_in_order(window, qtbot):
    assert [window.tabs.tabText(n) for n in range(window.tabs.count())] == list(TAB_NAMES)
    for number in range(len(TAB_NAMES)):
        window.act[f"tab_{number}"].trigger()
        assert window.tabs.currentIndex() == number
    assert key_text(window.act[f"tab_{Tab.TOOLS}"]) == "Alt+9"


def test_the_shortcuts_dialog_is_a_table_of_every_key(window, qtbot):
    rows = shortcut_rows(window.shortcut_actions())
    dialog = ShortcutsDialog(rows, window)
    qtbot.addWidget(dialog)
    model = dialog.model
    shown = {model.index(r, 0).data(): model.index(r, 1).data() for r in range(model.rowCount())}
    native = QKeySequence.SequenceFormat.NativeText
    for key in ("Alt+1", "Alt+9", "Ctrl+Shift+F", "F3", "Ctrl+Shift+W"):
        assert QKeySequence(key).toString(native) in shown, key
    assert shown["Esc"].startswith("clear the filter")
    assert shown[QKeySequence("Ctrl+Shift+W").toString(native)] == "Swap Sides"
    # Two columns, not padding with spaces: no cell starts or ends with blanks.
    assert all(k == k.strip() and v == v.strip() for k, v in shown.items())


def test_menu_words_are_title_case_throughout(window):
    small = {"a", "an", "and", "as", "in", "into", "of", "the", "to", "with", "or"}
    for action in window.act.values():
        words = action.text().replace("&", "").rstrip("…").split()
        for word in words[1:]:
            assert word in small or word[0].isupper() or not word[0].isalpha(), action.text()


def test_f8_says_when_it_wraps_to_the_first_difference(pair_window, qtbot):
    window = pair_window
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()  # shortcuts reach the active window only
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    window.left.tree.setFocus()
    changed = window.alignment.changed
    for _ in changed:
        qtbot.keyClick(window.left.tree, Qt.Key.Key_F8)
    assert window.statusBar().currentMessage() == ""
    qtbot.keyClick(window.left.tree, Qt.Key.Key_F8)
    assert window.statusBar().currentMessage() == (
        f"Wrapped past the last difference: back at the first of {len(changed)}"
    )
    first = window.alignment.diff.pairs[changed[0]]
    assert window.left.current_item() == first.left
    qtbot.keyClick(window.left.tree, Qt.Key.Key_F8, Qt.KeyboardModifier.ShiftModifier)
    assert window.statusBar().currentMessage() == (
        f"Wrapped past the first difference: back at the last of {len(changed)}"
    )


def test_every_toolbar_entry_is_in_view_at_1100_by_700(pair_window, qtbot):
    window = pair_window
    window.resize(1100, 700)
    window.show()
    qtbot.waitExposed(window)
    window.settle()
    bar = window.toolbar
    entries = [bar.widgetForAction(a) for a in bar.actions() if not a.isSeparator()]
    assert window.target_selector in entries or window.target_selector.parent() is bar
    for widget in entries:
        assert widget is not None and widget.isVisible(), widget
        assert widget.geometry().right() <= bar.width(), widget
    assert window.target_selector.isVisible()
    assert window.width() == 1100
