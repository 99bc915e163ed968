"""Stream reduction speed against JSON parsing: `python tests/benchmarks/bench_stream.py`.

Builds an Open Responses stream of N `response.output_text.delta` events (shaped like OpenAI's:
long item ids, `logprobs`, `obfuscation`), then reports the median of 5 runs of:

* parse: `orjson.loads` over the data lines alone (the baseline: no reducer can be faster than
  reading its input);
* reduce: `reduce_stream` over the already-parsed events;
* whole: decoding the SSE bytes, parsing and reducing, for reference.

Targets, measured side by side in the same run: reduce ÷ parse ≤ 1.5, and the time per delta at
the largest N within 1.5× of the smallest (linear growth; quadratic text building would not be).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

# Run as a script from a checkout: measure that checkout's package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from inspector.core.stream import StreamEvent, events_from_sse, reduce_stream
from inspector.core.stream.sse import decode_sse

SIZES = (25_000, 50_000, 100_000, 200_000)
RUNS = 5
TARGET_RATIO = 1.5
TARGET_GROWTH = 1.5

RID = "resp_68c35098e6fc819e80fb94b25b7d031b0f2d670b80edc507"
MID = "msg_68c350a75ddc819ea5406470460be7850f2d670b80edc507"
WORDS = ("The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".")


def stream_lines(n: int) -> list[str]:
    """The data lines of a one-message stream with n text deltas."""
    response: dict[str, Any] = {"id": RID, "object": "response", "status": "in_progress"}
    where = {"item_id": MID, "output_index": 0, "content_index": 0}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "sequence_number": 0, "response": {**response, "output": []}},
        {
            "type": "response.in_progress",
            "sequence_number": 1,
            "response": {**response, "output": []},
        },
        {
            "type": "response.output_item.added",
            "sequence_number": 2,
            "output_index": 0,
            "item": {
                "id": MID,
                "type": "message",
                "status": "in_progress",
                "content": [],
                "role": "assistant",
            },
        },
        {
            "type": "response.content_part.added",
            "sequence_number": 3,
            **where,
            "part": {"type": "output_text", "annotations": [], "logprobs": [], "text": ""},
        },
    ]
    seq = 4
    for i in range(n):
        events.append(
            {
                "type": "response.output_text.delta",
                "sequence_number": seq,
                **where,
                "delta": WORDS[i % len(WORDS)],
                "logprobs": [],
                "obfuscation": "J1zHiwYPd9ov"[: 4 + i % 8],
            }
        )
        seq += 1
    text = "".join(WORDS[i % len(WORDS)] for i in range(n))
    part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
    item = {
        "id": MID,
        "type": "message",
        "status": "completed",
        "content": [part],
        "role": "assistant",
    }
    events += [
        {
            "type": "response.output_text.done",
            "sequence_number": seq,
            **where,
            "text": text,
            "logprobs": [],
        },
        {"type": "response.content_part.done", "sequence_number": seq + 1, **where, "part": part},
        {
            "type": "response.output_item.done",
            "sequence_number": seq + 2,
            "output_index": 0,
            "item": item,
        },
        {
            "type": "response.completed",
            "sequence_number": seq + 3,
            "response": {**response, "status": "completed", "output": [item]},
        },
    ]
    return [orjson.dumps(e).decode() for e in events]


def sse_bytes(lines: list[str]) -> bytes:
    """The lines framed as a text/event-stream body ending with [DONE]."""
    frames = [f"event: {orjson.loads(line)['type']}\ndata: {line}\n\n" for line in lines]
    return ("".join(frames) + "data: [DONE]\n\n").encode()


def median_time(run: Callable[[], Any], runs: int) -> float:
    """Median wall time of several runs."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(n: int, runs: int) -> tuple[float, float, float]:
    """Median seconds to reduce, to parse the data lines, and to decode+parse+reduce."""
    lines = stream_lines(n)
    data = sse_bytes(lines)
    parsed = [orjson.loads(line) for line in lines]
    events = [
        StreamEvent(i, i + 1, None, d, line, framing="jsonl")
        for i, (d, line) in enumerate(zip(parsed, lines, strict=True))
    ]
    check = reduce_stream(events)
    assert check.violations == (), check.violations[:3]
    built = check.responses[0].items[0].item["content"][0]["text"]
    assert built == parsed[-4]["text"]
    parse = median_time(lambda: [orjson.loads(line) for line in lines], runs)
    reduce = median_time(lambda: reduce_stream(events), runs)
    whole = median_time(lambda: reduce_stream(events_from_sse(decode_sse(data))), runs)
    return reduce, parse, whole


def main() -> int:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    args = parser.parse_args()
    print(
        f"{'N deltas':>9}  {'reduce s':>9}  {'parse s':>9}  {'reduce/parse':>12}  "
        f"{'µs/delta':>9}  {'whole s':>8}"
    )
    per_delta: list[float] = []
    ratios: list[float] = []
    for n in args.sizes:
        reduce, parse, whole = measure(n, args.runs)
        per_delta.append(reduce / n)
        ratios.append(reduce / parse)
        print(
            f"{n:>9,}  {reduce:>9.3f}  {parse:>9.3f}  {reduce / parse:>12.2f}  "
            f"{reduce / n * 1e6:>9.3f}  {whole:>8.3f}"
        )
    growth = per_delta[-1] / per_delta[0]
    print(
        f"\nper-delta time, {args.sizes[-1]:,} vs {args.sizes[0]:,}: {growth:.2f}x "
        f"(target ≤ {TARGET_GROWTH}: {'met' if growth <= TARGET_GROWTH else 'NOT met'})"
    )
    worst = max(ratios)
    print(
        f"reduce ÷ parse: {min(ratios):.2f}–{worst:.2f} "
        f"(target ≤ {TARGET_RATIO}: {'met' if worst <= TARGET_RATIO else 'NOT met'})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
