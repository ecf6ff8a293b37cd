"""The `mcptui` command line: one module per command."""
