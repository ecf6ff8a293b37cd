"""The likely-cause engine on real MCP server stacks: failures reproduced for real, scored.

Each scenario starts a real server (real_stacks.py: the mcp Python SDK, fastmcp, the
TypeScript SDKs, server-everything) as a process, or is handed one already running that only
scenarios leaving it as they found it share (`SHARES`); puts OpenAI's side in front of it as a
user would (`mcptui emulate` in-process, then the command `mcptui run REQUEST --tap`, or a
standalone `mcptui tap` and `inspect RUN --tap TAP`), and reads what `inspect --json` says of
each failed call. Each mcptui command is a process of its own, forked from a server that has
imported mcptui already (tests/_cli_fork.py: ~0.1 s of CPU a command instead of ~1.5 s).
A failure is scored against its true cause:

- right: the top cause is the true one;
- listed: the true one is among the causes;
- confidently wrong: the top cause is confirmed or likely, and not the true one;
- silent: no cause at all, or only "cannot tell", though the wire shows the cause.

tests/causes/test_stack_causes.py asserts on these; bench/causes.py prints them per stack and
protocol revision.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from _cli_fork import forked_popen
from _ports import free_port
from mcptui.emulator.app import Emulator
from mcptui.emulator.runner import RunConfig
from mcptui.io.formats import load_path
from mcptui.io.merge import merge_tap
from mcptui.net.serve import ServerThread
from mcptui.share.inspect_output import Inspection, to_json
from real_stacks import LEGACY, MODERN, STACKS, Running, Stack, start

TOOL_TIMEOUT = 1.5
"""The emulator's --tool-timeout: `slow` sleeps longer, so it times out in 1.5 s, not 60."""
SLOW = 3.0
WAIT = 30.0
"""The longest any step may take before the scenario fails (never reached when it works)."""
CALLS = ("broken_schema", "wrong_type", "bad_content", "fails", "crash", "slow")
"""The failing contract tools one `calls` run makes, in order (`slow` last: a timed-out call
leaves the link waiting for nothing else)."""
TRUE_CAUSE = {
    "broken_schema": "output_schema_without_structured_content",
    "wrong_type": "invalid_structured_content",
    "bad_content": "invalid_content",
    "fails": "tool_error",
    "crash": "mcp_server_error",
    "slow": "timeout",
}
ERAS = {"legacy": LEGACY, "modern": MODERN}
NOT_REPRODUCED = {
    "header_mismatch": "no SDK client or server here sends routing headers that disagree with "
    "the body; tests/unit/test_causes.py reads the -32020 error",
}
"""Causes with no real reproduction yet, and where they are tested instead."""
SAME_ON_THE_WIRE = {
    ("py_mcpserver", "broken_schema"): "hidden_exception",
    ("py_mcpserver", "wrong_type"): "hidden_exception",
}
"""Where a stack makes faults one on the wire: MCPServer checks a tool's return value against
its annotation before any structuredContent exists, and answers any exception of its own,
that check's among them, with the bare "Error executing tool X". `broken_schema` and
`wrong_type` (and a tool that simply raised) then reach the wire identically; the true answer
is the cause that says so, with the fix for each reading (the server's log tells which)."""
REPRODUCED = {
    *TRUE_CAUSE.values(),
    *SAME_ON_THE_WIRE.values(),
    "connection_lost",
    "session_terminated",
    "unreachable",
    "stored_response_missing",
    "protocol_version_mismatch",
}
"""The causes these scenarios reproduce on real stacks (their truths)."""


@dataclass(frozen=True)
class Scored:
    """What the engine said of one reproduced failure."""

    stack: str
    era: str
    scenario: str
    tool: str
    cause: str
    """The true cause."""
    causes: tuple[tuple[str, str], ...]
    """(cause, confidence), best first, as `inspect --json` lists them."""
    evidence: tuple[str, ...] = ()
    """The top cause's evidence."""
    fix: str = ""

    @property
    def top(self) -> tuple[str, str] | None:
        return self.causes[0] if self.causes else None

    @property
    def right(self) -> bool:
        return self.top is not None and self.top[0] == self.cause

    @property
    def listed(self) -> bool:
        return any(key == self.cause for key, _ in self.causes)

    @property
    def confidently_wrong(self) -> bool:
        return self.top is not None and not self.right and self.top[1] in ("confirmed", "likely")

    @property
    def silent(self) -> bool:
        return not self.causes or self.causes[0][0] == "undetermined"


@dataclass
class Emulators:
    """Emulators by the revision their MCP client speaks: one with a short tool limit (a slow
    tool times out in 1.5 s) and a patient one (a gate may wait for a restart)."""

    urls: dict[str, str] = field(default_factory=dict)
    patient: dict[str, str] = field(default_factory=dict)


