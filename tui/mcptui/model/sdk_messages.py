"""What the MCP SDKs say when a tool's result breaks the rules, and which SDK a server runs on.

Some servers check their own results before OpenAI's client sees them, so the classic 424 (an
outputSchema declared, no structuredContent returned) reaches the wire in their words instead:
the TypeScript McpServer answers `isError` with "Output validation error: …", the TypeScript
low-level Server refuses its own invalid result with JSON-RPC -32602 "Invalid tools/call
result", the `mcp` SDK's low-level server with -32603 "Handler returned an invalid result", and
its MCPServer says only "Error executing tool X" (the pydantic ValidationError stays in the
server's log). fastmcp 4 sends what the tool returned as it is. Those texts are evidence about
the very call that carried them; this module reads them (each quoted from a real server's
answer: tests/causes/stacks/README.md).

A server's SDK names the fix: it is told from the shape of its answer to initialize (or
server/discover), and from how its messages read, never from the name the server gives itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

Family = Literal["python", "fastmcp", "typescript"]
"""The SDK families whose fixes differ: the `mcp` Python SDK (MCPServer, its low-level server),
the standalone fastmcp, and the TypeScript SDK (McpServer, its low-level Server)."""

FAMILY_NAMES: dict[Family, str] = {
    "python": "the mcp Python SDK",
    "fastmcp": "fastmcp",
    "typescript": "the TypeScript MCP SDK",
}


RESULT_SHAPE_CAUSES = (
    "output_schema_without_structured_content",
    "invalid_structured_content",
    "invalid_content",
)
"""Causes in the tool's answer itself: a probe whose call worked, or a result valid on the wire,
speaks against them; no result at all rules them out."""
OUTPUT_CHECK_CAUSES = RESULT_SHAPE_CAUSES[:2]
"""What a server's own output check (against the outputSchema) finds."""
JSONRPC_CAUSES = {-32020: "header_mismatch", -32022: "protocol_version_mismatch"}
"""JSON-RPC error codes of the 2026-07-28 revision that name their cause."""


@dataclass(frozen=True, slots=True)
class MessageCause:
    """A cause an SDK's error text names, and the words that named it."""

    cause: str
    matched: str
    family: Family | None = None
    """The SDK whose wording this is, when only one SDK words it so."""


_OUTPUT_MISSING = re.compile(
    r"outputSchema defined but no structured output|has an output schema but (?:did not "
    r"return|no) structured content|output schema but no structured content|no structured "
    r"(?:content|output) (?:was )?(?:provided|returned)",
    re.IGNORECASE,
)
_OUTPUT_INVALID = re.compile(
    r"Invalid structured content|structured content does not match|structuredContent does "
    r"not match|Output validation error",
    re.IGNORECASE,
)
_INVALID_RESULT = re.compile(
    r"Invalid tools/call result|Handler returned an invalid result|Invalid (?:CallToolResult|"
    r"tool result)|validation errors? for "
    r"CallToolResult|does not match any of the expected tags|unable to extract tag using "
    r"discriminator|Invalid discriminator value",
    re.IGNORECASE,
)
_UNKNOWN_TOOL = re.compile(
    r"unknown tool|tool [\w.-]+ not found|tool not found|"
    r"tool ['\"]?[\w.-]+['\"]? (?:is )?(?:disabled|not found)",
    re.IGNORECASE,
)
_BAD_ARGUMENTS = re.compile(
    r"Input validation error|Invalid arguments for tool|validation "
    r"errors? for \w*Arguments|Invalid params|(?:bad|invalid|wrong|"
    r"missing|unexpected) (?:argument|param)",
    re.IGNORECASE,
)
_PYTHON_GENERIC = re.compile(r"(?:^|\s)Error executing tool [\w.-]+\s*$")
"""MCPServer's words for any exception of its own while running a tool (its ToolError keeps the
exception's text after a colon; an UnexpectedToolError, e.g. the result's ValidationError,
does not)."""


