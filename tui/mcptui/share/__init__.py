"""Sharing and comparing runs: reports, exported commands, diffs (no Textual)."""
