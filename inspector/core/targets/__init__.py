"""Target profiles: what a provider rejects or silently changes when a transcript is replayed.

Profiles are data (`inspector/core/targets/profiles/`), each rule with an id, a reason and its
source; `check_tools` judges tool definitions and `check_transcript` a whole transcript. Nothing
is ever rewritten: where a well-known transformation exists, the message names it.
"""

from inspector.core.targets.profile import (
    Profile,
    ProfileError,
    Rule,
    StrictPolicy,
    UnknownTarget,
    get_profile,
    load_profiles,
    profile_names,
)
from inspector.core.targets.schema_rules import (
    SCHEMA_ALTERED,
    SCHEMA_REJECTED,
    ToolProblem,
    ToolVerdict,
    check_tool,
    check_tools,
    strict_mode,
    walk_schema,
)
from inspector.core.targets.transcript_rules import (
    CALL_AS_TEXT,
    CALL_ID,
    ORDER,
    REASONING,
    TOOL_NAME,
    TargetFinding,
    check_transcript,
    reasoning_family,
    with_target_findings,
)

__all__ = [
    "CALL_AS_TEXT",
    "CALL_ID",
    "ORDER",
    "REASONING",
    "SCHEMA_ALTERED",
    "SCHEMA_REJECTED",
    "TOOL_NAME",
    "Profile",
    "ProfileError",
    "Rule",
    "StrictPolicy",
    "TargetFinding",
    "ToolProblem",
    "ToolVerdict",
    "UnknownTarget",
    "check_tool",
    "check_tools",
    "check_transcript",
    "get_profile",
    "load_profiles",
    "profile_names",
    "reasoning_family",
    "strict_mode",
    "walk_schema",
    "with_target_findings",
]
