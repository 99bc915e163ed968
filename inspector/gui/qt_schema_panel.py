"""The Arguments tab: edit an item's arguments and watch the core re-check them as you type.

Nothing here is ever written back: the file on disk is untouched, and nothing is auto-fixed.
Checks run on a worker thread under the core's time budget; a newer edit cancels the older
check, so a schema pattern that backtracks catastrophically never freezes the window.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QMenu,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from inspector.core.gate import (
    ItemVerdict,
    ToolSet,
    Verdict,
    arguments_verdict,
    check_arguments,
)
from inspector.core.jsonio import load_json, parse_arguments
from inspector.core.model import ArgumentsError, Derivation, LoadError, Tool
from inspector.core.schema import DEFAULT_BUDGET, SchemaIssue
from inspector.gui import qt_palette
from inspector.gui.json_text import (
    STRING_LIMIT,
    display,
    elide,
    locate,
    pretty,
    preview,
    visible,
)
from inspector.gui.qt_banner import VerdictBanner
from inspector.gui.qt_json_view import JsonView
from inspector.gui.qt_records import PayloadRole, Record, RecordsModel, fit_columns, records_view
from inspector.gui.qt_text import PlainLabel, dim, monospace_font, plain_label, tooltip
from inspector.gui.qt_workers import BUSY_DELAY_MS, TaskRunner, debounce

#: Milliseconds between the last keystroke and the re-check.
CHECK_DELAY_MS = 250
#: Arguments longer than this are shown shortened and read-only, and checked in full as they
#: are in the file: a text editor cannot lay out a multi-megabyte line at typing speed.
EDIT_LIMIT = 100_000
#: Longest text the one-line raw arguments box shows.
RAW_LIMIT = 4000
#: The runner channel of the checks.
CHANNEL = "arguments"
#: The caption over an item's arguments as the file holds them, over arguments serialised
#: from a source's object, and over a marker a publisher put in place of the arguments.
RAW_CAPTION = "Raw arguments (the literal string in the file)"
DERIVED_CAPTION = "Arguments (serialised here: the file holds an object, not the model's text)"
REDACTED_CAPTION = "Raw arguments (a publisher's redaction marker, not the model's text)"

#: What the panel says about pasted arguments with no tool to check them against.
NO_TOOLS = (
    "No tools are loaded to check these arguments against: load tools (Ctrl+T) or paste "
    "a schema into the box on the right."
)
PICK_TOOL = "Pick the tool these arguments are for, or paste a schema into the box on the right."
#: What the panel says when "(no tool)" is chosen for an item that names a tool.
NO_TOOL_CHOSEN = "No tool chosen: pick one above the schema, or paste a schema there."
#: The tool name a schema typed with no tool chosen is checked under.
SCHEMA_BOX = "schema box"

#: Item verdicts decided before the arguments are looked at; the panel says so.
_EARLIER = (Verdict.NAMESPACED, Verdict.NOT_FUNCTION_CALL, Verdict.STATUS)


@dataclass(frozen=True, slots=True)
class _Value:
    """Arguments to check as they are (a non-string `arguments` too large to edit)."""

    value: Any


def check(
    source: str | _Value,
    name: str | None,
    toolset: ToolSet,
    budget: float,
    cancel: threading.Event,
    redacted: bool = False,
) -> ItemVerdict:
    """Judge arguments text (or an already parsed value) for the named tool, as `gate` does
    (`redacted`: the text is the item's, a publisher's redaction marker)."""
    if isinstance(source, str):
        return arguments_verdict(
            source, name, toolset, budget=budget, cancel=cancel, redacted=redacted
        )
    return check_arguments(name, source.value, toolset, budget=budget, cancel=cancel)


def _underline() -> QColor:
    """The colour of the wavy line under an error in the editor."""
    return qt_palette.severity_swatch("error").foreground.color()


def _section(text: str, parent: QWidget) -> PlainLabel:
    label = plain_label(text, parent)
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    return label


class ArgumentsPanel(QWidget):
    """Raw arguments, the parsed text (editable), the tool's schema, and the errors."""

    #: Emitted after each re-check with the verdict word ('' when nothing was checked).
    checked = Signal(str)

    def __init__(self, parent: QWidget | None = None, runner: TaskRunner | None = None) -> None:
        super().__init__(parent)
        self.runner = runner if runner is not None else TaskRunner(self)
        #: Seconds one check may take before the core stops it with a `budget` error.
        self.budget = DEFAULT_BUDGET
        #: Set when the arguments are too long to edit: what is checked instead of the editor.
        self._fixed: str | _Value | None = None
        self._raw: Any = None
        self._original = ""
        #: Whether the item's arguments are a publisher's redaction marker (`_show_caption`).
        self._redacted = False
        self._toolset = ToolSet()
        self._logged: ItemVerdict | None = None
        self._setting = False
        #: The schema box's text as the tool gave it, and the caption that says whence.
        self._schema_original = ""
        self._schema_caption = ""
        self.verdict: Verdict | None = None
        self.issues: tuple[SchemaIssue, ...] = ()
        self._timer = debounce(self, CHECK_DELAY_MS, self.recheck)
        self._busy_timer = debounce(self, BUSY_DELAY_MS, self._show_busy)

        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)
        outer.setSpacing(4)
        top = QHBoxLayout()
        self.banner = VerdictBanner(self)
        self.edited_label = plain_label("edited — not saved to the file", self)
        dim(self.edited_label)
        self.revert_button = QPushButton("Revert", self)
        self.revert_button.setToolTip(tooltip("Put back the arguments as they are in the file"))
        self.revert_button.clicked.connect(self.revert)
        self.copy_button = QToolButton(self)
        self.copy_button.setText("Copy")
        self.copy_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        copy_menu = QMenu(self.copy_button)
        self.copy_string_action = copy_menu.addAction("Copy as Arguments String")
        self.copy_string_action.setToolTip(
            tooltip("The edited arguments as the escaped JSON string an item's arguments holds")
        )
        self.copy_string_action.triggered.connect(
            lambda _c=False: QGuiApplication.clipboard().setText(self.arguments_string())
        )
        self.copy_item_action = copy_menu.addAction("Copy Item with These Arguments")
        self.copy_item_action.triggered.connect(
            lambda _c=False: QGuiApplication.clipboard().setText(self.item_with_arguments() or "")
        )
        self.copy_button.setMenu(copy_menu)
        top.addWidget(self.banner, 1)
        top.addWidget(self.edited_label)
        top.addWidget(self.copy_button)
        top.addWidget(self.revert_button)
        outer.addLayout(top)
        self.note = plain_label("", self)
        self.note.setWordWrap(True)
        dim(self.note)
        outer.addWidget(self.note)

        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.setObjectName("arguments-split")
        split.setChildrenCollapsible(False)
        split.addWidget(self._build_arguments_side(split))
        split.addWidget(self._build_schema_side(split))
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        self.splitter = split
        outer.addWidget(split, 1)
        self.clear()

    def _build_arguments_side(self, parent: QWidget) -> QWidget:
        side = QWidget(parent)
        column = QVBoxLayout(side)
        column.setContentsMargins(0, 0, 4, 0)
        column.setSpacing(3)
        self.raw_caption = _section(RAW_CAPTION, side)
        self.raw_caption.setObjectName("raw-arguments-caption")
        column.addWidget(self.raw_caption)
        self.raw_view = QLineEdit(side)
        self.raw_view.setReadOnly(True)
        self.raw_view.setFont(monospace_font())
        self.raw_view.setObjectName("raw-arguments")
        column.addWidget(self.raw_view)
        column.addWidget(_section("Parsed arguments (editable)", side))
        self.editor = JsonView(side, read_only=False)
        self.editor.setObjectName("arguments-editor")
        self.editor.textChanged.connect(self._edited)
        column.addWidget(self.editor, 3)
        column.addWidget(_section("Validation errors", side))
        self.errors = RecordsModel(("Pointer", "Keyword", "Message", "Schema path"), self)
        self.errors_view = records_view(self.errors, side)
        self.errors_view.setObjectName("arguments-errors")
        self.errors_view.selectionModel().currentRowChanged.connect(self._error_selected)
        column.addWidget(self.errors_view, 2)
        return side

    def _build_schema_side(self, parent: QWidget) -> QWidget:
        side = QWidget(parent)
        column = QVBoxLayout(side)
        column.setContentsMargins(4, 0, 0, 0)
        column.setSpacing(3)
        row = QHBoxLayout()
        row.addWidget(_section("Tool", side))
        self.tool_combo = QComboBox(side)
        self.tool_combo.setObjectName("tool-picker")
        # The picker spans the row: a long (or escaped) tool name shows whole.
        self.tool_combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.tool_combo.setMinimumContentsLength(12)
        self.tool_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.tool_combo.currentIndexChanged.connect(self._tool_picked)
        row.addWidget(self.tool_combo, 1)
        column.addLayout(row)
        caption = QHBoxLayout()
        self.schema_source = plain_label("", side)
        self.schema_source.setWordWrap(True)
        dim(self.schema_source)
        self.schema_revert_button = QPushButton("Revert", side)
        self.schema_revert_button.setObjectName("schema-revert")
        self.schema_revert_button.setToolTip(tooltip("Put back the tool's schema"))
        self.schema_revert_button.clicked.connect(self.revert_schema)
        caption.addWidget(self.schema_source, 1)
        caption.addWidget(self.schema_revert_button)
        column.addLayout(caption)
        self.schema_view = JsonView(side, read_only=False)
        self.schema_view.setObjectName("tool-schema")
        self.schema_view.textChanged.connect(self._schema_edited)
        column.addWidget(self.schema_view, 1)
        return side

    # ---- content --------------------------------------------------------------------------

    def clear(self) -> None:
        """Show the panel with nothing to check."""
        self.set_item(None, None, ToolSet())

    def set_item(
        self,
        raw: Any,
        logged: ItemVerdict | None,
        toolset: ToolSet,
        derived: Derivation | None = None,
    ) -> None:
        """Check an item's arguments (raw may be any JSON value; None shows an empty editor);
        `derived` says how a converted item's arguments were made when the source had no text."""
        if raw is not None and raw is self._raw and toolset is self._toolset:
            return  # the same item shown again (e.g. the diff arrived): keep the user's edits
        self._show_caption(derived)
        self._raw = raw
        self._logged = logged
        self._toolset = toolset
        self._fixed = None
        arguments = raw.get("arguments") if isinstance(raw, dict) else None
        if isinstance(arguments, str):
            self._show_raw(preview(arguments, RAW_LIMIT))
            if len(arguments) > EDIT_LIMIT:
                self._fixed = arguments
                parsed = logged.parsed if logged is not None else None
                if parsed is not None:
                    text = display(parsed).text
                else:
                    text = elide(arguments, STRING_LIMIT)
            else:
                try:
                    text = pretty(parse_arguments(arguments))
                except ArgumentsError:
                    text = arguments  # shown as written so the fault can be seen and fixed
        elif isinstance(raw, dict) and "arguments" in raw:
            shown = display(arguments)
            self._show_raw(elide(shown.text.replace("\n", " "), RAW_LIMIT))
            text = shown.text
            if not shown.complete or len(text) > EDIT_LIMIT:
                self._fixed = _Value(arguments)
        else:
            self.raw_view.setText("")
            text = ""
        name = raw.get("name") if isinstance(raw, dict) else None
        self._fill_tools(name if isinstance(name, str) else None)
        self._set_original(text)
        self._show_note()
        self.recheck()

    def _show_raw(self, text: str) -> None:
        self.raw_view.setText(text)
        self.raw_view.setCursorPosition(0)  # a long literal reads from its start, not its end

    def _show_caption(self, derived: Derivation | None) -> None:
        # A source that stored the arguments as an object (Claude Code, OTel, Inspect, a
        # converted API) has no literal string: the one shown was serialised here. A rollout
        # whose publisher redacted them holds a string, but not the model's.
        self._redacted = derived is not None and derived.how == "redacted"
        if derived is None:
            self.raw_caption.setText(RAW_CAPTION)
            self.raw_caption.setToolTip("")
        else:
            self.raw_caption.setText(REDACTED_CAPTION if self._redacted else DERIVED_CAPTION)
            self.raw_caption.setToolTip(tooltip(f"Arguments {derived.how}: {derived.detail}"))

    def set_bare_arguments(self, text: str, toolset: ToolSet, tool: str | None = None) -> None:
        """Check a pasted arguments object against a tool: `tool`, else the one chosen before,
        else the only one known (with several, the user picks)."""
        current = self._tool_name()
        self._show_caption(None)
        self._raw = None
        self._logged = None
        self._toolset = toolset
        self._fixed = None
        self.raw_view.setText("")
        names = toolset.names()
        if tool is None:
            tool = current if current in toolset.tools else (names[0] if len(names) == 1 else None)
        self._fill_tools(tool)
        self._set_original(text)
        if not names:
            self._note_text(NO_TOOLS)
        else:
            self._note_text("Pasted arguments, checked against the tool you pick.")
        self.recheck()

    def _set_original(self, text: str) -> None:
        self._set_editor(text)
        # What the editor shows (invisible characters escaped) is what an edit is compared to.
        self._original = self.editor.toPlainText()
        self._update_edited()

    def set_schema_text(self, text: str) -> None:
        """Put a schema in the schema box, as if typed there (it then overrides the tool's)."""
        self.schema_view.setPlainText(text)

    def _set_editor(self, text: str) -> None:
        self._setting = True
        try:
            self.editor.set_text(text)
            self.editor.setReadOnly(self._fixed is not None)
        finally:
            self._setting = False
        self._update_edited()

    @property
    def editable(self) -> bool:
        """Whether the editor holds the arguments in full (False: shortened, read-only)."""
        return self._fixed is None

    def _fill_tools(self, preferred: str | None) -> None:
        self._setting = True
        try:
            self.tool_combo.clear()
            # Nothing chosen is a choice of its own: an item that names no tool (a message,
            # an output) must not show some unrelated tool's schema.
            self.tool_combo.addItem("(no tool)", None)
            for name in self._toolset.names():
                tool = self._toolset.tools[name]
                self.tool_combo.addItem(visible(name), name)
                self.tool_combo.setItemData(
                    self.tool_combo.count() - 1,
                    tooltip(f"{name}\nfrom {tool.source}"),
                    Qt.ItemDataRole.ToolTipRole,
                )
            if preferred is not None and preferred not in self._toolset.tools:
                self.tool_combo.addItem(f"{visible(preferred)}  (no schema known)", preferred)
            at = self.tool_combo.findData(preferred) if preferred is not None else 0
            self.tool_combo.setCurrentIndex(max(at, 0))
        finally:
            self._setting = False
        self._show_schema()

    def _tool_name(self) -> str | None:
        data = self.tool_combo.currentData()
        return data if isinstance(data, str) else None

    def _show_schema(self) -> None:
        name = self._tool_name()
        tool = self._toolset.tools.get(name) if name is not None else None
        self._setting = True
        try:
            if tool is None:
                self.schema_view.set_text("")
                self._schema_caption = (
                    "No schema for this name — paste one here to check against it."
                    if name
                    else "No tool chosen: pick one above, or paste a schema here."
                )
                self.schema_source.setToolTip("")
            else:
                self.schema_view.set_text(pretty(tool.parameters))
                where = tool.origin.file if tool.origin is not None else None
                self._schema_caption = (
                    f"parameters of {visible(tool.name)} from "
                    f"{os.path.basename(where or tool.source)}"
                )
                self.schema_source.setToolTip(tooltip(where or tool.source))
        finally:
            self._setting = False
        self._schema_original = self.schema_view.toPlainText()
        self._update_schema_edited()

    @property
    def schema_edited(self) -> bool:
        """Whether the schema box differs from the chosen tool's schema (or from empty)."""
        return self.schema_view.toPlainText() != self._schema_original

    def _update_schema_edited(self) -> None:
        edited = self.schema_edited
        caption = self._schema_caption
        if edited:
            whose = "edited — not saved" if self._schema_original else "typed here"
            caption = f"{caption.rstrip('.')} — {whose}" if self._schema_original else whose
        self.schema_source.setText(caption)
        self.schema_revert_button.setVisible(edited)

    def revert_schema(self) -> None:
        """Put back the chosen tool's schema (or an empty box) and check again."""
        self._show_schema()
        self.recheck()

    def _show_note(self) -> None:
        self._note_text(self._note_for())

    def _note_text(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def _note_for(self) -> str:
        logged = self._logged
        if self._fixed is not None:
            size = f" ({len(self._fixed):,} chars)" if isinstance(self._fixed, str) else ""
            return (
                f"These arguments are too long to edit here{size}: they are shown shortened "
                "and read-only, and checked in full against the tool you pick."
            )
        if self._raw is None:
            return "Type or paste an arguments object to check it against a tool."
        elif logged is not None and logged.verdict in _EARLIER:
            return (
                f"The item itself is stopped before its arguments: {logged.verdict} — "
                f"{logged.detail}"
            )
        elif not isinstance(self._raw, dict) or "arguments" not in self._raw:
            return "This item has no arguments; type some to check them."
        elif logged is not None and logged.verdict == Verdict.ARGUMENTS_TYPE:
            return (
                "In the file, arguments is not a string (arguments_type); its value is shown "
                "here so it can be checked against the schema."
            )
        return ""

    # ---- checking -------------------------------------------------------------------------

    def _edited(self) -> None:
        if self._setting:
            return
        self._update_edited()
        self._timer.start()

    def _update_edited(self) -> None:
        edited = self._fixed is None and self.editor.toPlainText() != self._original
        self.edited_label.setVisible(edited)
        self.revert_button.setEnabled(edited)
        self.copy_item_action.setEnabled(isinstance(self._raw, dict))

    def _schema_edited(self) -> None:
        if self._setting:
            return
        self._update_schema_edited()
        self._timer.start()

    def _tool_picked(self, _index: int) -> None:
        if self._setting:
            return
        self._show_schema()
        self.recheck()

    def arguments_string(self) -> str:
        """The edited arguments as the JSON string literal an item's `arguments` holds.

        Arguments that parse are written compactly (invisible characters shown escaped in the
        editor come back as themselves); text that does not parse is quoted as it stands.
        """
        if isinstance(self._fixed, str):
            return json.dumps(self._fixed, ensure_ascii=False)
        if isinstance(self._fixed, _Value):
            text = json.dumps(self._fixed.value, ensure_ascii=False, separators=(",", ":"))
            return json.dumps(text, ensure_ascii=False)
        source = self.editor.toPlainText()
        try:
            value = parse_arguments(source)
        except ArgumentsError:
            return json.dumps(source, ensure_ascii=False)
        compact = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        return json.dumps(compact, ensure_ascii=False)

    def item_with_arguments(self) -> str | None:
        """The shown item as indented JSON with the edited arguments (None for pasted ones)."""
        if not isinstance(self._raw, dict):
            return None
        item = dict(self._raw)
        item["arguments"] = json.loads(self.arguments_string())
        return pretty(item)

    def revert(self) -> None:
        """Put back the original arguments text."""
        self._set_editor(self._original)
        self.recheck()

    def _effective_toolset(self) -> tuple[ToolSet, str | None, str | None]:
        """The toolset with the schema box applied, the name to check under, and a problem
        with the box, if any. A schema typed with no tool chosen is checked under the item's
        name (or a name of its own for pasted arguments)."""
        name = self._tool_name()
        text = self.schema_view.toPlainText()
        if not text.strip() or not self.schema_edited:
            return self._toolset, name, None
        if name is None:
            named = self._raw.get("name") if isinstance(self._raw, dict) else None
            name = named if isinstance(named, str) else SCHEMA_BOX
        try:
            schema = load_json(text, SCHEMA_BOX)
        except LoadError as exc:
            problem = f"the schema box is not JSON ({exc.location()}: {exc.message})"
            return self._toolset, name, problem
        tools = dict(self._toolset.tools)
        tools[name] = Tool(name, schema, "function", SCHEMA_BOX)
        allowed = self._toolset.allowed
        if allowed is not None and name == SCHEMA_BOX:
            allowed = frozenset({*allowed, name})  # a name of the panel's, not the item's
        return ToolSet(MappingProxyType(tools), allowed), name, None

    @property
    def validating(self) -> bool:
        """Whether a check is running (its result not yet shown)."""
        return self.runner.busy(CHANNEL)

    def stop(self) -> None:
        """Cancel the running check: its core validation stops and its result is dropped."""
        self._timer.stop()
        self._busy_timer.stop()
        self.runner.cancel(CHANNEL, notify=False)

    def recheck(self) -> None:
        """Check the arguments against the chosen tool on a worker (core functions only).

        A check still running is cancelled first; "validating…" shows while the new one runs.
        """
        self.stop()
        self.editor.clear_marks("errors")
        self.editor.clear_marks("selected")
        toolset, name, schema_problem = self._effective_toolset()
        if schema_problem is not None:
            self._show(None, schema_problem, (), [])
            return
        source: str | _Value = self._fixed if self._fixed is not None else self.editor.toPlainText()
        if isinstance(source, str) and not source.strip():
            self._show(None, "Nothing to check.", (), [])
            return
        named = self._raw.get("name", None) if isinstance(self._raw, dict) else None
        if name is None and isinstance(named, str):
            # "(no tool)" chosen for a call that names one: say so, not "name is null".
            self._show(None, NO_TOOL_CHOSEN, (), [])
            return
        if name is None and not (isinstance(self._raw, dict) and "name" in self._raw):
            # Pasted arguments, or typed ones for an item that names no tool: say what to do
            # rather than judge a missing name.
            self._show(None, NO_TOOLS if not self._toolset.tools else PICK_TOOL, (), [])
            return
        cancel = threading.Event()
        budget = self.budget
        # The marker as the file has it is judged as `gate` judges it; an edit of it is not.
        redacted = self._redacted and source == self._original
        self.verdict = None
        self._busy_timer.start()
        self.runner.start(
            CHANNEL,
            lambda _progress: check(source, name, toolset, budget, cancel, redacted),
            self._checked,
            lambda error: self._show(None, f"cannot check: {error}", (), []),
            cancel=cancel,
        )

    def _show_busy(self) -> None:
        if self.validating:
            self.banner.show_verdict(None, "validating…")
            self.errors.set_records([])

    def _checked(self, outcome: ItemVerdict) -> None:
        self._busy_timer.stop()
        exc = outcome.parse_error
        if exc is not None:
            row = Record(("", "parse", exc.describe(), ""), payload=exc)
            self._show(Verdict.ARGUMENTS_PARSE, outcome.detail, (), [row])
            if exc.line is not None and self.editable:
                brush = qt_palette.verdict_swatch(Verdict.ARGUMENTS_PARSE).background
                if brush is not None:
                    # Marked only: the cursor stays where the user is typing (a pause inside
                    # a string is a parse error, and moving there would garble what follows).
                    self.editor.mark_position(
                        exc.line, exc.column or 1, "errors", brush, _underline()
                    )
            return
        rows = [
            Record(
                (issue.path or "/", issue.keyword, issue.message, issue.schema_path),
                payload=issue,
            )
            for issue in outcome.errors
        ]
        self._show(outcome.verdict, outcome.detail, outcome.errors, rows)
        brush = qt_palette.verdict_swatch(outcome.verdict).background
        if brush is not None and outcome.errors:
            spans = [self._span(issue.path) for issue in outcome.errors]
            marked = [s for s in spans if s is not None]
            self.editor.mark_spans("errors", marked, brush, underline=_underline())

    def _span(self, pointer: str) -> tuple[int, int] | None:
        return locate(self.editor.toPlainText(), pointer)

    def _show(
        self,
        verdict: Verdict | None,
        detail: str,
        issues: tuple[SchemaIssue, ...],
        rows: list[Record],
    ) -> None:
        self.verdict = verdict
        self.issues = issues
        self.banner.show_verdict(verdict, detail)
        self.errors.set_records(rows)
        fit_columns(self.errors_view, stretch=2)  # the message
        self.checked.emit(str(verdict) if verdict is not None else "")

    def _error_selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            return
        payload = self.errors.index(current.row(), 0).data(PayloadRole)
        brush = qt_palette.change_swatch(qt_palette.ChangeLevel.MAJOR).background
        if brush is None:
            return
        if isinstance(payload, SchemaIssue):
            self.editor.show_pointer(payload.path, "selected", brush)
        elif isinstance(payload, ArgumentsError) and payload.line is not None and self.editable:
            self.editor.show_position(payload.line, payload.column or 1, "selected", brush)
