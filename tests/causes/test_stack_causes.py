"""The likely-cause engine against real MCP server stacks (issue 34's cases), in both protocol
revisions: each failure reproduced with a real server process (real_stacks.py), OpenAI's side
played by the emulator, the installed `mcptui run --tap` (or a standalone `mcptui tap` and
`inspect --tap`), scored by what `inspect --json` says (stack_cases.py).

The scenarios run concurrently (each in its own folder) once per module; each test then asserts
on its own failures: the true cause on top, its advice for the stack. A scenario that kills or
restarts its server has a server process of its own; the others (`sc.SHARES`) share the stack's
running server (conftest.py's `shared_stacks`, which test_real_stacks.py shares too).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import stack_cases as sc
from real_stacks import STACKS, SharedStacks, available

pytestmark = pytest.mark.xdist_group("real_stacks")
"""One worker runs this module and test_real_stacks.py (`--dist loadgroup`, pyproject.toml):
otherwise its module fixture runs every real-stack scenario once in each worker that runs one of
its tests, and the stacks they share are started once per worker."""

PLAN: list[tuple[str, str, str]] = [
    # (scenario, stack, era)
    ("calls", "py_mcpserver", "legacy"),  # case 5: MCPServer hides its output check
    ("calls", "py_fastmcp", "legacy"),  # case 5: "Output validation error: …"
    ("calls", "ts_mcpserver", "legacy"),  # case 5: the TypeScript McpServer's words
    ("calls", "ts_lowlevel", "legacy"),  # case 6: -32602 "Invalid tools/call result"
    ("calls", "ts_v2", "modern"),
    ("calls", "py_lowlevel", "modern"),  # the classic 424, confirmed from a modern wire
    ("kill_mid_call", "py_mcpserver", "legacy"),  # case 4
    ("kill_mid_call", "ts_mcpserver", "legacy"),
    ("restart_before_call", "py_mcpserver", "legacy"),  # case 3
    ("restart_before_call", "everything", "legacy"),  # "No valid session ID provided"
    ("restart_before_call", "py_mcpserver", "modern"),  # no session to lose
    ("earlier_sessions", "py_mcpserver", "legacy"),  # case 2
    ("earlier_sessions", "ts_mcpserver", "legacy"),
    ("era_mismatch", "ts_mcpserver", "modern"),  # a 2026-only client, a 2025-only server
]
WORKERS = 4


@pytest.fixture(scope="module")
def results(
    shared_stacks: SharedStacks,
) -> Iterator[dict[tuple[str, str, str], list[sc.Scored]]]:
    for _, stack, _ in PLAN:
        reason = available(stack)
        assert reason is None, f"{stack}: {reason}"
    shared = shared_stacks.ensure(
        sorted({stack for scenario, stack, _ in PLAN if scenario in sc.SHARES})
    )
    found: dict[tuple[str, str, str], list[sc.Scored]] = {}
    with sc.emulators() as emu, tempfile.TemporaryDirectory() as tmp:
        jobs: dict[tuple[str, str, str], Callable[[], list[sc.Scored]]] = {
            ("server_down", "-", "legacy"): _bind(sc.server_down, "legacy", emu, Path(tmp, "down"))
        }
        jobs[("attach_unknown", "-", "legacy")] = _bind(
            sc.attach_unknown, "legacy", emu, Path(tmp, "attach")
        )
        for scenario, stack, era in PLAN:
            jobs[(scenario, stack, era)] = _bind(
                sc.SCENARIOS[scenario],
                STACKS[stack],
                era,
                emu,
                Path(tmp, f"{scenario}-{stack}-{era}"),
                *([shared[stack]] if scenario in sc.SHARES else []),
            )
        with ThreadPoolExecutor(WORKERS) as pool:
            futures = {key: pool.submit(job) for key, job in jobs.items()}
            for key, future in futures.items():
                found[key] = future.result()
        yield found


def _bind(function: Callable[..., list[sc.Scored]], *args: object) -> Callable[[], list[sc.Scored]]:
    return lambda: function(*args)


def shown(scores: list[sc.Scored]) -> list[tuple[str, str, tuple[tuple[str, str], ...]]]:
    return [(s.tool, s.cause, s.causes[:3]) for s in scores]


@pytest.mark.parametrize(
    "key",
    [("server_down", "-", "legacy"), ("attach_unknown", "-", "legacy"), *PLAN],
    ids=lambda key: "-".join(key),
)
def test_the_true_cause_is_on_top_and_nothing_else_is_confident(results, key) -> None:
    scores = results[key]
    assert scores, key
    for score in scores:
        assert score.right, shown(scores)
        assert not score.silent or score.cause == "none", shown(scores)
        assert not any(
            confidence in ("confirmed", "likely") and cause != score.cause
            for cause, confidence in score.causes[1:]
            if cause not in ALSO_TRUE.get(score.cause, ())
        ), shown(scores)


ALSO_TRUE = {
    "unreachable": ("tool_list_failure",),
    "protocol_version_mismatch": ("tool_list_failure",),
}
"""Causes that are true as well: a server nobody reaches, or one of another revision, fails the
listing too."""


def test_case_1_a_server_down_behind_a_standalone_tap_is_unreachable_not_slow(results) -> None:
    (score,) = results[("server_down", "-", "legacy")]
    assert score.top == ("unreachable", "confirmed")
    assert any("could not reach the upstream" in e for e in score.evidence)
    assert "timeout" not in [cause for cause, _ in score.causes]


def test_case_2_an_earlier_session_in_the_tap_file_is_not_the_calls_own(results) -> None:
    for stack in ("py_mcpserver", "ts_mcpserver"):
        (score,) = results[("earlier_sessions", stack, "legacy")]
        assert score.top == ("tool_error", "confirmed"), shown([score])
        assert "timeout" not in [cause for cause, _ in score.causes]
        assert not any("-" in e.split(" s before")[0][-6:] for e in score.evidence)


def test_case_3_a_session_lost_between_listing_and_call_is_named(results) -> None:
    (python,) = results[("restart_before_call", "py_mcpserver", "legacy")]
    (everything,) = results[("restart_before_call", "everything", "legacy")]
    for score in (python, everything):
        assert score.top == ("session_terminated", "confirmed"), shown([score])
    assert any("No valid session ID provided" in e for e in everything.evidence)
    assert any("Session not found" in e for e in python.evidence)
    assert "stateless_http=True" in python.fix
    assert "sessionIdGenerator" in everything.fix
    # The 2026-07-28 revision has no session: the same restart loses nothing.
    (modern,) = results[("restart_before_call", "py_mcpserver", "modern")]
    assert modern.causes == (("none", "confirmed"),), shown([modern])


def test_case_4_a_server_killed_mid_call_returned_no_result(results) -> None:
    shapes = {
        "output_schema_without_structured_content",
        "invalid_structured_content",
        "invalid_content",
    }
    for key in (
        ("kill_mid_call", "py_mcpserver", "legacy"),
        ("kill_mid_call", "ts_mcpserver", "legacy"),
    ):
        for score in results[key]:
            assert score.top is not None and score.top[0] == "connection_lost", shown([score])
            assert not shapes & {cause for cause, _ in score.causes}, shown([score])


@pytest.mark.parametrize(
    ("stack", "words", "fix"),
    [
        # fastmcp 4 does not check its own output: the wire shows the result OpenAI rejects.
        ("py_fastmcp", "its tools/call result has no structuredContent", "output_schema=None"),
        ("ts_mcpserver", "has an output schema but no structured content", "registerTool"),
        ("py_mcpserver", "Error executing tool broken_schema", "structured_output=False"),
    ],
)
def test_case_5_the_classic_424_as_todays_sdks_produce_it(results, stack, words, fix) -> None:
    (score,) = [s for s in results[("calls", stack, "legacy")] if s.tool == "broken_schema"]
    assert score.top is not None and score.top[1] in ("confirmed", "likely")
    # MCPServer hides which of the two it was: the cause says both, the log tells.
    assert score.top[0] == (
        "hidden_exception"
        if stack == "py_mcpserver"
        else "output_schema_without_structured_content"
    ), shown([score])
    assert any(words in e for e in score.evidence), score.evidence
    assert fix in score.fix
    assert "the MCP plumbing worked" not in score.fix


def test_case_6_a_typescript_server_refusing_its_own_result_blames_the_result(results) -> None:
    (score,) = [s for s in results[("calls", "ts_lowlevel", "legacy")] if s.tool == "bad_content"]
    assert score.top == ("invalid_content", "confirmed"), shown([score])
    assert any("Invalid tools/call result" in e for e in score.evidence)
    assert "input schema" not in score.fix
    assert "JSON.stringify" in score.fix  # TypeScript advice for a TypeScript server


def test_case_8_an_unknown_id_on_attach_is_mcptuis_own_request(results) -> None:
    (score,) = results[("attach_unknown", "-", "legacy")]
    assert score.top == ("stored_response_missing", "confirmed")
    assert "invalid_request" not in [cause for cause, _ in score.causes]


def test_a_client_of_one_revision_meeting_a_server_of_the_other_is_named(results) -> None:
    (score,) = results[("era_mismatch", "ts_mcpserver", "modern")]
    assert score.top == ("protocol_version_mismatch", "likely"), shown([score])
    assert any("server/discover" in e for e in score.evidence)


def test_the_classic_424_is_confirmed_from_the_wire_in_the_2026_revision(results) -> None:
    """`emulate --mcp-protocol modern` through the tap: each tools/call is tied to its item
    (no session: by its HTTP exchange and time), and the result OpenAI's client rejects is
    seen on the wire."""
    scores = {s.tool: s for s in results[("calls", "py_lowlevel", "modern")]}
    classic = scores["broken_schema"]
    assert classic.top == ("output_schema_without_structured_content", "confirmed")
    assert classic.evidence[0].startswith("tap: tools/list declared an outputSchema")
    assert scores["wrong_type"].top == ("invalid_structured_content", "confirmed")


def test_case_7_a_server_that_answers_http_500_is_named(results) -> None:
    """A middleware of the server's own breaks (the tool never runs): HTTP 500, not JSON-RPC.
    (An OpenAI connector's "http_error 500" in the stream: tests/unit/test_causes.py.)"""
    for stack in ("py_mcpserver", "ts_mcpserver"):
        (score,) = [s for s in results[("calls", stack, "legacy")] if s.tool == "crash"]
        assert score.top == ("mcp_server_error", "confirmed"), shown([score])
        assert any("HTTP 500" in e for e in score.evidence)
