"""Capturing traffic where failures happen: the recording proxy (and, later, the MCP tap).
Pure: no Textual."""
