"""The source article's own gate as a baseline: `article_gate.py ARTICLE JSONL TOOLS`.

The article (../shared/seeds/replay-gate-article.txt) prints its toy validator and
`replay_gate` as plain text. This script cuts that code out of the article when it runs (it is
never copied into the project), then gates every line of a JSONL file against the tools' schemas
and writes one verdict string per line, the whole of what the article's gate produces. A name
with no schema gets the empty schema, which the toy validator accepts: the article has no
`unknown_tool` row.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

#: Where the article's code starts and the line it ends on (the last return of replay_gate).
FIRST = "def actual_type("
LAST = '    return "ok"'


def article_code(article: Path) -> str:
    """The article's Python: from `def actual_type(` to the end of `replay_gate`."""
    text = article.read_text(encoding="utf-8")
    start = text.find(FIRST)
    end = text.find(LAST, start)
    if start < 0 or end < 0:
        raise SystemExit(f"{article}: the article's gate code was not found")
    return text[start : end + len(LAST)] + "\n"


def load_gate(article: Path) -> Any:
    """Run the article's code in a fresh namespace and return its `replay_gate`."""
    namespace: dict[str, Any] = {"json": json}
    exec(compile(article_code(article), str(article), "exec"), namespace)
    return namespace["replay_gate"]


def main(argv: list[str]) -> int:
    """Gate every line of the JSONL file with the article's code; print the verdicts."""
    if len(argv) != 3:
        raise SystemExit("usage: article_gate.py ARTICLE JSONL TOOLS")
    replay_gate = load_gate(Path(argv[0]))
    tools = json.loads(Path(argv[2]).read_text(encoding="utf-8"))
    schemas = {tool["name"]: tool["parameters"] for tool in tools}
    verdicts = []
    with open(argv[1], "rb") as lines:
        for line in lines:
            item = json.loads(line)
            verdicts.append(replay_gate(item, schemas.get(item.get("name"), {})))
    sys.stdout.write("\n".join(verdicts) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