PATIENT_TIMEOUT = 60.0


@contextmanager
def emulators() -> Iterator[Emulators]:
    found = Emulators()
    with ExitStack() as stack:
        for era in ERAS:
            for limit, urls in ((TOOL_TIMEOUT, found.urls), (PATIENT_TIMEOUT, found.patient)):
                config = RunConfig(
                    tool_timeout=limit,
                    delta_delay=0.0,
                    queue_delay=0.05,
                    list_timeout=10.0,
                    mcp_protocol=era,
                )
                thread = stack.enter_context(ServerThread(Emulator(config, seed=7).app))
                urls[era] = f"{thread.url}/v1"
        yield found


def cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`mcptui ARGS` in `cwd`, run to its end (forked: several may run at once)."""
    env = {**os.environ, "OPENAI_API_KEY": "sk-stack-cases-not-a-key", "CI": "true"}
    done = forked_popen(args, cwd, env).communicate(timeout=90)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    return done


def request(url: str, lines: list[str]) -> dict[str, Any]:
    return {
        "model": "gpt-5-mini",
        "input": "\n".join(["reproduce", *lines]),
        "tools": [
            {"type": "mcp", "server_label": "stack", "server_url": url, "require_approval": "never"}
        ],
        "stream": True,
    }


def call_line(stack: Stack, tool: str, value: Any) -> str:
    name, arguments = stack.call(tool, value)
    return f"call {name} {json.dumps(arguments)}"


VALUES = {
    "echo": "hello",
    "broken_schema": "q",
    "wrong_type": "q",
    "bad_content": "q",
    "crash": "q",
    "fails": "the tool broke on purpose",
    "slow": SLOW,
}


def inspect(recording: Path, tap: Path | None = None) -> dict[str, Any]:
    """What `inspect --json RECORDING [--tap TAP]` prints, computed in this process."""
    loaded = load_path(str(recording))
    if tap is not None:
        loaded = merge_tap(loaded, load_path(str(tap)))
    return to_json([Inspection.of(loaded)])


def scored(
    stack: str, era: str, scenario: str, report: dict[str, Any], truth: dict[str, str]
) -> list[Scored]:
    """Each failure of `report` whose tool (or, for response failures, scenario key) has a
    true cause in `truth`."""
    found: list[Scored] = []
    for failure in report["failures"]:
        key = failure.get("name") or failure.get("type") or "response"
        if key not in truth:
            continue
        causes = failure["likely_causes"]
        found.append(
            Scored(
                stack,
                era,
                scenario,
                key,
                truth[key],
                tuple((c["cause"], c["confidence"]) for c in causes),
                tuple(causes[0]["evidence"]) if causes else (),
                causes[0]["fix"] if causes else "",
            )
        )
    missing = set(truth) - {s.tool for s in found}
    for key in sorted(missing):  # a failure that should have been there: scored as silent
        found.append(Scored(stack, era, scenario, key, truth[key], ()))
    return found


def wait_for(condition: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        time.sleep(0.05)


def recorded(path: Path, text: str) -> Callable[[], bool]:
    return lambda: path.exists() and text in path.read_text(errors="replace")


def server_name(stack: Stack, tool: str) -> str:
    return stack.tools[tool]


# -- scenarios -------------------------------------------------------------------------------


def serving(stack: Stack, shared: Running | None) -> contextlib.AbstractContextManager[Running]:
    """The shared server when one is given (left running after), else one started for the
    scenario (stopped after)."""
    return nullcontext(shared) if shared is not None else start(stack.name)


def calls(
    stack: Stack, era: str, emu: Emulators, folder: Path, shared: Running | None = None
) -> list[Scored]:
    """One run through `run --tap` calling every failing tool the stack has: the wire's
    evidence (and, with the tap's notes dropped, what the stream alone says)."""
    tools = [tool for tool in CALLS if tool in stack.tools]
    with serving(stack, shared) as server:
        body = request(server.url, [call_line(stack, t, VALUES[t]) for t in tools])
        recording = run(folder, emu.urls[era], body, "--tap")
    truth = {
        server_name(stack, t): SAME_ON_THE_WIRE.get((stack.name, t), TRUE_CAUSE[t]) for t in tools
    }
    return scored(stack.name, era, "calls", inspect(recording), truth)


def run(
    folder: Path, emulator: str, body: dict[str, Any], *options: str, name: str = "rec.jsonl"
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "request.json").write_text(json.dumps(body))
    recording = folder / name
    done = cli(
        [
            "run",
            "request.json",
            "--no-tui",
            "--base-url",
            emulator,
            "--record",
            str(recording),
            *options,
        ],
        folder,
    )
    assert recording.exists(), done.stdout + done.stderr
    return recording


@contextmanager
def standalone_tap(upstream: str, folder: Path) -> Iterator[tuple[str, Path]]:
    """`mcptui tap --upstream URL --no-tui --record TAP` as a process, until the block ends
    (then stopped with Ctrl+C's SIGINT, as a user does)."""
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    record = folder / "tap.jsonl"
    env = {**os.environ, "CI": "true"}
    args = ["tap", "--upstream", upstream, "--port", str(port), "--record", str(record)]
    proc = forked_popen([*args, "--no-tui"], folder, env)
    try:
        wait_for(lambda: listening(port) or proc.poll() is not None, "the tap to listen")
        if proc.poll() is not None:
            done = proc.communicate()
            raise AssertionError(f"the tap exited with {done.returncode}: {done.stdout}")
        yield f"http://127.0.0.1:{port}/mcp", record
    finally:
        proc.send_signal(2)
        with contextlib.suppress(subprocess.TimeoutExpired):  # then communicate killed it
            proc.communicate(timeout=10)


def listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def kill_mid_call(stack: Stack, era: str, emu: Emulators, folder: Path) -> list[Scored]:
    """Issue 34 case 4: the server is killed while it runs a call; the next call never gets a
    result. No result came back, so no result-shape cause may be on top."""
    slow, echo = server_name(stack, "slow"), server_name(stack, "echo")
    with start(stack.name) as server:
        body = request(
            server.url,
            [call_line(stack, "slow", 20.0), call_line(stack, "echo", "after the crash")],
        )
        recording = folder / "rec.jsonl"
        with background_run(folder, emu.urls[era], body, "--tap") as done:
            wait_for(recorded(recording, f"tools/call {slow}"), "the slow call on the wire")
            server.kill()
            done()
    truth = {slow: "connection_lost", echo: "connection_lost"}
    return scored(stack.name, era, "kill_mid_call", inspect(recording), truth)


class Gate:
    """An MCP server (the mcp SDK's MCPServer, in this process) whose one tool, `gate`, answers
    only once the test opens it: the scripted model calls it first, so the test decides when
    the next call is made (a restart finished, however long it took)."""

    def __init__(self) -> None:
        from mcp.server.mcpserver import MCPServer

        self.opened = threading.Event()
        server = MCPServer("mcptui-test-gate")

        @server.tool()
        async def gate() -> str:
            """Waits until the test opens the gate."""
            while not self.opened.is_set():
                await anyio.sleep(0.02)
            return "open"

        self.app = server.streamable_http_app(host="127.0.0.1")


@contextmanager
def gate() -> Iterator[tuple[Gate, str]]:
    found = Gate()
    with ServerThread(found.app) as thread:
        try:
            yield found, f"{thread.url}/mcp"
        finally:
            found.opened.set()


def restart_before_call(stack: Stack, era: str, emu: Emulators, folder: Path) -> list[Scored]:
    """Issue 34 case 3: the server restarts between the listing and the call, so the session
    OpenAI's client holds is gone (legacy revision); stateless servers and the 2026-07-28
    revision have no session to lose: the call works. The model first calls a gate (another
    server) that the test opens once the restart is done."""
    echo = server_name(stack, "echo")
    with start(stack.name) as server, gate() as (opener, gate_url):
        body = request(server.url, ["call gate {}", call_line(stack, "echo", "after the restart")])
        body["tools"].append(
            {
                "type": "mcp",
                "server_label": "gate",
                "server_url": gate_url,
                "require_approval": "never",
            }
        )
        recording = folder / "rec.jsonl"
        with background_run(folder, emu.patient[era], body, "--tap") as done:
            wait_for(recorded(recording, "→ tools/call gate"), "the gate call on the wire")
            server.kill()
            server.restart()
            opener.opened.set()
            done()
    sessions = stack.sessions and era == "legacy"
    report = inspect(recording)
    if not sessions:
        failed = [f for f in report["failures"] if f.get("name") == echo]
        return [
            Scored(
                stack.name,
                era,
                "restart_before_call",
                echo,
                "none",
                tuple((c["cause"], c["confidence"]) for c in failed[0]["likely_causes"])
                if failed
                else (("none", "confirmed"),),
            )
        ]
    return scored(stack.name, era, "restart_before_call", report, {echo: "session_terminated"})


def earlier_sessions(
    stack: Stack, era: str, emu: Emulators, folder: Path, shared: Running | None = None
) -> list[Scored]:
    """Issue 34 case 2: a standalone tap whose file holds earlier sessions (two probes of the
    same tool), then the run: each failed call is judged by its own exchange."""
    fails = server_name(stack, "fails")
    name, arguments = stack.call("fails", VALUES["fails"])
    with serving(stack, shared) as server, standalone_tap(server.url, folder) as (url, tap):
        for _ in range(2):
            cli(["probe", url, "--tool", name, "--args", json.dumps(arguments)], folder)
        recording = run(
            folder, emu.urls[era], request(url, [call_line(stack, "fails", VALUES["fails"])])
        )
    return scored(
        stack.name, era, "earlier_sessions", inspect(recording, tap), {fails: "tool_error"}
    )


def server_down(era: str, emu: Emulators, folder: Path) -> list[Scored]:
    """Issue 34 case 1: nothing listens behind a standalone tap; the run's listing fails."""
    closed = f"http://127.0.0.1:{free_port()}/mcp"
    with standalone_tap(closed, folder) as (url, tap):
        body = request(url, [f"call echo {json.dumps({'text': 'x'})}"])
        recording = run(folder, emu.urls[era], body)
    return scored(
        "(none)", era, "server_down", inspect(recording, tap), {"http_error": "unreachable"}
    )


def era_mismatch(
    stack: Stack, era: str, emu: Emulators, folder: Path, shared: Running | None = None
) -> list[Scored]:
    """A client that speaks only the 2026-07-28 revision (the emulator's `--mcp-protocol
    modern`) meets a server that speaks only the session-based one: the listing fails."""
    with serving(stack, shared) as server:
        recording = run(
            folder, emu.urls[era], request(server.url, [call_line(stack, "echo", "x")]), "--tap"
        )
    return scored(
        stack.name,
        era,
        "era_mismatch",
        inspect(recording),
        {"http_error": "protocol_version_mismatch"},
    )


def attach_unknown(era: str, emu: Emulators, folder: Path) -> list[Scored]:
    """Issue 34 case 8: `mcptui attach` of an id the API does not have answers 404: mcptui's
    own request, not the user's, was refused."""
    folder.mkdir(parents=True, exist_ok=True)
    recording = folder / "attach.jsonl"
    cli(
        [
            "attach",
            "resp_unknown_to_this_key",
            "--no-tui",
            "--base-url",
            emu.urls[era],
            "--record",
            str(recording),
        ],
        folder,
    )
    return scored(
        "(none)",
        era,
        "attach_unknown",
        inspect(recording),
        {"http_error": "stored_response_missing"},
    )


@contextmanager
def background_run(
    folder: Path, emulator: str, body: dict[str, Any], *options: str
) -> Iterator[Callable[[], None]]:
    """A `mcptui run` going on while the block acts on the server; `done()` waits for it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "request.json").write_text(json.dumps(body))
    env = {**os.environ, "OPENAI_API_KEY": "sk-stack-cases-not-a-key", "CI": "true"}
    args = ["run", "request.json", "--no-tui", "--base-url", emulator, "--record", "rec.jsonl"]
    proc = forked_popen([*args, *options], folder, env)

    def done() -> None:
        finished = proc.communicate(timeout=WAIT * 2)
        out = finished.stdout + finished.stderr
        assert "Traceback" not in out, out

    try:
        yield done
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


SCENARIOS: dict[str, Callable[..., list[Scored]]] = {
    "calls": calls,
    "kill_mid_call": kill_mid_call,
    "restart_before_call": restart_before_call,
    "earlier_sessions": earlier_sessions,
    "era_mismatch": era_mismatch,
}
SHARES = {"calls", "earlier_sessions", "era_mismatch"}
"""The scenarios that leave their server as they found it (they neither kill nor restart it):
they may share one running server of a stack (`shared=`), with each other and at once."""


def applies(scenario: str, stack: Stack, era: str) -> bool:
    if scenario == "era_mismatch":
        return era == "modern" and not stack.modern and "echo" in stack.tools
    if era == "modern" and not stack.modern:
        return False
    if scenario == "kill_mid_call":
        return {"slow", "echo"} <= set(stack.tools)
    if scenario == "restart_before_call":
        return "echo" in stack.tools
    if scenario == "earlier_sessions":
        return "fails" in stack.tools
    return True


def run_all(
    stacks: list[str] | None = None,
    eras: tuple[str, ...] = ("legacy", "modern"),
    scenarios: tuple[str, ...] = tuple(SCENARIOS),
) -> list[Scored]:
    found: list[Scored] = []
    with emulators() as emu, tempfile.TemporaryDirectory() as tmp:
        for era in eras:
            found += server_down(era, emu, Path(tmp, f"down-{era}"))
            found += attach_unknown(era, emu, Path(tmp, f"attach-{era}"))
            for name in stacks or list(STACKS):
                stack = STACKS[name]
                for scenario in scenarios:
                    if applies(scenario, stack, era):
                        folder = Path(tmp, f"{name}-{era}-{scenario}")
                        found += SCENARIOS[scenario](stack, era, emu, folder)
    return found


__all__ = ["STACKS", "Running", "Scored", "run_all"]
