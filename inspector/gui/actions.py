"""The window's actions as one table (Qt-free): menus, toolbar, the shortcuts dialog and the
README's key table are all made from it or checked against it.

A shortcut is portable key text ("Ctrl+Shift+O"; Qt shows Ctrl as Cmd on macOS), the same on
every platform, so that the README's table holds everywhere.
"""

from __future__ import annotations

from typing import NamedTuple


class Tab:
    """Indexes of the detail tabs."""

    ITEM, ARGUMENTS, DIFF, FINDINGS, STREAM, SCRATCH, SEARCH, CHANGES, TOOLS = range(9)


#: The detail tabs' titles in Tab order (Alt+1 … Alt+9 show them).
TAB_NAMES = (
    "Item", "Arguments", "Diff", "Findings", "Stream", "Scratch", "Search", "Changes", "Tools",
)  # fmt: skip


class ActionSpec(NamedTuple):
    """One action: the window method it calls (with arguments), its words, key and place."""

    name: str
    text: str
    #: The window's method, or a dotted path from the window ("details.copy_arguments").
    slot: str
    args: tuple[object, ...] = ()
    shortcut: str = ""
    tip: str = ""
    icon: str | None = None
    #: The menu it is listed in ("" for none), and its group there (groups are separated).
    menu: str = ""
    group: int = 0
    checkable: bool = False
    #: The toolbar's shorter words (Qt's icon text), so that the toolbar fits at 1100 px.
    short: str = ""


