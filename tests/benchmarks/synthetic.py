"""Realistic synthetic transcripts for benchmarks: JSON, JSONL and SSE, with tool schemas.

`python tests/benchmarks/synthetic.py N OUTDIR` writes items.jsonl, items.json, stream.sse and
tools.json. Items mix user and assistant messages, reasoning, function calls against eight tool
schemas of realistic size ($defs, enum, pattern, nested objects and arrays), their outputs and
provider-prefixed items; about a quarter of the calls are invalid in one way or another
(`INVALID`, the share of the workload the performance targets are set on).
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REGIONS = ["apac", "emea", "amer", "latam"]
CURRENCIES = ["USD", "EUR", "JPY", "GBP", "BRL"]
#: The share of function calls spoiled: about a quarter, as in the logs the targets are set on.
INVALID = 0.25

_ADDRESS = {
    "type": "object",
    "additionalProperties": False,
    "required": ["street", "city", "country"],
    "properties": {
        "street": {"type": "string", "minLength": 1, "maxLength": 200},
        "city": {"type": "string", "minLength": 1},
        "postcode": {"type": "string", "pattern": "^[A-Z0-9 -]{3,10}$"},
        "country": {"type": "string", "pattern": "^[A-Z]{2}$"},
    },
}
_MONEY = {
    "type": "object",
    "required": ["amount", "currency"],
    "properties": {
        "amount": {"type": "number", "minimum": 0},
        "currency": {"enum": CURRENCIES},
    },
}


def tools() -> list[dict[str, Any]]:
    """Eight function tools with schemas of realistic size."""
    schemas: dict[str, dict[str, Any]] = {
        "get_sales_report": {
            "type": "object",
            "additionalProperties": False,
            "required": ["region", "quarter"],
            "properties": {
                "region": {"enum": REGIONS[:3]},
                "quarter": {"type": "string", "pattern": "^20[0-9]{2}-Q[1-4]$"},
                "breakdown": {"type": "array", "items": {"enum": ["product", "channel"]}},
            },
        },
        "search_web": {
            "type": "object",
            "required": ["query"],
            "properties": {
                "query": {"type": "string", "minLength": 3, "maxLength": 400},
                "max_results": {"type": "integer", "minimum": 1, "maximum": 20},
                "recency_days": {"type": "integer", "minimum": 1},
            },
        },
        "create_invoice": {
            "$defs": {"address": _ADDRESS, "money": _MONEY},
            "type": "object",
            "additionalProperties": False,
            "required": ["customer_id", "lines", "bill_to"],
            "properties": {
                "customer_id": {"type": "string", "pattern": "^CUS-[0-9]{6}$"},
                "bill_to": {"$ref": "#/$defs/address"},
                "lines": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 50,
                    "items": {
                        "type": "object",
                        "required": ["sku", "quantity", "price"],
                        "properties": {
                            "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
                            "quantity": {"type": "integer", "minimum": 1},
                            "price": {"$ref": "#/$defs/money"},
                        },
                    },
                },
                "notes": {"type": "string", "maxLength": 1000},
            },
        },
        "lookup_customer": {
            "type": "object",
            "oneOf": [{"required": ["customer_id"]}, {"required": ["email"]}],
            "properties": {
                "customer_id": {"type": "string", "pattern": "^CUS-[0-9]{6}$"},
                "email": {"type": "string", "pattern": "^[^@\\s]+@[^@\\s]+$"},
            },
        },
        "schedule_meeting": {
            "type": "object",
            "required": ["title", "attendees", "start"],
            "properties": {
                "title": {"type": "string", "maxLength": 120},
                "attendees": {
                    "type": "array",
                    "uniqueItems": True,
                    "items": {"type": "string", "pattern": "^[^@\\s]+@[^@\\s]+$"},
                },
                "start": {"type": "string", "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}"},
                "duration_minutes": {"type": "integer", "enum": [15, 30, 45, 60, 90]},
            },
        },
        "convert_currency": {
            "type": "object",
            "required": ["money", "to"],
            "properties": {"money": _MONEY, "to": {"enum": CURRENCIES}},
        },
        "update_ticket": {
            "type": "object",
            "required": ["ticket", "status"],
            "properties": {
                "ticket": {"type": "integer", "minimum": 1},
                "status": {"enum": ["open", "pending", "solved", "closed"]},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 10},
                "comment": {
                    "type": "object",
                    "properties": {"body": {"type": "string"}, "public": {"type": "boolean"}},
                    "required": ["body"],
                },
            },
        },
        "get_weather": {
            "type": "object",
            "required": ["city"],
            "properties": {
                "city": {"type": "string"},
                "units": {"enum": ["metric", "imperial"]},
            },
        },
    }
    return [
        {"type": "function", "name": name, "description": f"{name} tool", "parameters": schema}
        for name, schema in schemas.items()
    ]


def _arguments(rng: random.Random, name: str, n: int) -> dict[str, Any]:
    if name == "get_sales_report":
        return {
            "region": rng.choice(REGIONS[:3]),
            "quarter": f"20{rng.randint(20, 26)}-Q{n % 4 + 1}",
        }
    if name == "search_web":
        return {"query": f"market news item {n}", "max_results": rng.randint(1, 20)}
    if name == "create_invoice":
        return {
            "customer_id": f"CUS-{n % 1_000_000:06d}",
            "bill_to": {"street": f"{n} Main St", "city": "Lyon", "country": "FR"},
            "lines": [
                {
                    "sku": f"ABC-{(n + k) % 10000:04d}",
                    "quantity": k + 1,
                    "price": {"amount": 9.5 + k, "currency": rng.choice(CURRENCIES)},
                }
                for k in range(rng.randint(1, 4))
            ],
        }
    if name == "lookup_customer":
        return {"customer_id": f"CUS-{n % 1_000_000:06d}"}
    if name == "schedule_meeting":
        return {
            "title": f"Review {n}",
            "attendees": [f"a{n}@example.com", f"b{n}@example.com"],
            "start": "2026-12-01T10:00",
            "duration_minutes": 30,
        }
    if name == "convert_currency":
        return {"money": {"amount": n % 1000, "currency": "USD"}, "to": "EUR"}
    if name == "update_ticket":
        return {
            "ticket": n + 1,
            "status": "pending",
            "tags": ["billing"],
            "comment": {"body": f"Update {n}", "public": False},
        }
    return {"city": f"City {n % 500}", "units": "metric"}


def _spoil(rng: random.Random, raw: dict[str, Any]) -> None:
    """Make one call invalid in one of the ways real logs are."""
    kind = rng.randrange(6)
    if kind == 0:
        raw["arguments"] = raw["arguments"][: len(raw["arguments"]) // 2]
    elif kind == 1:
        raw["status"] = rng.choice(["in_progress", "incomplete", None])
    elif kind == 2:
        raw["name"] = "no_such_tool"
    elif kind == 3:
        raw["arguments"] = json.loads(raw["arguments"])
    else:
        args = json.loads(raw["arguments"])
        args["unexpected_field"] = True
        args.pop(next(iter(args)))
        raw["arguments"] = json.dumps(args)


def items(n: int, seed: int = 7, invalid: float = INVALID) -> Iterator[dict[str, Any]]:
    """Yield n items of agent traffic; about `invalid` of the function calls are invalid."""
    rng = random.Random(seed)
    names = [t["name"] for t in tools()]
    produced = turn = 0
    while produced < n:
        turn += 1
        batch: list[dict[str, Any]] = [
            {"type": "message", "role": "user", "content": f"Request {turn}: please handle it."},
            {
                "type": "reasoning",
                "id": f"rs_{turn}",
                "summary": [{"type": "summary_text", "text": f"Plan {turn}: call the tools."}],
            },
        ]
        calls = []
        for k in range(rng.randint(1, 3)):
            name = rng.choice(names)
            raw = {
                "type": "function_call",
                "id": f"fc_{turn}_{k}",
                "call_id": f"call_{turn}_{k}",
                "name": name,
                "arguments": json.dumps(_arguments(rng, name, turn * 4 + k)),
                "status": "completed",
            }
            if rng.random() < invalid:
                _spoil(rng, raw)
            calls.append(raw)
        batch.extend(calls)
        batch.extend(
            {
                "type": "function_call_output",
                "call_id": c["call_id"],
                "output": f"result of {c['name']} #{turn}",
            }
            for c in calls
        )
        if rng.random() < 0.1:
            batch.append(
                {
                    "type": "openai:web_search_call",
                    "id": f"ws_{turn}",
                    "status": "completed",
                    "action": {"type": "search", "query": "x"},
                }
            )
        batch.append(
            {
                "type": "message",
                "id": f"msg_{turn}",
                "role": "assistant",
                "status": "completed",
                "content": [
                    {"type": "output_text", "text": f"Done with request {turn}.", "annotations": []}
                ],
            }
        )
        for item in batch:
            if produced >= n:
                return
            produced += 1
            yield item


def write_jsonl(path: Path, n: int) -> None:
    """Write n items, one per line."""
    with path.open("w", encoding="utf-8") as out:
        for item in items(n):
            out.write(json.dumps(item, separators=(",", ":")))
            out.write("\n")


def write_json(path: Path, n: int) -> None:
    """Write a request body with n input items and the tools."""
    body = {"model": "bench", "tools": tools(), "input": list(items(n))}
    path.write_text(json.dumps(body, indent=1), encoding="utf-8")


def write_sse(path: Path, deltas: int) -> None:
    """Write a completed response stream with `deltas` text deltas over a few messages."""
    seq = 0
    per_message = 1000
    messages = max(1, deltas // per_message)

    def event(data: dict[str, Any]) -> str:
        nonlocal seq
        data["sequence_number"] = seq
        seq += 1
        return f"event: {data['type']}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"

    response = {"id": "resp_bench", "object": "response", "status": "in_progress", "output": []}
    with path.open("w", encoding="utf-8") as out:
        out.write(event({"type": "response.created", "response": response}))
        out.write(event({"type": "response.in_progress", "response": response}))
        final = []
        left = deltas
        for m in range(messages):
            count = per_message if m < messages - 1 else left
            left -= count
            item_id = f"msg_{m}"
            item = {
                "type": "message",
                "id": item_id,
                "role": "assistant",
                "status": "in_progress",
                "content": [],
            }
            out.write(
                event({"type": "response.output_item.added", "output_index": m, "item": item})
            )
            part = {"type": "output_text", "text": "", "annotations": []}
            out.write(
                event(
                    {
                        "type": "response.content_part.added",
                        "item_id": item_id,
                        "output_index": m,
                        "content_index": 0,
                        "part": part,
                    }
                )
            )
            pieces = [f"w{k} " for k in range(count)]
            for piece in pieces:
                out.write(
                    event(
                        {
                            "type": "response.output_text.delta",
                            "item_id": item_id,
                            "output_index": m,
                            "content_index": 0,
                            "delta": piece,
                        }
                    )
                )
            text = "".join(pieces)
            out.write(
                event(
                    {
                        "type": "response.output_text.done",
                        "item_id": item_id,
                        "output_index": m,
                        "content_index": 0,
                        "text": text,
                    }
                )
            )
            done_part = {"type": "output_text", "text": text, "annotations": []}
            out.write(
                event(
                    {
                        "type": "response.content_part.done",
                        "item_id": item_id,
                        "output_index": m,
                        "content_index": 0,
                        "part": done_part,
                    }
                )
            )
            done = {**item, "status": "completed", "content": [done_part]}
            out.write(event({"type": "response.output_item.done", "output_index": m, "item": done}))
            final.append(done)
        completed = {**response, "status": "completed", "output": final}
        out.write(event({"type": "response.completed", "response": completed}))
        out.write("data: [DONE]\n\n")


def _claude_records(n: int) -> Iterator[dict[str, Any]]:
    """items(n) as a Claude Code session's records: one record per turn or content block."""
    parent: str | None = None
    for k, item in enumerate(items(n)):
        kind = item.get("type")
        if kind == "function_call":
            try:
                given = json.loads(item["arguments"])
            except (TypeError, ValueError):  # Claude Code stores an object: a spoiled text is lost
                given = {}
            block = {"type": "tool_use", "id": f"toolu_{item['call_id']}", "name": item["name"]}
            message = {"id": f"msg_{k}", "type": "message", "role": "assistant"}
            message |= {"model": "claude-bench", "content": [{**block, "input": given}]}
            record = {"type": "assistant", "message": message, "requestId": f"req_{k}"}
        elif kind == "function_call_output":
            result = {"type": "tool_result", "tool_use_id": f"toolu_{item['call_id']}"}
            content = [{**result, "content": item["output"]}]
            record = {"type": "user", "message": {"role": "user", "content": content}}
        elif kind == "message" and item["role"] == "assistant":
            text = item["content"][0]["text"]
            message = {"id": f"msg_{k}", "type": "message", "role": "assistant"}
            message |= {"model": "claude-bench", "content": [{"type": "text", "text": text}]}
            record = {"type": "assistant", "message": message, "requestId": f"req_{k}"}
        elif kind == "message":
            record = {"type": "user", "message": {"role": "user", "content": item["content"]}}
        else:
            continue  # reasoning and provider items have no Claude Code record here
        uuid = f"00000000-0000-4000-8000-{k:012d}"
        yield {
            "parentUuid": parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/home/bench/project",
            "sessionId": "5c0375b4-57a5-4f26-b12d-d022ee4e51b7",
            "version": "2.1.38",
            **record,
            "uuid": uuid,
            "timestamp": f"2026-02-10T21:{k // 60 % 60:02d}:{k % 60:02d}.000Z",
        }
        parent = uuid


