"""Redaction of secrets in every string that reaches a report: built-in key shapes and user regexes.

Each hit becomes `[redacted:<kind>]`. For a `key: value` shape (an `Authorization` header, an
`aws_secret_access_key` setting, a `Bearer` token) only the value is replaced, so the reader
still sees what was there. Kinds, in the order they are tried at one position:

- `private_key`: a PEM private-key block (to its END line, or to the end of the text when the
  log cut it off);
- `jwt`: a JSON Web Token (`eyJ…` header and payload, signature possibly empty);
- `anthropic` (`sk-ant-…`), then `openai` (`sk-…`, `sk-proj-…`, `sk-svcacct-…`, `sk-admin-…`);
- `github` (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`);
- `google` (`AIza…`);
- `aws_access_key_id` (`AKIA…`, `ASIA…`, `ABIA…`, `ACCA…`) and `aws_secret_access_key` (the value
  of that setting, in any case, as env var, JSON or INI);
- `bearer`: the token after `Bearer`;
- `authorization` and `api_key`: the value of an `Authorization` / `Proxy-Authorization` header,
  or of `api-key`, `x-api-key`, `x-goog-api-key`, `api_key` (also in a query string);
- `custom`: a match of a `--redact REGEX`.

Redaction runs on a whole value before anything is shortened for display, so a clipped value can
never keep half a key. Counts are of distinct secret values per kind: the same key quoted in ten
items, or shown twice in one report, is one value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from inspector.core.model import InspectorError

#: Characters a token is made of (base64, base64url and the usual separators).
_TOKEN = r"[A-Za-z0-9._~+/=-]"
#: What may sit between a key name and its value: a closing quote, `:` or `=`, an opening quote,
#: each quote possibly backslash-escaped (JSON inside a JSON string, as `arguments` often is).
_ASSIGN = r"""\\*["']?\s*[:=]\s*\\*["']?"""

#: (kind, pattern); a pattern with a group named `value` has only that group replaced.
#: No pattern starts with `\b`: a key right after a letter, a digit, `_` or the `n` of a `\n`
#: escape is still a key. Every scan past a literal prefix is possessive and, where a match
#: may still be refused (see `_REFUSE`), consumes what it scanned, so one pass over a string
#: is linear: nothing is rescanned from every later start.
BUILTIN_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        "private_key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\Z)",
    ),
    # The header stops before another `eyJ`: a failed header is never rescanned from inside.
    ("jwt", r"eyJ(?:(?!eyJ)[A-Za-z0-9_-]){4,}+\.eyJ[A-Za-z0-9_-]{4,}+\.[A-Za-z0-9_-]*+"),
    ("anthropic", r"sk-ant-[A-Za-z0-9_-]{16,}+"),
    # A digit somewhere keeps words such as `sk-learn-pipeline-notes` out (checked on the match).
    ("openai", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}+"),
    ("github", r"(?:gh[pousr]_[A-Za-z0-9]{30,}+|github_pat_[A-Za-z0-9_]{40,}+)"),
    ("google", r"AIza[0-9A-Za-z_-]{35}"),
    ("aws_access_key_id", r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b"),
    (
        "aws_secret_access_key",
        r"(?i:aws_?secret_?(?:access_?)?key)" + _ASSIGN + r"(?P<value>[A-Za-z0-9/+=]{30,}+)",
    ),
    ("bearer", r"(?i:bearer)\s++(?P<value>" + _TOKEN + r"{8,}+)"),
    (
        "authorization",
        r"(?i:(?:proxy-)?authorization)" + _ASSIGN + r"(?P<value>(?:[A-Za-z]+ +)?"
        r"[^\s\"',;&<>\\{}\[\]()]++)",
    ),
    (
        "api_key",
        r"(?i:(?:x-(?:goog-)?)?api[-_]?key)" + _ASSIGN + r"(?P<value>[^\s\"',;&<>\\{}\[\]()]++)",
    ),
)
#: Matches of these kinds that are not secrets after all: the scan consumed them, no rewrite.
_REFUSE = {"openai": lambda text: not any(ch.isdigit() for ch in text)}

#: JSON keys (compared lower-case, `_` and `-` alike) whose value is a secret wherever it sits:
#: a header held as a separate value (`{"x-api-key": "…"}`, `{"Authorization": "Basic …"}`), a
#: setting (`aws_secret_access_key`), or a HAR-style `{"name": "x-api-key", "value": "…"}`.
SECRET_KEYS: dict[str, str] = {
    "authorization": "authorization",
    "proxy-authorization": "authorization",
    "api-key": "api_key",
    "apikey": "api_key",
    "x-api-key": "api_key",
    "x-goog-api-key": "api_key",
    "openai-api-key": "api_key",
    "anthropic-api-key": "api_key",
    "aws-secret-access-key": "aws_secret_access_key",
    "aws-session-token": "aws_secret_access_key",
}
#: Redacted strings remembered per redactor (the same value recurs across items and formats).
_MEMO_SIZE = 65_536
#: Longest string remembered: a memo of every huge value would double the report's memory.
_MEMO_TEXT = 4096


def _secret_kind(key: str) -> str | None:
    return SECRET_KEYS.get(key.lower().replace("_", "-")) if len(key) < 64 else None


KINDS: tuple[str, ...] = (*(kind for kind, _ in BUILTIN_PATTERNS), "custom")


class RedactPatternError(InspectorError):
    """A `--redact` pattern that is not a usable regular expression."""

    def __init__(self, pattern: str, reason: str) -> None:
        super().__init__(f"--redact {pattern!r}: {reason}")
        self.pattern = pattern
        self.reason = reason


