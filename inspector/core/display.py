"""Display helpers for untrusted values: huge integers by their digit count, and clipping that
never keeps part of a token (so a clipped message cannot keep half a secret).

Numbers: a huge integer is shown by its digit count, never spelled out whole.

Files hold integers of any length (the parser keeps them exact). Python refuses to turn an
integer of more than 4,300 digits into text (CVE-2020-10735) and takes quadratic time past it,
so every place that shows one to a person goes through `show_int` / `show_number`, and the
parser's module lifts the limit to TEXT_DIGITS so that exact JSON output never fails.
"""

from __future__ import annotations

import math
import re
import sys
from typing import Any

#: Longest integer spelled out in full when it is shown to a person.
SHOWN_DIGITS = 40
#: Digits an integer may have for it to be converted to text exactly (JSON output): about
#: 0.2 s of conversion at most. The parser refuses longer integer literals.
TEXT_DIGITS = 100_000
#: Digits kept at each end of a huge integer's digit-count form.
_ENDS = 8
_LONG_RUN = re.compile(rf"\d{{{SHOWN_DIGITS + 1},}}")


#: Characters that credentials are made of (base64, base64url, the usual separators): a cut
#: never falls inside a run of them.
_TOKEN_RUN = re.compile(r"[A-Za-z0-9._~+/=-]+")


def cut(text: str, limit: int, mark: str = "…") -> str:
    """The text clipped to `limit` characters (with `mark`), never keeping part of a token.

    A message clipped before redaction runs (a core error message, say) could otherwise keep
    the first characters of a key that the redactor then cannot recognise. Tokens longer than
    a quarter of the limit are replaced whole by their length first, so that what surrounds a
    huge value (`'…(100,000 chars)' is not one of ['x']`) survives the cut.
    """
    if len(text) <= limit:
        return text
    longest = max(limit // 4, 1)
    text = _TOKEN_RUN.sub(
        lambda m: m[0] if len(m[0]) <= longest else f"{mark}({len(m[0]):,} chars)", text
    )
    if len(text) <= limit:
        return text
    end = max(limit - len(mark), 0)
    if end and _TOKEN_RUN.fullmatch(text, end - 1, end + 1):
        # The cut splits a token: drop the whole token. Only its run is scanned backwards.
        start = end - 1
        while start > 0 and _TOKEN_RUN.fullmatch(text, start - 1, start):
            start -= 1
        end = start
    return text[:end] + mark


def lift_digit_limit() -> None:
    """Let integers of up to TEXT_DIGITS digits become text (unless the limit is already off)."""
    current = sys.get_int_max_str_digits()
    if current and current < TEXT_DIGITS:
        sys.set_int_max_str_digits(TEXT_DIGITS)


def digit_count(value: int) -> int:
    """The number of decimal digits of |value|, without converting it to text."""
    value = abs(value)
    if value < 10:
        return 1
    # log10 of an int of any size is exact enough to be off by one at most; one power decides.
    guess = int(math.log10(value)) + 1
    if value >= 10**guess:
        return guess + 1
    if value < 10 ** (guess - 1):
        return guess - 1
    return guess


def show_int(value: int) -> str:
    """The integer in full up to SHOWN_DIGITS digits, else `12345678…45678901 (5,000 digits)`."""
    count = digit_count(value)
    if count <= SHOWN_DIGITS:
        return str(value)
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    head = magnitude // 10 ** (count - _ENDS)
    tail = magnitude % 10**_ENDS
    return f"{sign}{head}…{tail:0{_ENDS}d} ({count:,} digits)"


def show_number(value: Any) -> str:
    """repr() for display: integers past SHOWN_DIGITS digits in their digit-count form."""
    if isinstance(value, int) and not isinstance(value, bool):
        return show_int(value)
    return repr(value)


def shorten_digits(text: str) -> str:
    """The text with every run of more than SHOWN_DIGITS digits in its digit-count form."""
    if len(text) <= SHOWN_DIGITS:
        return text
    return _LONG_RUN.sub(lambda m: f"{m[0][:_ENDS]}…{m[0][-_ENDS:]} ({len(m[0]):,} digits)", text)


__all__ = [
    "SHOWN_DIGITS",
    "TEXT_DIGITS",
    "cut",
    "digit_count",
    "lift_digit_limit",
    "shorten_digits",
    "show_int",
    "show_number",
]
