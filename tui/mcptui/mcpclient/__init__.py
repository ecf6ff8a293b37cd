"""The MCP client side of a Responses API call."""
