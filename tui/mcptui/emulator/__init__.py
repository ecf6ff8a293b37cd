"""Local stand-ins for the services mcptui talks to: a Responses API emulator, a demo MCP server."""
