"""Which SDK a server runs on, told from its real answers (tests/causes/stacks/wire.json, as
tests/causes/stacks/probe.py recorded them from each stack), never from the name a user gave
it; and the SDKs' own words read as causes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcptui.model.sdk_messages import family_of, hides_its_exception, message_cause

WIRE = json.loads(
    (Path(__file__).resolve().parents[1] / "causes" / "stacks" / "wire.json").read_text()
)
FAMILIES = {
    "py_mcpserver": "python",
    "py_lowlevel": "python",
    "py_fastmcp": "fastmcp",
    "ts_mcpserver": "typescript",
    "ts_lowlevel": "typescript",
    "ts_v2": "typescript",
    "everything": "typescript",
}


@pytest.mark.parametrize("stack", list(FAMILIES))
def test_each_stacks_initialize_answer_tells_its_sdk(stack: str) -> None:
    (answer,) = WIRE[stack]["legacy_raw"]["initialize"]["body"]
    assert family_of(answer) == FAMILIES[stack]
    renamed = json.loads(json.dumps(answer))
    renamed["result"]["serverInfo"] = {"name": "fastmcp-typescript-python", "version": "9"}
    if stack != "everything":  # its name is a public server's: the rest is in the shape
        assert family_of(renamed) == FAMILIES[stack]


@pytest.mark.parametrize(
    ("text", "cause"),
    [
        (
            "Output validation error: outputSchema defined but no structured output returned",
            "output_schema_without_structured_content",
        ),
        (
            "MCP error -32602: Output validation error: Tool broken_schema has an output "
            "schema but "
            "no structured content was provided",
            "output_schema_without_structured_content",
        ),
        (
            "Output validation error: Invalid structured content for tool wrong_type: count: "
            "Invalid "
            "input: expected number, received string",
            "invalid_structured_content",
        ),
        ("MCP error -32602: Invalid tools/call result: [", "invalid_content"),
        ("Handler returned an invalid result", "invalid_content"),
        ("Input validation error: 'query' is a required property", "invalid_arguments"),
        ("Unknown tool: search_files", "unknown_tool"),
    ],
)
def test_the_sdks_words_name_their_cause(text: str, cause: str) -> None:
    found = message_cause(text)
    assert found is not None and found.cause == cause


def test_mcpservers_bare_words_hide_the_exception_and_a_message_does_not() -> None:
    assert hides_its_exception("Error executing tool broken_schema")
    assert hides_its_exception("mcp_tool_execution_error Error executing tool wrong_type")
    assert not hides_its_exception("Error executing tool fails: the tool broke on purpose")
    assert message_cause("the tool broke on purpose") is None
