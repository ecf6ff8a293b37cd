"""The fuzz tier reports how many cases it ran (`--fuzz-long` is declared in tests/conftest.py:
pytest reads options only from the root conftest)."""

from __future__ import annotations

import pytest
from corpus import CASES


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if CASES:
        terminalreporter.write_line(f"fuzz: {len(CASES)} mutated inputs, no exception escaped")
