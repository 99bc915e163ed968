"""Two providers' transcripts of one session side by side: aligned pairs, changes, replay decision.

Two modes (`DiffMode`) say what the right side is:

- replay (the default): the item list you plan to replay in place of the left one, the source
  article's workflow. A call_id must match; a right side that is not an Open Responses envelope
  (the gate's `*_envelope` findings) is a document-level `foreign_envelope` and blocks.
- compare: another provider's run of the same session. Providers mint their own call_ids, so
  calls align by order and name (then arguments), and outputs by the call they answer and their
  content, never by call_id; a call_id change is `call_id_renamed` (info) when the renaming is
  consistent, else `call_id_mismatch` (error). Format artefacts are not differences: message
  text written as a string or as text parts (`content_reformatted`, `output_reformatted`,
  info), and an item status that the record's format (Chat Completions, Anthropic) does not
  carry (`status_not_recorded`, info; the verdicts compared are then those of a completed call).

In both modes a different `Transcript.format` is a document-level `format_changed` (info).

Alignment (`align_items`) runs in three passes, each near-linear:

1. replay mode: function_call with function_call and function_call_output with
   function_call_output pair by `call_id` (the k-th occurrence on the left with the k-th on the
   right, for a call_id that occurs equally often on both sides), so parallel calls that come
   back in another order pair by call_id, not by position. Compare mode: function_calls pair
   by order and name (same parsed arguments first; a reordered parallel batch still pairs),
   and outputs by the call they answer and their content (`_compare_anchors`);
2. the longest chain of those pairs that keeps both sides in order (a longest increasing
   subsequence) cuts the remaining items into segments between consecutive anchors;
3. each segment is aligned patience-style: common prefix and suffix, then anchors on content
   that occurs equally often on both sides (content = the item without `id` and `call_id`),
   again kept in order by a longest increasing subsequence; what is left between anchors is
   aligned on the item signature (type, role, name) the same way, and the last small gaps with
   difflib (autojunk off), on the signature and then, inside its replaced blocks, on the type
   alone (a renamed call meets the call, not a neighbouring message). Items of a block still
   replaced pair by position, so a changed type shows as one changed pair; only the surplus is
   left unmatched (only_left / only_right). Gaps over DIFFLIB_LIMIT pair by position at once.

The item `id` is ignored everywhere: providers mint their own ids, so it always differs.
`call_id` is ignored for content anchoring (a provider may mint those too) but compared, and
reported, on every pair.

Change codes (severity; "error" is exactly what blocks replay):
- `/type`: became_namespaced (error), became_non_portable (error), became_portable (warning),
  or type_changed (warning) for any other type change; one change per pair, the most specific.
  When the type changed, fields only one of the two items has follow from that and are not
  listed; fields both carry are still compared.
- call_id_changed (error); name_changed, role_changed, status_changed (warning). A role change
  has its own code rather than being folded into content_changed: the same text from `user`,
  `developer` or `system` weighs differently, and `/role` says exactly what moved.
- arguments_changed (warning): one per added, removed or changed pointer of the parsed
  arguments (`/arguments/region`), or one at `/arguments` with the raw values when either side
  does not parse; arguments_reformatted (info): same parsed value, other text.
- output_changed (warning, `/output`); content_changed (warning, per pointer inside `/content`).
- field_changed (info) for any other top-level field (reasoning `summary`, `action`, …);
  extension_field_changed (info) for a slug-prefixed field such as `openrouter:provider`.
- verdict_changed (pointer ""): error when the left verdict is ok and the right one is not,
  else warning.
- only_left / only_right (pointer "", the whole item as value): error for a function_call or
  function_call_output, else warning.
- item_changed (warning): an item that is not a JSON object differs.
- compare mode only: call_id_renamed (info) and call_id_mismatch (error) instead of
  call_id_changed; content_reformatted, output_reformatted, status_not_recorded (info).
"""

from typing import TYPE_CHECKING

from inspector.core.diff.values import (
    CALL_TYPES,
    VOLATILE_FIELDS,
    Change,
    CodeGroup,
    DiffMode,
    DocumentChange,
    Pair,
    Pairs,
    Reason,
)
from inspector.core.lazy import names_on_first_use

if TYPE_CHECKING:
    from inspector.core.diff.align import align_items, display_order
    from inspector.core.diff.changes import (
        arguments_changes,
        json_changes,
        one_side_change,
        pair_changes,
        same_json,
        type_change,
    )
    from inspector.core.diff.compute import diff_results, diff_transcripts, document_changes
    from inspector.core.diff.keys import canonical_json, content_key, plain_text, signature
    from inspector.core.diff.result import DiffResult

#: Where each of the engine's names lives: those modules are imported on first use, so that a
#: window naming only the diff's values (its mode switch) starts without the engine.
_LAZY = {
    "align_items": "align",
    "display_order": "align",
    "arguments_changes": "changes",
    "json_changes": "changes",
    "one_side_change": "changes",
    "pair_changes": "changes",
    "same_json": "changes",
    "type_change": "changes",
    "diff_results": "compute",
    "diff_transcripts": "compute",
    "document_changes": "compute",
    "canonical_json": "keys",
    "content_key": "keys",
    "plain_text": "keys",
    "signature": "keys",
    "DiffResult": "result",
}


__getattr__ = names_on_first_use(__name__, _LAZY, globals())


__all__ = [
    "CALL_TYPES",
    "VOLATILE_FIELDS",
    "Change",
    "CodeGroup",
    "DiffMode",
    "DiffResult",
    "DocumentChange",
    "Pair",
    "Pairs",
    "Reason",
    "align_items",
    "arguments_changes",
    "canonical_json",
    "content_key",
    "diff_results",
    "diff_transcripts",
    "display_order",
    "document_changes",
    "json_changes",
    "one_side_change",
    "pair_changes",
    "plain_text",
    "same_json",
    "signature",
    "type_change",
]