def _write_lines(path: Path, records: Iterator[dict[str, Any]], size: int) -> None:
    """Write records as compact JSON Lines until the file holds about `size` bytes."""
    written = 0
    with path.open("w", encoding="utf-8") as out:
        for record in records:
            line = json.dumps(record, separators=(",", ":")) + "\n"
            out.write(line)
            written += len(line)
            if written >= size:
                return


def write_claude_code(path: Path, size: int) -> None:
    """Write a Claude Code session file of about `size` bytes (items() as its records)."""
    # About 250 bytes a record: more items than needed.
    _write_lines(path, _claude_records(max(size // 250, 10)), size)


def _otel_value(value: Any) -> dict[str, Any]:
    """An OTLP AnyValue for a string or an integer attribute."""
    return {"intValue": str(value)} if isinstance(value, int) else {"stringValue": value}


def _otel_span(trace: str, k: int, name: str, attributes: dict[str, Any]) -> dict[str, Any]:
    """One OTLP client span of a trace, its attributes as key / AnyValue pairs."""
    start = 1_748_000_000_000_000_000 + k * 1_000_000_000
    return {
        "traceId": trace,
        "spanId": f"{k:016x}",
        "name": name,
        "kind": 3,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 500_000_000),
        "attributes": [{"key": key, "value": _otel_value(v)} for key, v in attributes.items()],
        "status": {"code": 1},
    }


def _otel_requests(n: int) -> Iterator[dict[str, Any]]:
    """items(n) as OTLP export requests: each call a trace of two chat spans (GenAI conventions)."""
    definitions = json.dumps([{"type": "function", **tool} for tool in tools()])
    question: list[dict[str, Any]] = [{"role": "user", "parts": [{"type": "text", "content": "?"}]}]
    for k, item in enumerate(items(n)):
        if item.get("type") == "message" and item.get("role") == "user":
            content = item["content"]
            text = content if isinstance(content, str) else content[0].get("text", "")
            question = [{"role": "user", "parts": [{"type": "text", "content": text}]}]
        if item.get("type") != "function_call":
            continue
        try:  # the conventions store arguments as a value: a spoiled text stays a string
            arguments: Any = json.loads(item["arguments"])
        except (TypeError, ValueError):
            arguments = item["arguments"]
        call = {"type": "tool_call", "id": item["call_id"], "name": item["name"]}
        asked = [{"role": "assistant", "parts": [{**call, "arguments": arguments}]}]
        answer = {"type": "tool_call_response", "id": item["call_id"], "response": "done"}
        history = [*question, *asked, {"role": "tool", "parts": [answer]}]
        final = [{"role": "assistant", "parts": [{"type": "text", "content": "Done."}]}]
        trace = f"{k:032x}"
        common = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai"}
        common["gen_ai.request.model"] = "gpt-bench"
        first = {**common, "gen_ai.input.messages": json.dumps(question)}
        first |= {"gen_ai.output.messages": json.dumps(asked)}
        first["gen_ai.tool.definitions"] = definitions
        second = {**common, "gen_ai.input.messages": json.dumps(history)}
        second["gen_ai.output.messages"] = json.dumps(final)
        spans = [_otel_span(trace, 2 * k, "chat gpt-bench", first)]
        spans.append(_otel_span(trace, 2 * k + 1, "chat gpt-bench", second))
        resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "bench"}}]}
        scope = {"scope": {"name": "bench"}, "spans": spans}
        yield {"resourceSpans": [{"resource": resource, "scopeSpans": [scope]}]}


def write_otlp(path: Path, size: int) -> None:
    """Write an OTLP JSON Lines trace file of about `size` bytes (the collector's file exporter)."""
    # A call's two spans are some 3 KB: more items than needed.
    _write_lines(path, _otel_requests(max(size // 800, 10)), size)


def write_all(n: int, folder: Path) -> dict[str, Path]:
    """Write every format for n items into folder; return the paths by name."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {
        "jsonl": folder / "items.jsonl",
        "json": folder / "items.json",
        "sse": folder / "stream.sse",
        "tools": folder / "tools.json",
    }
    write_jsonl(paths["jsonl"], n)
    write_json(paths["json"], n)
    write_sse(paths["sse"], n)
    paths["tools"].write_text(json.dumps(tools(), indent=1), encoding="utf-8")
    return paths


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: synthetic.py N OUTDIR")
    for name, path in write_all(int(sys.argv[1]), Path(sys.argv[2])).items():
        print(f"{name}: {path} ({path.stat().st_size:,} bytes)")
