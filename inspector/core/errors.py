"""Every error the project raises on purpose, and the one value that says where it happened.

```
InspectorError                 the root: one line through str(), never a traceback for the user
├── LoadError                  a file could not be read as a transcript (file, line, column, event)
├── JSONError                  JSON that cannot be parsed (line, column, offset)   [core.jsonio]
├── ArgumentsError             an `arguments` string is not strict JSON (line, column)
├── UsageError                 a command line that cannot run as given: exit status 2
├── Cancelled                  work stopped because its cancel flag was set
├── RemoteReferenceRefused     a schema's remote $ref, never fetched               [core.schema]
├── BudgetExceeded             validation overran its backtrack or time budget     [core.schema]
├── SchemaRefused              a schema not run: too complex or invalid (pointer)  [core.schema]
├── ProfileError               a target profile's data is malformed                [core.targets]
├── UnknownTarget              no target profile has that name (also a KeyError)   [core.targets]
├── RedactPatternError         a --redact pattern that does not compile            [core.report]
└── PoolError                  a scan's worker process failed or ended mid-task    [core.fleet_pool]
```
The classes marked with a module live beside the code that raises them and derive from
`InspectorError`; a test checks that every public error of the package does. Each error has a
`message` (what) and a `where` (`Location`: file, line, column, event, pointer): one shape for
every "where", rendered by `Location.prefix()`.
"""

from __future__ import annotations

from typing import Any

from inspector.core.codes import FrozenValue


class Location(FrozenValue):
    """Where something happened: any of file, 1-based line and column, event number, pointer."""

    FIELDS = ("path", "line", "column", "event", "pointer", "offset")
    __slots__ = FIELDS
    path: str | None
    line: int | None
    column: int | None
    event: int | None
    pointer: str | None
    offset: int | None  # 0-based character offset, as the JSON parsers count

    def __init__(
        self,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
        event: int | None = None,
        pointer: str | None = None,
        offset: int | None = None,
    ) -> None:
        self._fill(path, line, column, event, pointer, offset)

    def prefix(self, unnamed: str = "<input>") -> str:
        """'file:line:column (event N) at /pointer', with the parts that are known."""
        parts = [self.path or unnamed]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        text = ":".join(parts)
        if self.event is not None:
            text += f" (event {self.event})"
        if self.pointer is not None:
            text += f" at {self.pointer or '/'}"
        return text

    def position(self) -> str:
        """'line L column C' (or '' when neither is known), for messages that name no file."""
        if self.line is None:
            return ""
        return f"line {self.line}" + (f" column {self.column}" if self.column is not None else "")


class InspectorError(Exception):
    """Base of every error the project raises on purpose."""

    #: Where it happened; subclasses that know set it.
    where: Location = Location()

    @property
    def message(self) -> str:
        """What happened, without where."""
        return str(self.args[0]) if self.args else ""

    @property
    def line(self) -> int | None:
        """The 1-based line, when known."""
        return self.where.line

    @property
    def column(self) -> int | None:
        """The 1-based column, when known."""
        return self.where.column


class LoadError(InspectorError):
    """A file could not be read as a transcript; says where and what."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
        event_index: int | None = None,
        pointer: str | None = None,
    ) -> None:
        super().__init__(message)
        self.where = Location(path, line, column, event_index, pointer)

    @property
    def path(self) -> str | None:
        """The file's name as the user gave it (None for standard input or pasted text)."""
        return self.where.path

    @property
    def event_index(self) -> int | None:
        """The stream event's number, when the error is in one."""
        return self.where.event

    def location(self) -> str:
        """Return 'file:line:column' (or the parts that are known)."""
        return self.where.prefix()

    def __str__(self) -> str:
        return f"{self.location()}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        """Return the error as the CLI's JSON error object."""
        data: dict[str, Any] = {"message": self.message, "line": self.line, "column": self.column}
        if self.event_index is not None:
            data["event_index"] = self.event_index
        if self.where.pointer is not None:
            data["pointer"] = self.where.pointer
        return data


class Cancelled(InspectorError):
    """Work stopped because its cancel flag was set (a load or gate the user no longer wants)."""


class UsageError(InspectorError):
    """A command line that cannot run as given (exit status 2, message on stderr)."""


class ArgumentsError(InspectorError):
    """An `arguments` string is not strict JSON; carries line and column when known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.where = Location(line=line, column=column)

    def describe(self) -> str:
        """Return the message with its position."""
        if self.line is None:
            return self.message
        return f"{self.message} at {self.where.position()}"


class JSONError(InspectorError):
    """JSON that cannot be parsed: the reason, and the 1-based line and column when known."""

    def __init__(
        self,
        message: str,
        line: int | None = None,
        column: int | None = None,
        offset: int | None = None,
    ) -> None:
        super().__init__(message)
        self.where = Location(line=line, column=column, offset=offset)

    @property
    def offset(self) -> int | None:
        """The 0-based character offset, when known."""
        return self.where.offset

    def describe(self) -> str:
        """Return the reason with its position, as the standard library words it."""
        if self.column is None:
            return self.message
        return f"{self.message}: {self.where.position()} (char {self.offset})"
