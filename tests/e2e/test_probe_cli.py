"""`mcptui probe` against the demo MCP server on loopback, as a user and as the app run it.

The demo servers run in this test process (the `servers` fixture); the command line is a child
process with no terminal and no API key. Each tool of the demo server fails in one known way,
and each test checks that the probe names that way plainly: a missing structuredContent, a
timeout, a refused connection, a 401, an invalid content block, an isError result. Timeouts
are kept at a second so the suite stays fast.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path
from typing import Any

from _cli_fork import forked_cli
from _e2e_support import TOKEN, Servers, calls
from mcptui.emulator.demo_server import DemoModes, build_app
from mcptui.mcpclient.link import TASKGROUP_424
from mcptui.net.serve import ServerThread
from mcptui.probe.probing import ProbeReport, ServerReport, probe, probe_call
from mcptui.probe.view import render
from rich.console import Console

MISSING = "declares an outputSchema but the result has no structuredContent"
NESTED = (
    "nested cause: RuntimeError: Tool broken_schema has an output schema but did not "
    "return structured content"
)


# -- helpers ------------------------------------------------------------------------------------


def free_port() -> int:
    """A port nobody listens on: bound, then closed."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def request_for(*tools: dict[str, Any]) -> dict[str, Any]:
    return {"model": "gpt-5-mini", "input": "probe", "tools": list(tools)}


