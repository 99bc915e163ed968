"""Redaction: every built-in key shape, custom patterns, counts, and what must never be redacted.

The secrets below are assembled at run time, so this file holds no string that looks like a
live credential to a scanner.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from inspector.core.report.model import Cleaner
from inspector.core.report.redact import KINDS, Redactor, RedactPatternError, compile_custom

REPO = Path(__file__).resolve().parents[2]

#: (kind, text as it appears in a transcript, the part that must never reach a report).
SECRETS: list[tuple[str, str, str]] = [
    ("openai", "key " + "sk-" + "proj-" + "Ab3" * 14, "sk-" + "proj-" + "Ab3" * 14),
    ("openai", "sk-" + "Q1w2E3r4" * 6, "sk-" + "Q1w2E3r4" * 6),
    (
        "anthropic",
        "ANTHROPIC_API_KEY=" + "sk-" + "ant-api03-" + "Zx9_" * 20,
        "ant-api03-" + "Zx9_" * 20,
    ),
    ("google", "?key=" + "AIza" + "Sy" + "B7c-" * 8 + "d", "Sy" + "B7c-" * 8 + "d"),
    ("aws_access_key_id", "id " + "AKIA" + "IOSFODNN7" + "EXAMPLE", "IOSFODNN7EXAMPLE"),
    (
        "aws_secret_access_key",
        "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    ("github", "token " + "ghp_" + "a1B2c3D4e5" * 4, "a1B2c3D4e5" * 4),
    (
        "github",
        "github_pat_" + "11AAAAAAA0_" + "b2C3d4E5f6" * 6,
        "11AAAAAAA0_" + "b2C3d4E5f6" * 6,
    ),
    ("bearer", "curl -H 'X-Auth: Bearer " + "tok_9f8e7d6c5b4a" * 3 + "'", "tok_9f8e7d6c5b4a" * 3),
    (
        "jwt",
        "session " + "eyJ" + "hbGciOiJIUzI1NiJ9." + "eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0." + "s1g" * 9,
        "hbGciOiJIUzI1NiJ9." + "eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0." + "s1g" * 9,
    ),
    (
        "private_key",
        "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA" + "q7" * 40 + "\n-----END RSA "
        "PRIVATE KEY-----",
        "MIIEowIBAAKCAQEA" + "q7" * 40,
    ),
    ("authorization", "Authorization: Basic " + "dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
    ("api_key", '{"x-api-key": "' + "k3y-" + "77aa88bb" * 3 + '"}', "k3y-" + "77aa88bb" * 3),
    ("api_key", "api-key: " + "azure" + "0f1e2d3c" * 4, "azure" + "0f1e2d3c" * 4),
]
#: A custom pattern and a value only it catches.
CUSTOM = (r"ACME-[0-9]{6}", "customer ACME-" + "480213", "ACME-" + "480213")


def secret_items() -> list[dict[str, Any]]:
    """Items carrying every secret where reports quote them.

    Each secret is in a message, in the name and arguments of a call no schema is known for
    (blocked: its detail quotes the name) and in the call_id of an orphan output (an error
    finding quotes it).
    """
    items: list[dict[str, Any]] = []
    for number, text in enumerate([text for _, text, _ in SECRETS] + [CUSTOM[1]]):
        items += [
            {"type": "message", "role": "user", "content": f"please use {text}"},
            {
                "type": "function_call",
                "call_id": f"call_{number}",
                "name": f"lookup {text}",
                "arguments": json.dumps({"note": text}),
                "status": "completed",
            },
            {"type": "function_call_output", "call_id": f"orphan {text}", "output": text},
        ]
    return items


def write_secret_transcript(folder: Path) -> Path:
    """A transcript with every secret in it (and an unknown tool, so some items are blocked)."""
    path = folder / "secrets.json"
    path.write_text(json.dumps(secret_items(), indent=1), encoding="utf-8")
    return path


def assert_no_secret(text: str) -> None:
    """No secret, custom or built-in, survives in a report."""
    for kind, _, secret in [*SECRETS, ("custom", *CUSTOM[1:])]:
        assert secret not in text, f"{kind} secret reached the report"
        # A JSON dump of the value must not leak it either.
        assert json.dumps(secret)[1:-1] not in text, f"{kind} secret reached the report"


@pytest.mark.parametrize(("kind", "text", "secret"), SECRETS)
def test_each_builtin_kind_is_redacted(kind: str, text: str, secret: str) -> None:
    redactor = Redactor()
    out = redactor(text)
    assert secret not in out
    assert f"[redacted:{kind}]" in out
    assert redactor.counts() == {kind: 1}


def test_key_names_stay_visible() -> None:
    out = Redactor()("Authorization: Bearer abcdefgh12345678 and aws_secret_access_key=" + "A" * 40)
    assert out.startswith("Authorization: [redacted:authorization]")
    assert "aws_secret_access_key=[redacted:aws_secret_access_key]" in out


def test_header_value_in_json_inside_a_json_string() -> None:
    value = "k3y-" + "77aa88bb" * 3
    arguments = json.dumps({"note": json.dumps({"x-api-key": value})})
    assert value not in Redactor()(arguments)
    assert value not in Redactor()(json.dumps(arguments))


def test_custom_pattern() -> None:
    redactor = Redactor([CUSTOM[0]])
    assert redactor(CUSTOM[1]) == "customer [redacted:custom]"
    assert redactor.counts() == {"custom": 1}
    assert "1 custom pattern" in redactor.describe()


def test_counts_are_distinct_values_per_kind() -> None:
    redactor = Redactor()
    key = "sk-" + "Q1w2E3r4" * 6
    other = "sk-" + "Z9y8X7w6" * 6
    for text in (key, f"again {key}", key, other):
        redactor(text)
    assert redactor.counts() == {"openai": 2}
    assert redactor.total() == 2
    assert "2 values redacted (openai 2)" in redactor.describe()


def test_json_values_keys_included() -> None:
    redactor = Redactor()
    token = "ghp_" + "a1B2c3D4e5" * 4
    value = {token: [1, {"k": f"x {token}"}], "n": 3, "none": None}
    assert redactor.value(value) == {
        "[redacted:github]": [1, {"k": "x [redacted:github]"}],
        "n": 3,
        "none": None,
    }


def test_disabled_redactor_changes_nothing() -> None:
    redactor = Redactor(enabled=False)
    for _, text, _ in SECRETS:
        assert redactor(text) == text
    assert redactor.counts() == {}
    assert "off" in redactor.describe()


@pytest.mark.parametrize(
    "text",
    [
        "sk-learn-pipeline-notes-are-fine",
        "the api_key parameter is documented below",
        "Authorization is required",
        '{"api_key": {"type": "string"}}',
        "AKIA is a prefix",
        "a plain sentence with a 40-character hash 0123456789abcdef0123456789abcdef01234567",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert Redactor()(text) == text


def test_redaction_happens_before_clipping() -> None:
    key = "sk-" + "proj-" + "Ab3" * 30
    clean = Cleaner(Redactor())
    shown = clean("x" * 30 + key, 50)
    assert "Ab3Ab3" not in shown and "sk-" not in shown


def test_unterminated_private_key_is_redacted_to_the_end() -> None:
    text = "-----BEGIN " + "PRIVATE KEY-----\nMIIEvQIBADANBgkq" + "h" * 50
    assert Redactor()(text) == "[redacted:private_key]"


@pytest.mark.parametrize(
    ("pattern", "reason"), [("([a-z", "not a regular expression"), ("x*", "empty")]
)
def test_bad_custom_patterns_are_refused(pattern: str, reason: str) -> None:
    with pytest.raises(RedactPatternError) as caught:
        compile_custom([pattern])
    assert pattern in str(caught.value) and reason in str(caught.value)


def test_every_kind_is_tested() -> None:
    assert {kind for kind, _, _ in SECRETS} | {"custom"} == set(KINDS)


#: Secrets right after a character a `\b` would not break on: a letter, a digit, `_`, and the
#: `n` of a `\n` escape in a raw `arguments` string.
GLUED = [
    (before + text, secret)
    for kind, text, secret in SECRETS
    if kind in ("openai", "anthropic", "github", "google", "jwt", "aws_access_key_id")
    for before in ("x", "7", "_", "\\n")
    for text in [text.split(" ")[-1].split("=")[-1].split("?key=")[-1]]
]


@pytest.mark.parametrize(("text", "secret"), GLUED)
def test_keys_right_after_any_character_are_redacted(text: str, secret: str) -> None:
    assert secret not in Redactor()(text)


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ({"x-api-key": "k3y-plain"}, "api_key"),
        ({"X-Goog-Api-Key": "plain-value"}, "api_key"),
        ({"Authorization": "Basic dXNlcjpwYXNz"}, "authorization"),
        ({"headers": {"proxy-authorization": "Digest abc"}}, "authorization"),
        ({"AWS_SECRET_ACCESS_KEY": "short"}, "aws_secret_access_key"),
        ({"api_key": 123456789}, "api_key"),
        ([{"name": "Authorization", "value": "Basic dXNlcjpwYXNz"}], "authorization"),
    ],
)
def test_values_are_redacted_by_their_key_name(value: Any, kind: str) -> None:
    redactor = Redactor()
    shown = json.dumps(redactor.value(value))
    assert f"[redacted:{kind}]" in shown
    for secret in ("k3y-plain", "plain-value", "dXNlcjpwYXNz", "Digest abc", "short", "123456789"):
        assert secret not in shown
    assert redactor.counts() == {kind: 1}


def test_key_names_that_are_not_secrets_keep_their_values() -> None:
    value = {"max_tokens": 5, "api_key": {"type": "string"}, "name": "x-api-key", "key": "k"}
    assert Redactor().value(value) == value


#: Inputs that make a pattern rescan the rest of the string from every start if it can.
UNITS = [
    "sk-",
    "sk-ant-",
    "sk-proj-",
    "eyJ",
    "eyJa.",
    "eyJaaaa.eyJ",
    "ghp_",
    "github_pat_",
    "-----BEGIN PRIVATE KEY-----",
    "Authorization: ",
    "bearer ",
    "x-api-key=",
    "aws_secret_access_key=",
]
QUADRATIC = [unit * (300_000 // len(unit) + 1) for unit in UNITS]


def test_redaction_is_linear_on_300_kb_inputs() -> None:
    # Each input once in a subprocess whose CPU time is capped: a rescan from every start is
    # 10^10 steps per input (minutes), a single pass milliseconds.
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_CPU, (20, 20))\n"
        "from inspector.core.report.redact import Redactor\n"
        "from tests.core.test_report_redact import QUADRATIC\n"
        "for text in QUADRATIC:\n"
        "    assert len(text) > 300_000\n"
        "    Redactor()(text)\n"
        "print('done', len(QUADRATIC))\n"
    )
    assert python_script(script) == f"done {len(QUADRATIC)}"


def python_script(script: str) -> str:
    """Run a Python script in a fresh interpreter at the repository; return what it printed."""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()