#: Menus in menu-bar order; "@name" rows in MENU_ROWS are submenus the window fills itself.
MENUS = ("&File", "&Edit", "&View", "&Go", "&Help")

ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("open_left", "Open &Left…", "choose_file", ("left",), "Ctrl+O",
               "Open a transcript in the left pane", "open-left", "&File", short="Left"),
    ActionSpec("open_right", "Open &Right…", "choose_file", ("right",), "Ctrl+Shift+O",
               "Open a transcript in the right pane", "open-right", "&File", short="Right"),
    ActionSpec("sample", "Open the &Sample Pair", "open_sample_pair", (), "",
               "Open provider-a.json and provider-b.json with their tools", None, "&File"),
    ActionSpec("reload", "Re&load", "reload", (), "F5",
               "Read both files again from disk", "reload", "&File", 1),
    ActionSpec("follow", "&Follow Left File", "set_following", (), "",
               "Show what an agent appends to the left session file (Codex, Claude Code) as it "
               "writes it", None, "&File", 1, checkable=True),
    ActionSpec("tools", "Load &Tools…", "choose_tools", (), "Ctrl+T",
               "Load tool schemas (a tools array, a request, or a {name: schema} object)",
               "tools", "&File", 1, short="Tools"),
    ActionSpec("export", "&Export Report…", "choose_export", (), "Ctrl+E",
               "Write an HTML page or a Markdown summary of the open files, secrets redacted",
               None, "&File", 2),
    ActionSpec("quit", "&Quit", "close", (), "Ctrl+Q", "", None, "&File", 3),
    ActionSpec("copy", "&Copy Item JSON", "copy_item", (), "",
               "Copy the selected item as JSON", None, "&Edit"),
    ActionSpec("copy_arguments", "Copy Edited &Arguments as String", "details.copy_arguments",
               (), "",
               "Copy the Arguments tab's arguments as the escaped string an item's arguments "
               "holds", None, "&Edit"),
    ActionSpec("copy_item_arguments", "Copy Item with &Edited Arguments",
               "copy_item_with_arguments", (), "",
               "Copy the selected item as JSON, with the Arguments tab's arguments in it",
               None, "&Edit"),
    ActionSpec("paste", "&Paste into Scratch", "paste", (), "Ctrl+Shift+V",
               "Paste an item, items, a transcript, arguments or a schema from the clipboard",
               "paste", "&Edit", short="Paste"),
    ActionSpec("paste_schema", "Paste as Tool &Schema", "details.paste_schema", (), "",
               "Put the clipboard into the Arguments tab's schema box", None, "&Edit"),
    ActionSpec("revert", "Re&vert Arguments", "details.arguments_panel.revert", (), "",
               "Put back the selected item's arguments as they are in the file", None,
               "&Edit", 1),
    ActionSpec("find", "&Filter…", "focus_filter", (), "Ctrl+F",
               "Filter the current pane (Esc in the filter box clears it)", None, "&Edit", 1),
    ActionSpec("find_contents", "Find in C&ontents…", "find_in_contents", (), "Ctrl+Shift+F",
               "Find a text in every item of the current pane: messages, outputs, arguments",
               None, "&Edit", 1),
    ActionSpec("find_next", "Find &Next", "step_hit", (True,), "F3",
               "Show the next hit of the search", None, "&Edit", 1),
    ActionSpec("find_previous", "Find Pre&vious", "step_hit", (False,), "Shift+F3",
               "Show the previous hit of the search", None, "&Edit", 1),
    ActionSpec("aligned", "&Aligned Mode", "set_aligned", (), "Ctrl+L",
               "Show aligned pairs on the same line and scroll together", "aligned", "&View",
               checkable=True, short="Aligned"),
    ActionSpec("legend", "&Legend", "legend.setVisible", (), "", "", None, "&View",
               checkable=True),
    ActionSpec("swap", "S&wap Sides", "swap_sides", (), "Ctrl+Shift+W",
               "Swap the left and right transcripts", None, "&View"),
    *(
        ActionSpec(f"tab_{number}", f"{name} Tab", "tabs.setCurrentIndex", (number,),
                   f"Alt+{number + 1}", f"Show the {name} tab", None, "&View", 1)
        for number, name in enumerate(TAB_NAMES)
    ),
    ActionSpec("next_diff", "&Next Difference", "next_difference", (), "F8",
               "Select the next changed pair", "next", "&Go", short="Next"),
    ActionSpec("prev_diff", "&Previous Difference", "previous_difference", (), "Shift+F8",
               "Select the previous changed pair", "previous", "&Go", short="Previous"),
    ActionSpec("next_problem", "Next Pro&blem", "step_problem", (True,), "F9",
               "Select the next item that blocks a replay", "problem", "&Go", 1, short="Problem"),
    ActionSpec("prev_problem", "Previous Prob&lem", "step_problem", (False,), "Shift+F9",
               "Select the previous item that blocks a replay", None, "&Go", 1),
    ActionSpec("counterpart", "Go to &Counterpart", "go_to_counterpart", (), "Ctrl+J",
               "Move the focus to the aligned item in the other pane", None, "&Go", 2),
    ActionSpec("legend_help", "&Verdicts and Markers", "help.verdicts", (), "", "", None,
               "&Help"),
    ActionSpec("keys", "&Keyboard Shortcuts", "help.shortcuts", (), "", "", None, "&Help"),
    ActionSpec("about", "&About Replay Inspector", "help.about", (), "", "", None, "&Help", 1),
)  # fmt: skip

#: Submenus the window fills itself: (menu, the action they come after, title).
SUBMENUS = (
    ("&File", "open_right", "Open &Recent"),
    ("&View", "aligned", "Diff &Mode"),
    ("&View", "swap", "&Columns"),
)

#: The toolbar, in order: action names, "-" a separator, "@modes" the diff mode switch and
#: "@target" the target selector.
TOOLBAR = (
    "open_left", "open_right", "reload", "-", "aligned", "@modes", "-", "prev_diff", "next_diff",
    "next_problem", "-", "tools", "paste", "-", "@target",
)  # fmt: skip

#: Keys that belong to no action, for the shortcuts dialog (and the README's table).
KEY_NOTES = (("Esc", "clear the filter (in the filter box)"),)


def spec(name: str) -> ActionSpec:
    """The action of that name."""
    return next(a for a in ACTIONS if a.name == name)


def menu_rows(menu: str) -> list[ActionSpec | None]:
    """A menu's actions in order, None where a separator goes between groups."""
    rows: list[ActionSpec | None] = []
    group = None
    for action in ACTIONS:
        if action.menu != menu:
            continue
        if group is not None and action.group != group:
            rows.append(None)
        rows.append(action)
        group = action.group
    return rows
