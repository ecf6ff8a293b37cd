"""End-to-end fixtures: the demo MCP server and the Responses emulator on loopback ports.

Both run in background threads for the whole test session (starting them costs about 0.3 s
each). The emulator's tool timeout is short so that the timeout path takes a second, not a
minute; deltas are not paced.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _e2e_support import TOKEN, TOOL_TIMEOUT, Servers
from mcptui.emulator.app import Emulator
from mcptui.emulator.demo_server import build_app
from mcptui.emulator.runner import RunConfig
from mcptui.net.serve import ServerThread
from openai import OpenAI


@pytest.fixture(scope="session")
def servers() -> Iterator[Servers]:
    config = RunConfig(
        tool_timeout=TOOL_TIMEOUT, delta_delay=0.0, queue_delay=0.05, list_timeout=5.0
    )
    with (
        ServerThread(build_app()) as mcp,
        ServerThread(build_app(token=TOKEN)) as guarded,
        ServerThread(Emulator(config, seed=7).app) as emulator,
    ):
        yield Servers(f"{emulator.url}/v1", mcp.url, guarded.url)


@pytest.fixture
def client(servers: Servers) -> Iterator[OpenAI]:
    with OpenAI(base_url=servers.emulator, api_key="sk-test-key", max_retries=0, timeout=30) as sdk:
        yield sdk
