"""mcptui: a terminal inspector for OpenAI Responses API streams that use remote MCP tools."""

__version__ = "0.1.0"