def message_cause(text: str) -> MessageCause | None:
    """The cause an SDK's words name: an output-schema or result-shape fault the server found
    in its own answer, arguments it refused, a tool it does not have."""
    for pattern, cause in (
        (_OUTPUT_MISSING, "output_schema_without_structured_content"),
        (_INVALID_RESULT, "invalid_content"),
        (_OUTPUT_INVALID, "invalid_structured_content"),
        (_BAD_ARGUMENTS, "invalid_arguments"),
        (_UNKNOWN_TOOL, "unknown_tool"),
    ):
        found = pattern.search(text)
        if found:
            return MessageCause(cause, found.group(0), _family_of_text(text))
    return None


_GENERIC_PARAMS = re.compile(
    r"^(?:MCP error -32602: )?Invalid (?:request )?param(?:eter)?s\.?$", re.IGNORECASE
)
"""An "invalid params" error that says nothing more (fastmcp's words for a result it could not
send, and for arguments it refused alike)."""


def says_only_invalid_params(text: str) -> bool:
    return bool(_GENERIC_PARAMS.match(text.strip()))


def wraps_a_plain_value(schema: Any) -> bool:
    """An outputSchema the SDK made for a tool returning a plain value (`-> str`): one
    property `result`. Such a tool's output check does not fail in practice."""
    if not isinstance(schema, dict):
        return False
    properties = schema.get("properties")
    return isinstance(properties, dict) and list(properties) == ["result"]


def hides_its_exception(text: str) -> bool:
    """MCPServer's bare "Error executing tool X": an exception the server kept to its log,
    which for a tool that declares an outputSchema is usually its own output validation."""
    return bool(_PYTHON_GENERIC.search(text.strip()))


def _family_of_text(text: str) -> Family | None:
    if "MCP error -" in text or "tools/call result" in text:
        return "typescript"
    if "outputSchema defined but no structured output" in text:
        return "fastmcp"
    if "Error executing tool" in text:
        return "python"
    return None


def family_of(handshake: Any = None, texts: tuple[str, ...] = ()) -> Family | None:
    """Which SDK a server runs on, from its answer to initialize (or server/discover) and the
    wording of its errors; None when neither tells. serverInfo's name is the user's own, so
    the answer's shape tells instead: the TypeScript SDK writes `result` before `jsonrpc`,
    the Python SDKs `jsonrpc` first; in the result, the mcp SDK writes `capabilities` first
    and fastmcp `protocolVersion` (tests/causes/stacks/README.md has each stack's answer)."""
    if isinstance(handshake, dict):
        result = handshake.get("result")
        info = result.get("serverInfo") if isinstance(result, dict) else None
        name = str(info.get("name") or "") if isinstance(info, dict) else ""
        if name in KNOWN_SERVERS:
            return KNOWN_SERVERS[name]
        keys = list(handshake)
        if keys and keys[0] == "result":
            return "typescript"
        if keys[:1] == ["jsonrpc"] and isinstance(result, dict) and result:
            return "fastmcp" if next(iter(result)) == "protocolVersion" else "python"
    for text in texts:
        family = _family_of_text(text)
        if family is not None:
            return family
    return None


KNOWN_SERVERS: dict[str, Family] = {"mcp-servers/everything": "typescript"}
"""serverInfo names of public servers whose SDK is known."""


SUB_FIXES: dict[str, str] = {
    "raised": "The tool raised and its server sent the exception as a JSON-RPC error: read its "
    "message and fix the tool; catch the exception in the handler and return it as an "
    "isError result, so the model sees the message and can recover.",
    "hidden_exception": "The tool raised and MCPServer kept the exception to its log: read "
    "the log, fix the "
    'tool, and raise ToolError("...") for failures the model should see.',
    "invalid_arguments": "The server refused the arguments the model sent: compare them with "
    "the tool's input "
    "schema, and describe the parameters better in the schema so the model fills them in.",
    "unknown_tool": "The server has no tool of that name (any more): list its tools (`mcptui "
    "probe`) and "
    "check the name and the request's allowed_tools.",
}
"""A fix that fits a narrower reading of a cause than the cause's own (what the message named)."""
