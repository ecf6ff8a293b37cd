"""The real server stacks, started once per pytest worker and shared by the modules of this
folder that leave a server as they found it (test_real_stacks.py, test_stack_causes.py: both in
the xdist group "real_stacks", so one worker runs them and starts each stack once)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from real_stacks import SharedStacks


@pytest.fixture(scope="session")
def shared_stacks() -> Iterator[SharedStacks]:
    shared = SharedStacks()
    try:
        yield shared
    finally:
        shared.close()
