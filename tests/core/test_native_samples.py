"""Native samples for cases the other golden lists do not hold, each with its golden gate output."""

from __future__ import annotations

from inspector.core.formats import load_path
from tests.conftest import SAMPLES
from tests.core.test_targets_samples import gate_golden

REORDERED = "samples/native/gemini-request-results-reordered.json"


def test_gemini_results_without_ids_pair_by_name_in_any_order(golden):
    status, document = gate_golden(golden, "gemini-request-results-reordered.gate.json", REORDERED)
    assert status == 1  # the Gemini envelope blocks; no result is an orphan
    codes = {f["code"] for f in document["files"][0]["findings"]}
    assert codes == {"gemini_envelope"}
    items = load_path(SAMPLES / "native" / "gemini-request-results-reordered.json").items
    call_of = {i.call_id: i.name for i in items if i.type == "function_call"}
    # The responses come back in the other order: each still pairs with the call of its name.
    answered = [
        (call_of[i.call_id], i.origin.pointer) for i in items if i.type == "function_call_output"
    ]
    assert answered == [
        ("search_web", "/contents/2/parts/0"),
        ("get_latest_sales_report", "/contents/2/parts/1"),
    ]
