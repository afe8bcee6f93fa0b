"""The prompt an agent's reasoning call sees: built from its charter, never from secrets."""

from __future__ import annotations

import json
from collections.abc import Sequence

from domain.organization.contracts import AgentDefinition, Charter, Principal, ToolSpec

REPLY_CONTRACT = (
    'Reply with exactly one JSON object: {"summary": string, "actions": [action, ...]}. '
    'Each action is {"tool": string, "projects": [project key, ...], "payload": object '
    'with exactly the tool\'s parameters, "cost_cents": integer (equal to the amount for '
    'money tools, else 0), "justification": string, "references": [record key, ...]}. '
    "Propose only tools listed below. If you cannot do the task without an answer from "
    'the human who asked, reply {"summary": string, "actions": [], "question": string} '
    "instead. Do not wrap the JSON in anything."
)


def system_prompt(principal: Principal, definition: AgentDefinition, charter: Charter) -> str:
    """Who the agent is and the contract its reply must meet."""
    return "\n".join(
        [
            f"You are {principal.display_name} ({principal.handle}), role: {charter.role}.",
            f"Purpose: {charter.purpose}",
            definition.instructions,
            *(
                ["Skills (your organization's instructions; follow them):"]
                + [f"- {skill.name}: {skill.instructions}" for skill in charter.skills]
                if charter.skills
                else []
            ),
            REPLY_CONTRACT,
        ]
    )


def task_prompt(
    task: str, staffed_projects: Sequence[str], context: Sequence[str], tools: Sequence[ToolSpec]
) -> str:
    """The task, the agent's current projects, the context released to it and its tools."""
    tool_lines = [
        json.dumps(
            {"tool": t.name, "description": t.description, "params": t.params}
            | ({"optional_params": t.optional_params} if t.optional_params else {})
        )
        for t in tools
    ]
    return "\n".join(
        [
            f"Task: {task}",
            f"Your projects: {', '.join(staffed_projects) or 'none'}",
            "Context released to you:",
            *(f"- {c}" for c in context),
            "Tools:",
            *tool_lines,
        ]
    )
