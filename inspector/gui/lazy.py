"""Names imported on their first call, so that the window paints before the modules behind it
(the file formats, the stream reducer) are imported."""

from __future__ import annotations

from importlib import import_module
from typing import Any


class OnFirstCall:
    """A stand-in for `module.name` (a function or class) that imports it when first called."""

    __slots__ = ("_module", "_name", "_target")

    def __init__(self, module: str, name: str) -> None:
        self._module, self._name = module, name
        self._target: Any = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the real function (or make the real class's object)."""
        if self._target is None:
            self._target = getattr(import_module(self._module), self._name)
        return self._target(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<{self._module}.{self._name}, imported on first call>"
