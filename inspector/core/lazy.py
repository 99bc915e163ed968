"""Work deferred to first use: regular expressions compiled (and the `regex` engine imported)
when first used, a package's names imported from their submodules when first asked for. A
module that holds them does not pay for them at import, which every command, worker process
and window start would."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Mapping
from typing import Any


class LazyPattern:
    """Stands for a compiled pattern: compiled, by `re` or `regex`, when first used.

    Its methods (`sub`, `match`, `search` …) are the compiled pattern's; once compiled they are
    looked up as fast as the pattern's own.
    """

    def __init__(self, pattern: str | bytes, flags: int = 0, *, engine: str = "re") -> None:
        self._source = (pattern, flags, engine)
        self._lock = threading.Lock()

    def compiled(self) -> Any:
        """The compiled pattern (compiled now if this is its first use)."""
        with self._lock:
            found = self.__dict__.get("_compiled")
            if found is None:
                pattern, flags, engine = self._source
                found = importlib.import_module(engine).compile(pattern, flags)
                self.__dict__["_compiled"] = found
        return found

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        method = getattr(self.compiled(), name)
        self.__dict__[name] = method  # the next lookup finds it at once
        return method

    def __repr__(self) -> str:
        pattern, _flags, engine = self._source
        return f"<{engine} pattern {pattern!r}, compiled on first use>"


def names_on_first_use(
    package: str, where: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], object]:
    """A package's `__getattr__` that imports each of its names from its submodule when first
    asked for (`where`: name → submodule) and keeps it in the package's `namespace`."""

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    return __getattr__
