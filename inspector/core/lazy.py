"""Regular expressions compiled on first use: a module that holds one does not pay for it (nor
for importing the `regex` engine) at import, which every command and worker process would."""

from __future__ import annotations

import importlib
import threading
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