def run_cli(
    tmp_path: Path, args: list[str], *, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`mcptui ARGS` as a process of its own, forked from one that has imported mcptui
    already (_cli_fork.py: ~1.5 s of CPU less a command)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    done = forked_cli(args, tmp_path, {**clean, **(env or {})}, timeout=60)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    return done


def run_probe(
    tmp_path: Path, request: dict[str, Any], *options: str
) -> subprocess.CompletedProcess[str]:
    (tmp_path / "request.json").write_text(json.dumps(request))
    return run_cli(tmp_path, ["probe", "request.json", *options])


def as_json(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    return json.loads(done.stdout)


def only_call(report: ProbeReport):
    (server,) = report.servers
    (call,) = server.calls
    return call


# -- the three cases the feature is done by -----------------------------------------------------


def test_broken_schema_names_the_missing_structured_content(tmp_path: Path, servers: Servers):
    done = run_probe(
        tmp_path,
        request_for(servers.tool()),
        "--tool",
        "broken_schema",
        "--args",
        '{"query": "webhook retry policy"}',
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"✓ demo  {servers.mcp}/mcp  streamable HTTP · protocol " in done.stdout
    assert "✗ broken_schema" in done.stdout
    assert (
        "OpenAI would report: http_error 424: unhandled errors in a TaskGroup (1 sub-exception)"
    ) in done.stdout
    assert NESTED in done.stdout
    assert f"✗ {MISSING}: OpenAI's MCP client rejects it" in done.stdout
    assert "problems found (exit 1)" in done.stdout
    assert f"mcptui: connecting to demo at {servers.mcp}/mcp" in done.stderr  # progress


def test_slow_tool_past_the_timeout_names_the_timeout(tmp_path: Path, servers: Servers):
    """The tool answers after 30 s; the probe's limit is 5 s. That the probe gave up at its
    limit shows in what it reports (kind "timeout", not the answer that comes later), not in
    a wall-clock bound, which a loaded machine starting the CLI broke. The limit also bounds
    connecting and listing: 1 s was too short for those on a loaded machine (no call made)."""
    done = run_probe(
        tmp_path,
        request_for(servers.tool()),
        "--tool",
        "slow_search",
        "--args",
        '{"query": "x", "delay_s": 30}',
        "--timeout",
        "5",
        "--json",
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr == ""  # no progress lines with --json
    (server,) = as_json(done)["servers"]
    assert server["calls"], server  # listed in time: the call was made
    call = server["calls"][0]
    assert call["kind"] == "timeout" and call["ok"] is False
    assert call["openai_error"] == TASKGROUP_424
    assert "timed out" in call["cause"]
    assert [c["message"] for c in call["checks"]] == [
        "no answer within 5 s, the limit given (OpenAI's is about 60 s): past the limit the "
        "API reports the 424"
    ]


def test_unreachable_url_says_connection_refused(tmp_path: Path):
    port = free_port()
    request = request_for(
        {"type": "mcp", "server_label": "files", "server_url": f"http://127.0.0.1:{port}/mcp"}
    )
    done = run_probe(tmp_path, request)
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        f"✗ files  unreachable: connection refused by 127.0.0.1:{port}: is the MCP server "
        "running there?"
    ) in done.stdout
    assert "cause: ConnectError" in done.stdout
    report = as_json(run_probe(tmp_path, request, "--json"))
    server = report["servers"][0]
    assert server["reachable"] is False and server["kind"] == "refused"
    assert "connection refused" in server["problem"]
    assert report["exit_code"] == 1


# -- healthy, JSON, recordings, tokens ----------------------------------------------------------


def test_a_healthy_search_exits_0(tmp_path: Path, servers: Servers):
    done = run_probe(
        tmp_path, request_for(servers.tool()), "--tool", "search", "--args", '{"query": "x"}'
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "✓ search" in done.stdout and "ok in" in done.stdout
    assert "everything checks out (exit 0)" in done.stdout


async def test_a_healthy_search_in_json(servers: Servers):
    report = (
        await probe(request_for(servers.tool()), tool="search", arguments={"query": "x"}, timeout=5)
    ).as_json()
    json.dumps(report)  # serializable as it is
    server = report["servers"][0]
    assert server["server_name"] == "mcptui-demo" and server["protocol_version"]
    assert server["transport"] == "streamable_http"
    assert server["initialize_seconds"] > 0 and server["list_seconds"] > 0
    assert {t["name"] for t in server["tools"]} >= {"search", "broken_schema"}
    call = server["calls"][0]
    assert call["ok"] and call["kind"] is None and call["size_bytes"] > 0
    assert '"hits"' in call["output_preview"]
    (check,) = call["checks"]
    assert check["severity"] == "ok"
    assert report["exit_code"] == 0


def test_without_calls_it_connects_and_lists(tmp_path: Path, servers: Servers):
    done = run_probe(tmp_path, request_for(servers.tool()))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tools: 9 offered" in done.stdout
    assert "calls" not in done.stdout


def test_allowed_tools_count_what_the_server_offered_not_what_was_let_through(
    tmp_path: Path, servers: Servers
):
    done = run_probe(tmp_path, request_for(servers.tool(allowed_tools=["search"])))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tools: 9 offered, 1 allowed, 8 excluded by allowed_tools" in done.stdout


def test_a_recording_whose_calls_match_no_server_checked_nothing_and_says_so(
    tmp_path: Path, servers: Servers
):
    """The shipped 424 was made against server label "files"; the request has only "demo"."""
    recording = Path(__file__).resolve().parents[2] / "recordings/mcp-424-broken-schema.jsonl"
    done = run_probe(tmp_path, request_for(servers.tool()), "--recording", str(recording))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "everything checks out" not in done.stdout
    assert "nothing from the recording was checked" in " ".join(done.stdout.split())


def test_recording_reruns_the_failed_call_with_its_arguments(tmp_path: Path, servers: Servers):
    """Record the classic 424 with `mcptui run` through the emulator, then probe it."""
    tool = servers.tool()
    body = {
        **request_for(tool),
        "input": calls(
            "q", ("search", {"query": "ok"}), ("broken_schema", {"query": "from the recording"})
        ),
    }
    (tmp_path / "run.json").write_text(json.dumps(body))
    ran = run_cli(
        tmp_path,
        ["run", "run.json", "--no-tui", "--base-url", servers.emulator, "--record", "rec.jsonl"],
        env={"OPENAI_API_KEY": "sk-test-probe"},
    )
    assert ran.returncode == 1, ran.stdout + ran.stderr  # the 424 is in the recording
    done = run_probe(tmp_path, request_for(tool), "--recording", "rec.jsonl", "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    (call,) = as_json(done)["servers"][0]["calls"]  # search succeeded: not re-run
    assert call["tool"] == "broken_schema" and call["source"] == "recording"
    assert call["arguments"] == {"query": "from the recording"}
    assert call["recorded_error"] == (
        "http_error 424: unhandled errors in a TaskGroup (1 sub-exception)"
    )
    assert call["item_id"].startswith("mcp_")
    assert call["kind"] == "missing_structured_content"
    assert MISSING in call["checks"][0]["message"]


def test_sse_asked_of_the_mcp_path_says_to_try_sse(tmp_path: Path, servers: Servers):
    done = run_probe(tmp_path, request_for(servers.tool()), "--transport", "sse")
    assert done.returncode == 1, done.stdout + done.stderr
    flat = " ".join(done.stdout.split())
    assert "reachable but refusing" in flat
    assert "try the /sse path" in flat
    assert "probe: 0 of 1 server usable · 1 reached but refusing" in flat


def test_token_protected_server(tmp_path: Path, servers: Servers):
    url = f"{servers.mcp_token}/mcp"
    refused = run_probe(tmp_path, request_for(servers.tool(url=url)))
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "answered HTTP 401 Unauthorized: check the token" in refused.stdout
    # It answered, so it was reached: it refused, which is not "unreachable".
    assert "reachable but refusing: " in refused.stdout
    assert "unreachable" not in refused.stdout
    assert (
        as_json(run_probe(tmp_path, request_for(servers.tool(url=url)), "--json"))["servers"][0][
            "kind"
        ]
        == "http_401"
    )
    given = (
        ({"authorization": TOKEN}, ()),
        ({"headers": {"Authorization": f"Bearer {TOKEN}"}}, ("--json",)),
    )
    for fields, options in given:
        done = run_probe(
            tmp_path,
            request_for(servers.tool(url=url, **fields)),
            "--tool",
            "search",
            "--args",
            json.dumps({"query": TOKEN}),  # echoed back, too
            *options,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert TOKEN not in done.stdout + done.stderr
    assert as_json(done)["servers"][0]["headers"] == ["Authorization"]


def test_command_line_mistakes_exit_2(tmp_path: Path, servers: Servers):
    (tmp_path / "request.json").write_text(json.dumps(request_for(servers.tool())))
    (tmp_path / "plain.json").write_text(json.dumps(request_for({"type": "web_search"})))
    cases = {
        ("probe", "missing.json"): "missing.json: no such file",
        ("probe", "request.json", "--args", "{}"): "--args needs --tool",
        ("probe", "request.json", "--tool", "t", "--args", "{oops"): "--args is not valid JSON",
        ("probe", "request.json", "--tool", "t", "--args", "[1]"): "must be a JSON object",
        ("probe", "request.json", "--recording", "nope.jsonl"): "cannot use the recording",
        ("probe", "request.json", "--timeout", "0"): "--timeout must be greater than 0",
        ("probe", "plain.json"): "no MCP tools",
    }
    for args, fragment in cases.items():
        done = run_cli(tmp_path, list(args))
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert done.stdout == ""
        assert done.stderr.startswith("mcptui: ") and fragment in done.stderr, done.stderr


# -- probe() directly: each failure kind --------------------------------------------------------


async def test_allowed_tools_filter_the_tools_and_the_calls(servers: Servers):
    for allowed in (["search", "nope"], {"tool_names": ["search", "nope"]}):
        report = await probe(request_for(servers.tool(allowed_tools=allowed)), timeout=5)
        (server,) = report.servers
        assert [t.name for t in server.tools] == ["search"]
        assert "broken_schema" in server.skipped_tools
        assert server.missing_tools == ["nope"]
        assert [c.code for c in server.checks] == ["missing_tools"]
        assert report.exit_code == 0  # a warning, not a failure
    blocked = await probe(
        request_for(servers.tool(allowed_tools=["search"])),
        tool="broken_schema",
        arguments={"query": "x"},
        timeout=5,
    )
    (server,) = blocked.servers
    assert server.calls == []
    assert "tool_not_allowed" in [c.code for c in server.checks]
    assert blocked.problems == [
        "no server offers the tool 'broken_schema' (see each server's tools, and allowed_tools)"
    ]
    assert blocked.exit_code == 1


async def test_bad_content_names_the_invalid_block(servers: Servers):
    call = only_call(
        await probe(
            request_for(servers.tool()), tool="bad_content", arguments={"query": "x"}, timeout=5
        )
    )
    assert call.kind == "invalid_content" and not call.ok
    assert call.checks[0].message.startswith(
        "content block 0 has type 'json', not one of text, image, audio, resource_link, resource"
    )


async def test_failing_api_is_an_is_error_warning(servers: Servers):
    report = await probe(
        request_for(servers.tool()), tool="failing_api", arguments={"query": "x"}, timeout=5
    )
    call = only_call(report)
    assert call.is_error and not call.ok and call.kind == "tool_error"
    assert call.openai_error["type"] == "mcp_tool_execution_error"
    (check,) = call.checks
    assert check.severity == "warning" and "Error executing tool failing_api" in check.message
    assert report.exit_code == 1  # a failed call


async def test_protocol_error_and_arguments_that_do_not_fit(servers: Servers):
    call = only_call(
        await probe(
            request_for(servers.tool()), tool="protocol_error", arguments={"query": "x"}, timeout=5
        )
    )
    assert call.kind == "protocol_error"
    assert call.openai_error["type"] == "mcp_protocol_error"
    empty = only_call(await probe(request_for(servers.tool()), tool="search", timeout=5))
    assert [c.code for c in empty.checks] == ["arguments_mismatch", "tool_error"]


async def test_sse_and_a_wrong_path(servers: Servers):
    sse = await probe(
        request_for(servers.tool(url=f"{servers.mcp}/sse")),
        tool="search",
        arguments={"query": "x"},
        timeout=5,
    )
    assert sse.servers[0].transport == "sse" and sse.exit_code == 0
    wrong = await probe(request_for(servers.tool(url=f"{servers.mcp}/nope")), timeout=5)
    (server,) = wrong.servers
    assert server.kind == "http_404" and "check the URL path" in server.problem


async def test_probe_call_with_an_entry_from_a_recording(servers: Servers):
    """The app re-runs one mcp_call with the recording's (redacted) tool entry."""
    entry = servers.tool(headers={"X-Demo-Key": "<redacted>"})
    lines: list[str] = []
    server = await probe_call(
        entry,
        "broken_schema",
        {"query": "x"},
        timeout=5,
        source="recording",
        on_progress=lines.append,
    )
    assert isinstance(server, ServerReport) and server.reachable
    assert server.headers == []  # the placeholder is not sent
    assert server.checks[0].code == "redacted_headers"
    assert "X-Demo-Key" in server.checks[0].message
    (call,) = server.calls
    assert call.kind == "missing_structured_content" and call.source == "recording"
    assert lines[0] == f"connecting to demo at {servers.mcp}/mcp"
    assert "✗ broken_schema" in rendered(server)


async def test_probe_call_as_the_app_calls_it(servers: Servers):
    """Arguments as the app parses them (maybe not an object); a redacted source; evidence."""
    from mcptui.probe.probing import evidence_of

    garbled = await probe_call(servers.tool(), "search", '{"query": ', timeout=5, redacted=True)
    assert [c.code for c in garbled.checks] == ["redacted_source"]
    (call,) = garbled.calls
    assert not call.called and call.kind == "bad_arguments"
    assert "not valid JSON" in call.checks[0].message
    listed = await probe_call(servers.tool(), "search", ["x"], timeout=5)
    assert listed.calls[0].checks[0].message == (
        "not called: the arguments are list, not a JSON object"
    )
    slow = await probe_call(
        servers.tool(), "slow_search", {"query": "x", "delay_s": 2}, timeout=0.5
    )
    evidence = evidence_of(slow)
    assert evidence is not None and evidence.kind == "timeout" and evidence.reachable
    assert evidence.message.startswith("no answer within 0.5 s")
    refused = await probe_call(
        servers.tool(url=f"http://127.0.0.1:{free_port()}/mcp"), "search", {}, timeout=5
    )
    evidence = evidence_of(refused)
    assert evidence is not None and evidence.kind == "refused" and not evidence.reachable
    ok = evidence_of(await probe_call(servers.tool(), "search", {"query": "x"}, timeout=5))
    assert ok is not None and ok.kind is None


def rendered(report: ServerReport) -> str:
    console = Console(record=True, width=300, color_system=None)
    console.print(render(report))
    return console.export_text()


# -- a hostile server: a dangling $ref, echoed secrets, escapes in names -----------------------

LEAKED = "hdr-secret-4417"
"""The X-Api-Key the request sends; the hostile server echoes it into its tool listing."""


def hostile_app() -> Any:
    """A real MCP server whose `lookup` tool has a dangling $ref and names the request's key.

    MCPServer builds inputSchema from the function; it is replaced afterwards, as a server
    with hand-written schemas would publish it (calls still validate against the function).
    """
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.tools import Tool
    from mcp.server.transport_security import TransportSecuritySettings
    from mcptui.emulator.demo_server import _root_logging_untouched

    def lookup(q: Any = None) -> str:
        return "found"

    tool = Tool.from_function(lookup, description=f"Looks up with key {LEAKED}.")
    tool.parameters = {
        "type": "object",
        "properties": {"q": {"$ref": "#/$defs/missing", "description": f"default {LEAKED}"}},
    }
    echo = Tool.from_function(lookup, name=f"echo_{LEAKED}", description="Echoes.")
    with _root_logging_untouched():
        server = MCPServer("hostile", log_level="WARNING", tools=[tool, echo])
    return server.streamable_http_app(
        streamable_http_path="/mcp",
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )


def test_a_hostile_server_gets_a_report_not_a_traceback_nor_a_leak(tmp_path: Path):
    from mcptui.net.serve import ServerThread

    with ServerThread(hostile_app()) as hostile:
        request = request_for(
            {
                "type": "mcp",
                "server_label": "evil\x1b[31m",
                "server_url": f"{hostile.url}/mcp",
                "headers": {"X-Api-Key": LEAKED},
            }
        )
        done = run_probe(tmp_path, request, "--tool", "lookup", "--args", '{"q": 1}')
        report = as_json(
            run_probe(tmp_path, request, "--tool", "lookup", "--args", '{"q": 1}', "--json")
        )
    assert done.returncode == 0, done.stdout + done.stderr  # warnings only
    assert "\x1b" not in done.stderr and "connecting to evil\\x1b[31m at" in done.stderr
    assert "\x1b" not in done.stdout
    assert LEAKED not in done.stdout + done.stderr + json.dumps(report)
    (server,) = report["servers"]
    tools = {t["name"]: t for t in server["tools"]}
    assert set(tools) == {"lookup", "echo_<redacted>"}
    assert [c["code"] for c in tools["lookup"]["checks"]] == ["dangling_ref", "output_schema"]
    assert tools["lookup"]["input_schema"]["properties"]["q"]["description"] == (
        "default <redacted>"
    )
    (call,) = server["calls"]
    assert call["ok"] and [c["code"] for c in call["checks"]] == ["arguments_unchecked"]
    assert "PointerToNowhere" in done.stdout


# -- MCP revisions: which eras a server speaks, and which one OpenAI's client meets ---------------

BOTH = "revisions: speaks 2026-07-28 (server/discover) and 2025-11-25 (initialize)"
BROKEN = ("--tool", "broken_schema", "--args", '{"query": "x"}')


def flat(done: subprocess.CompletedProcess[str]) -> str:
    return " ".join(done.stdout.split())


def url_request(url: str) -> dict[str, Any]:
    return request_for({"type": "mcp", "server_label": "demo", "server_url": url})


async def test_an_mcp_23_server_speaks_both_revisions(tmp_path: Path, servers: Servers):
    url = f"{servers.mcp}/mcp"
    done = run_cli(tmp_path, ["probe", url])
    assert done.returncode == 0, done.stdout + done.stderr
    text = flat(done)
    assert BOTH in text
    assert "✓ 2026-07-28 (server/discover): mcptui-demo · 9 tools listed" in text
    assert "✓ 2025-11-25 (initialize): mcptui-demo · 9 tools listed" in text
    assert (
        "which revision OpenAI's MCP client meets here cannot be known: OpenAI does not "
        "say which revision its MCP client speaks"
    ) in text
    host = url.split("//", 1)[1].split("/", 1)[0]
    assert f"mcptui: asking {host} for 2026-07-28 (server/discover)" in done.stderr
    server = (await probe(url_request(url), timeout=5)).as_json()["servers"][0]
    assert list(server["revisions"]) == ["2026-07-28", "2025-11-25"]
    modern, legacy = server["revisions"]["2026-07-28"], server["revisions"]["2025-11-25"]
    assert (modern["speaks"], modern["method"], modern["server_name"]) == (
        True,
        "server/discover",
        "mcptui-demo",
    )
    assert modern["supported_versions"] == ["2026-07-28"]
    assert (legacy["speaks"], legacy["method"], legacy["server_name"]) == (
        True,
        "initialize",
        "mcptui-demo",
    )
    assert server["era"] == "legacy" and server["protocol_version"] == "2025-11-25"
    assert server["era_openai_meets"] is None  # a legacy client meets 2025, an auto one 2026
    assert server["revisions_summary"] == BOTH.removeprefix("revisions: ")


async def test_a_legacy_only_server_says_legacy_only(tmp_path: Path):
    with ServerThread(build_app(modes=DemoModes(legacy_only=True))) as old:
        done = run_cli(tmp_path, ["probe", f"{old.url}/mcp"])
        report = (await probe(url_request(f"{old.url}/mcp"), timeout=5)).as_json()
        over_sse = await probe(
            url_request(f"{old.url}/sse"), tool="broken_schema", arguments={"query": "x"}, timeout=5
        )
    assert done.returncode == 0, done.stdout + done.stderr
    text = flat(done)
    assert (
        "revisions: legacy only: 2025-11-25 (server/discover answered -32600 Bad Request: "
        "Missing session ID, HTTP 400)"
    ) in text
    assert (
        "i 2026-07-28 (server/discover): answered -32600 Bad Request: Missing session ID, HTTP 400"
    ) in text
    assert (
        "OpenAI's MCP client meets 2025-11-25: the server speaks no 2026-07-28, and every "
        "client falls back to initialize"
    ) in text
    server = report["servers"][0]
    assert server["era_openai_meets"] == "legacy"
    assert server["revisions"]["2026-07-28"]["speaks"] is False
    assert server["revisions"]["2026-07-28"]["kind"] == "protocol_version"
    assert server["revisions"]["2025-11-25"]["server_name"] == "mcptui-demo"
    sse = over_sse.servers[0]
    assert "legacy only: 2025-11-25 (server/discover answered -32601 Method not found)" in " ".join(
        rendered(over_sse).split()
    )
    assert sse.era == "legacy" and sse.calls[0].kind == "missing_structured_content"


def test_a_modern_only_server_is_one_openais_client_cannot_use(tmp_path: Path):
    with ServerThread(build_app(modes=DemoModes(modern_only=True))) as new:
        done = run_cli(tmp_path, ["probe", f"{new.url}/mcp", *BROKEN])
    assert done.returncode == 1, done.stdout + done.stderr
    text = flat(done)
    assert (
        "revisions: modern only: 2026-07-28 (initialize answered -32022 Unsupported "
        "protocol version)"
    ) in text
    assert "✗ a legacy client cannot connect: initialize answered -32022" in text
    assert "streamable HTTP · protocol 2026-07-28" in text
    assert NESTED in done.stdout  # the call, made in the modern era: the same failure


async def test_mcp_protocol_asks_one_era_only(tmp_path: Path, servers: Servers):
    url = f"{servers.mcp}/mcp"
    legacy = run_cli(tmp_path, ["probe", url, "--mcp-protocol", "legacy"])
    assert legacy.returncode == 0, legacy.stdout + legacy.stderr
    assert (
        "revisions: speaks 2025-11-25 (initialize); server/discover not asked "
        "(--mcp-protocol legacy)"
    ) in flat(legacy)
    assert "asking" not in legacy.stderr
    modern = await probe(
        url_request(url),
        tool="broken_schema",
        arguments={"query": "x"},
        timeout=5,
        protocol="modern",
    )
    (server,) = modern.servers
    assert (server.era, server.protocol_version) == ("modern", "2026-07-28")
    assert list(server.revisions) == ["2026-07-28"]
    assert (
        "revisions: speaks 2026-07-28 (server/discover); initialize not asked "
        "(--mcp-protocol modern)"
    ) in " ".join(rendered(modern).split())
    assert server.calls[0].kind == "missing_structured_content"