def compile_custom(patterns: Iterable[str]) -> tuple[re.Pattern[str], ...]:
    """Compile user patterns; raise RedactPatternError naming the first bad one."""
    compiled = []
    for pattern in patterns:
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            raise RedactPatternError(pattern, f"not a regular expression ({exc})") from None
        if regex.search("") is not None:
            raise RedactPatternError(pattern, "it matches the empty string")
        compiled.append(regex)
    return tuple(compiled)


def _combined() -> tuple[re.Pattern[str], tuple[str, ...], tuple[bool, ...]]:
    # One alternation scans each string once; at one position the first alternative wins.
    parts, kinds, has_value = [], [], []
    for number, (kind, pattern) in enumerate(BUILTIN_PATTERNS):
        parts.append(f"(?P<k{number}>{pattern.replace('?P<value>', f'?P<v{number}>')})")
        kinds.append(kind)
        has_value.append("?P<value>" in pattern)
    return re.compile("|".join(parts)), tuple(kinds), tuple(has_value)


_BUILTIN, _KIND_OF, _HAS_VALUE = _combined()


class Redactor:
    """Replaces secrets in report strings and counts the distinct values per kind.

    A disabled redactor returns every string unchanged (and says so in `describe`).
    """

    def __init__(self, custom: Sequence[str] = (), enabled: bool = True) -> None:
        self.enabled = enabled
        self.custom = compile_custom(custom)
        self._seen: dict[str, set[str]] = {}
        self._memo: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        """Return the text with every secret replaced."""
        if not self.enabled:
            return text
        done = self._memo.get(text)
        if done is None:
            done = _BUILTIN.sub(self._builtin_hit, text)
            for regex in self.custom:
                done = regex.sub(self._custom_hit, done)
            if len(text) <= _MEMO_TEXT:
                if len(self._memo) >= _MEMO_SIZE:
                    self._memo.clear()
                self._memo[text] = done
        return done

    def _note(self, kind: str, value: str) -> str:
        self._seen.setdefault(kind, set()).add(value)
        return f"[redacted:{kind}]"

    def _builtin_hit(self, match: re.Match[str]) -> str:
        name = match.lastgroup
        assert name is not None and name[0] == "k"
        number = int(name[1:])
        kind = _KIND_OF[number]
        refuse = _REFUSE.get(kind)
        if refuse is not None and refuse(match.group(0)):
            return match.group(0)
        if not _HAS_VALUE[number]:
            return self._note(kind, match.group(0))
        start, end = match.span(f"v{number}")
        whole = match.group(0)
        offset = match.start()
        secret = whole[start - offset : end - offset]
        # `ANTHROPIC_API_KEY=sk-ant-…`: a setting's value that is itself a known key shape is
        # named by it (a `Bearer` token stays a bearer token, whatever its shape).
        shape = _BUILTIN.fullmatch(secret) if kind != "bearer" else None
        if shape is not None and shape.lastgroup is not None:
            inner = int(shape.lastgroup[1:])
            refuse = _REFUSE.get(_KIND_OF[inner])
            if not _HAS_VALUE[inner] and (refuse is None or not refuse(secret)):
                kind = _KIND_OF[inner]
        return whole[: start - offset] + self._note(kind, secret) + whole[end - offset :]

    def _custom_hit(self, match: re.Match[str]) -> str:
        text = match.group(0)
        return self._note("custom", text) if text else text

    def value(self, value: Any) -> Any:
        """Return a JSON value with every string (keys included) redacted.

        The value of a key named in SECRET_KEYS is replaced whole, whatever it holds.
        """
        if not self.enabled:
            return value
        if isinstance(value, str):
            return self(value)
        if isinstance(value, dict):
            named = value.get("name")
            pair = _secret_kind(named) if isinstance(named, str) and "value" in value else None
            out = {}
            for key, item in value.items():
                kind = _secret_kind(key) if isinstance(key, str) else None
                if pair is not None and key == "value":
                    kind = pair
                shown = self(key) if isinstance(key, str) else key
                if kind is not None and item is not None and not isinstance(item, dict | list):
                    out[shown] = self._note(kind, str(item)) if item != "" else item
                else:
                    out[shown] = self.value(item)
            return out
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value

    def counts(self) -> dict[str, int]:
        """Return the number of distinct redacted values per kind, in kind order."""
        return {kind: len(self._seen[kind]) for kind in KINDS if self._seen.get(kind)}

    def total(self) -> int:
        """Return the number of distinct redacted values."""
        return sum(len(values) for values in self._seen.values())

    def describe(self) -> str:
        """Return the one-line note every report carries about redaction."""
        if not self.enabled:
            return "Redaction off: values appear as they are in the files."
        counts = self.counts()
        custom = len(self.custom)
        patterns = f" and {custom} custom pattern{'s' if custom != 1 else ''}" if custom else ""
        if not counts:
            return f"Redaction on (built-in key shapes{patterns}): nothing was redacted."
        total = self.total()
        detail = ", ".join(f"{kind} {n}" for kind, n in counts.items())
        plural = "s" if total != 1 else ""
        return (
            f"Redaction on (built-in key shapes{patterns}): {total} value{plural} redacted "
            f"({detail})."
        )


__all__ = [
    "BUILTIN_PATTERNS",
    "KINDS",
    "SECRET_KEYS",
    "RedactPatternError",
    "Redactor",
    "compile_custom",
]
