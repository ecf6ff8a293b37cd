"""The Textual app: screens, widgets and what only a terminal UI needs."""
