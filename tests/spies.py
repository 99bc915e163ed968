"""Spies that tests put in place of a library, to see what the code under test asks of it."""

from __future__ import annotations

from collections import Counter

import orjson


class CountingJson:
    """Stands in for orjson in the session reader: counts every line it is asked to parse."""

    JSONDecodeError = orjson.JSONDecodeError

    def __init__(self) -> None:
        self.parsed: Counter[bytes] = Counter()

    def loads(self, raw: bytes) -> object:
        """Parse as orjson does, counting the line."""
        self.parsed[bytes(raw).strip()] += 1
        return orjson.loads(raw)
