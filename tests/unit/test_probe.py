"""The probe's pure parts: schema and result checks, allowed_tools, recorded calls, exit codes,
the JSON report's redaction and the rendered text. The network side is in tests/e2e."""

from __future__ import annotations

import json
from typing import Any

import mcp.types
import pydantic
import pytest
from _ports import free_port
from mcptui.io.formats import load_text
from mcptui.mcpclient.link import TASKGROUP_424, CallOutcome, _lost_kind, _raised_kind
from mcptui.probe.probing import (
    OPENAI_TIMEOUT,
    AllowedTools,
    CallReport,
    Check,
    ProbeReport,
    RevisionReport,
    ServerReport,
    ToolReport,
    _judge_eras,
    _Scrub,
    _sort_tools,
    arguments_checks,
    content_checks,
    content_error_checks,
    entry_headers,
    evidence_of,
    input_schema_checks,
    outcome_checks,
    parse_allowed_tools,
    parse_arguments,
    plan_calls,
    probe,
    recorded_failures,
    revisions_summary,
    structured_checks,
    tool_report,
    worst,
)
from mcptui.probe.targets import ProbeInputError, read_input
from mcptui.probe.view import render
from rich.console import Console

DANGLING = {"type": "object", "properties": {"q": {"$ref": "#/$defs/missing"}}}
"""A schema whose $ref points nowhere: jsonschema raises when validation reaches it."""

OBJECT = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
RESULT_SCHEMA = {"type": "object", "properties": {"hits": {"type": "array"}}, "required": ["hits"]}


def codes(checks: list[Check]) -> list[str]:
    return [check.code for check in checks]


# -- tool schemas -------------------------------------------------------------------------------


def test_a_sane_input_schema_has_no_remarks():
    assert input_schema_checks(OBJECT) == []


@pytest.mark.parametrize(
    ("schema", "code", "severity"),
    [
        ({"type": "string"}, "input_schema_type", "error"),
        ({"type": "object", "properties": 5}, "input_schema_invalid", "error"),
        (
            {"type": "object", "properties": {}, "required": ["query"]},
            "required_not_in_properties",
            "warning",
        ),
        ({"type": "object", "required": ["a", "b"]}, "required_not_in_properties", "warning"),
        ("not a schema", "input_schema_not_object", "error"),
    ],
)
def test_input_schema_faults(schema: Any, code: str, severity: str):
    checks = input_schema_checks(schema)
    found = {c.code: c for c in checks}
    assert code in found, checks
    assert found[code].severity == severity


def test_required_names_missing_from_properties_are_named():
    (check,) = input_schema_checks(
        {"type": "object", "properties": {"a": {}}, "required": ["a", "b", "c"]}
    )
    assert check.message.endswith("b, c")


def test_tool_report_notes_description_and_output_schema():
    bare = tool_report("t", None, OBJECT, None)
    assert codes(bare.checks) == ["no_description"]
    assert worst(bare.checks) == "info"
    declared = tool_report("t", "Searches.", OBJECT, RESULT_SCHEMA)
    (note,) = declared.checks
    assert note.severity == "info"
    assert note.message == (
        "declares an outputSchema: results must carry structuredContent matching it"
    )
    broken = tool_report("t", "d", OBJECT, {"type": 12})
    assert "output_schema_invalid" in codes(broken.checks)
    assert worst(broken.checks) == "error"


def test_a_dangling_ref_is_a_warning_not_a_crash():
    (ref,) = input_schema_checks(DANGLING)
    assert (ref.severity, ref.code) == ("warning", "dangling_ref")
    assert "#/$defs/missing" in ref.message
    (unchecked,) = arguments_checks(DANGLING, {"q": 1})
    assert (unchecked.severity, unchecked.code) == ("warning", "arguments_unchecked")
    assert unchecked.message == (
        "the arguments could not be checked against the inputSchema: "
        "PointerToNowhere: '/$defs/missing' does not exist"
    )
    assert arguments_checks(DANGLING, {}) == []  # the $ref is never reached
    (unusable,) = structured_checks(DANGLING, {"q": 1})
    assert (unusable.severity, unusable.code) == ("warning", "output_schema_unusable")
    assert "PointerToNowhere" in unusable.message
    tool = tool_report("t", "d", DANGLING, DANGLING)
    assert worst(tool.checks) == "warning"
    assert codes(tool.checks) == ["dangling_ref", "dangling_ref", "output_schema"]


def test_only_refs_that_point_nowhere_are_named():
    schema = {
        "type": "object",
        "$defs": {"a": {"type": "string"}, "b/c": {}},
        "properties": {
            "x": {"$ref": "#/$defs/a"},
            "y": {"$ref": "#/$defs/b~1c"},
            "enum": {"$ref": "#/$defs/gone"},  # a property named "enum"
            "z": {"$ref": "https://example.com/remote.json"},
            "w": {"default": {"$ref": "#/data/not/a/ref"}},
        },
    }
    (check,) = input_schema_checks(schema)
    assert check.message.startswith(
        "inputSchema has a $ref that points nowhere in it: #/$defs/gone:"
    )


def test_a_malformed_required_list_is_reported_not_raised():
    checks = input_schema_checks({"type": "object", "required": [["unhashable"]]})
    assert codes(checks) == ["input_schema_invalid", "required_not_in_properties"]


# -- results --------------------------------------------------------------------------------------


def test_structured_content_against_the_output_schema():
    assert structured_checks(RESULT_SCHEMA, {"hits": []}) == []
    (missing,) = structured_checks(RESULT_SCHEMA, None)
    assert missing.severity == "error"
    assert missing.message.startswith(
        "declares an outputSchema but the result has no structuredContent: OpenAI's MCP client "
        "rejects it, which surfaces as 424"
    )
    (wrong,) = structured_checks(RESULT_SCHEMA, {"hits": "none"})
    assert wrong.code == "invalid_structured_content"
    assert "at /hits: 'none' is not of type 'array'" in wrong.message
    (absent,) = structured_checks(RESULT_SCHEMA, {})
    assert "'hits' is a required property" in absent.message


def test_content_block_types():
    good = [{"type": t} for t in ("text", "image", "audio", "resource_link", "resource")]
    assert content_checks(good) == []
    bad, untyped = content_checks([{"type": "text"}, {"type": "json"}, {"text": "x"}])
    assert bad.severity == "error"
    assert bad.message.startswith("content block 1 has type 'json', not one of text, image")
    assert untyped.message.startswith("content block 2 has no type")


def validation_error(raw: dict[str, Any]) -> pydantic.ValidationError:
    with pytest.raises(pydantic.ValidationError) as caught:
        mcp.types.CallToolResult.model_validate(raw)
    return caught.value


def test_the_sdks_validation_error_names_the_bad_block():
    exc = validation_error({"content": [{"type": "text", "text": "ok"}, {"type": "json"}]})
    (check,) = content_error_checks(exc, "ValidationError: …")
    assert check.message.startswith("content block 1 has type 'json'")
    malformed = validation_error({"content": [{"type": "image", "data": "AAAA"}]})
    (check,) = content_error_checks(malformed, None)
    assert check.message.startswith(
        "content block 0 (image) is malformed: mimeType: Field required"
    )
    other = validation_error({"content": "not a list"})
    (check,) = content_error_checks(other, "ValidationError: structuredContent")
    assert check.code == "invalid_result"


def outcome(
    kind: str | None = None,
    *,
    seconds: float = 0.05,
    result: Any = None,
    cause: str | None = None,
    exception: BaseException | None = None,
) -> CallOutcome:
    error = None if kind is None else dict(TASKGROUP_424)
    return CallOutcome(
        output=None,
        error=error,
        cause=cause,
        result=result,
        seconds=seconds,
        kind=kind,
        exception=exception,
    )


def text_result(
    text: str = "{}", *, structured: Any = None, is_error: bool = False
) -> mcp.types.CallToolResult:
    return mcp.types.CallToolResult(
        content=[mcp.types.TextContent(type="text", text=text)],
        structured_content=structured,
        is_error=is_error,
    )


def test_a_good_answer_is_one_ok_check():
    (check,) = outcome_checks(
        outcome(result=text_result(structured={"hits": []})), RESULT_SCHEMA, timeout=60
    )
    assert check.severity == "ok"
    assert "structuredContent matches the outputSchema" in check.message


def test_sdk_raised_schema_faults_are_the_check_result():
    (missing,) = outcome_checks(outcome("missing_structured_content"), RESULT_SCHEMA, 60)
    assert missing.code == "missing_structured_content"
    cause = (
        "RuntimeError: Invalid structured content returned by tool t: 'hits' is a required property"
    )
    (invalid,) = outcome_checks(
        outcome("invalid_structured_content", cause=cause), RESULT_SCHEMA, 60
    )
    assert invalid.message.startswith(
        "structuredContent does not match the outputSchema: 'hits' is a required property"
    )


def test_timeouts_and_slow_answers():
    (timed_out,) = outcome_checks(outcome("timeout", seconds=1.0), None, timeout=1)
    assert timed_out.message == (
        "no answer within 1 s, the limit given (OpenAI's is about "
        "60 s): past the limit the API reports the 424"
    )
    (at_openai,) = outcome_checks(outcome("timeout", seconds=60.0), None, timeout=60)
    assert at_openai.message == (
        "no answer within 60 s: OpenAI gives up after about 60 s and reports the 424"
    )
    (slow,) = outcome_checks(outcome(result=text_result(), seconds=35), None, timeout=60)
    assert slow.severity == "warning"
    assert "close to OpenAI's ~60 s limit" in slow.message
    (too_slow,) = outcome_checks(
        outcome(result=text_result(), seconds=OPENAI_TIMEOUT + 5), None, timeout=120
    )
    assert too_slow.severity == "error"


def test_is_error_size_and_arguments():
    failed = CallOutcome(
        output=None,
        error={"type": "mcp_tool_execution_error", "content": []},
        cause="tool reported an error: down",
        result=text_result("upstream down", is_error=True),
        seconds=0.1,
        kind="tool_error",
    )
    (check,) = outcome_checks(failed, RESULT_SCHEMA, 60)  # isError: no schema check
    assert check.severity == "warning"
    assert "'upstream down'" in check.message
    big = outcome(result=text_result("x" * 150_000))
    assert codes(outcome_checks(big, None, 60)) == ["large_result"]
    (mismatch,) = arguments_checks(OBJECT, {})
    assert mismatch.message.endswith("'query' is a required property")
    assert arguments_checks(OBJECT, {"query": "x"}) == []


def test_the_clients_kinds_from_the_sdks_messages():
    assert (
        _raised_kind(
            RuntimeError("Tool t has an output schema but did not return structured content")
        )
        == "missing_structured_content"
    )
    assert _raised_kind(RuntimeError("Invalid structured content returned by tool t: x")) == (
        "invalid_structured_content"
    )
    assert _raised_kind(validation_error({"content": [{"type": "json"}]})) == "invalid_content"
    assert _raised_kind(ValueError("other")) == "unexpected"
    assert _lost_kind("MCPError: Session terminated") == "session_terminated"
    assert _lost_kind("MCPError: Connection closed") == "connection_lost"


# -- the request and the recording ----------------------------------------------------------------


def test_allowed_tools_both_spellings():
    assert parse_allowed_tools(None) == AllowedTools()
    assert not parse_allowed_tools(None).restricts
    listed = parse_allowed_tools(["a", "b"])
    assert listed.allows("a") and not listed.allows("c")
    named = parse_allowed_tools({"tool_names": ["a"]})
    assert named.allows("a") and not named.allows("b")
    read_only = parse_allowed_tools({"read_only": True})
    assert read_only.allows("x", True) and not read_only.allows("x", None)
    assert parse_allowed_tools({"tool_names": ["a"], "read_only": True}).allows("a", True)


def test_arguments_from_a_recording():
    assert parse_arguments("") == ({}, None)
    assert parse_arguments('{"q": 1}') == ({"q": 1}, None)
    none, why = parse_arguments('{"q": ')
    assert none is None and "not valid JSON" in why
    assert parse_arguments("[1]")[1] == "the recorded arguments are list, not a JSON object"


def test_headers_redacted_in_the_source_are_left_out_and_named():
    headers, redacted = entry_headers(
        {"headers": {"X-Key": "<redacted>", "X-Other": "v"}, "authorization": "<redacted>"}
    )
    assert headers == {"X-Other": "v"}
    assert redacted == ["X-Key", "authorization"]
    headers, redacted = entry_headers({"authorization": "tok"})
    assert headers == {"Authorization": "Bearer tok"} and redacted == []


def stream(*items: dict[str, Any]) -> str:
    events = [
        {
            "type": "response.created",
            "sequence_number": 0,
            "response": {"id": "resp_1", "status": "in_progress", "output": []},
        }
    ]
    for index, item in enumerate(items):
        events.append(
            {
                "type": "response.output_item.done",
                "sequence_number": index + 1,
                "output_index": index,
                "item": item,
            }
        )
    return "\n".join(json.dumps(e) for e in events)


def mcp_call(name: str, label: str, arguments: str, error: Any) -> dict[str, Any]:
    return {
        "type": "mcp_call",
        "id": f"mcp_{name}",
        "name": name,
        "server_label": label,
        "arguments": arguments,
        "output": None if error else "ok",
        "error": error,
        "status": "failed" if error else "completed",
    }


def test_failed_calls_of_a_recording_are_planned_per_server():
    loaded = load_text(
        stream(
            mcp_call("broken_schema", "demo", '{"query": "x"}', dict(TASKGROUP_424)),
            mcp_call("search", "demo", '{"query": "y"}', None),
            mcp_call("garbled", "demo", '{"query": ', "boom"),
            mcp_call("other", "elsewhere", "{}", "boom"),
        )
    )
    failures = recorded_failures(loaded)
    assert [(label, call.tool) for label, call in failures] == [
        ("demo", "broken_schema"),
        ("demo", "garbled"),
        ("elsewhere", "other"),
    ]
    first = failures[0][1]
    assert first.arguments == {"query": "x"} and first.item_id == "mcp_broken_schema"
    assert (
        first.recorded_error == "http_error 424: unhandled errors in a TaskGroup (1 sub-exception)"
    )
    assert failures[1][1].arguments is None and failures[1][1].arguments_problem
    notes: list[str] = []
    plans = plan_calls(
        [{"type": "mcp", "server_label": "demo"}],
        recording=loaded,
        tool=None,
        arguments=None,
        notes=notes,
    )
    assert [call.tool for call in plans[0]] == ["broken_schema", "garbled"]
    assert notes == [
        "recorded failed call other on 'elsewhere': the request has no mcp tool "
        "with that server_label; not called"
    ]
    only = plan_calls(
        [{"type": "mcp", "server_label": "demo"}],
        recording=loaded,
        tool="search",
        arguments=None,
        notes=notes,
    )
    assert only[0] == [] and "no failed mcp_call of search" in notes[-1]


# -- the report -----------------------------------------------------------------------------------


def call(ok: bool, *checks: Check) -> CallReport:
    return CallReport(
        server_label="files",
        tool="t",
        arguments={},
        source="named",
        seconds=0.1,
        ok=ok,
        checks=list(checks),
    )


def test_exit_codes():
    assert ProbeReport().exit_code == 2
    fine = ServerReport(
        "files",
        "http://127.0.0.1:1/mcp",
        reachable=True,
        tools=[ToolReport("t", None, OBJECT, None, [Check("info", "no_description", "…")])],
        calls=[call(True, Check("warning", "slow", "…"))],
    )
    assert ProbeReport([fine]).exit_code == 0
    assert ProbeReport([fine], problems=["--tool x not found"]).exit_code == 1
    assert ProbeReport([ServerReport("files", None)]).exit_code == 1  # unreachable
    failed = ServerReport("files", "u", reachable=True, calls=[call(False)])
    assert ProbeReport([fine, failed]).exit_code == 1
    bad_schema = ServerReport(
        "files",
        "u",
        reachable=True,
        tools=[ToolReport("t", "d", {"type": "string"}, None, [Check("error", "x", "…")])],
    )
    assert ProbeReport([bad_schema]).exit_code == 1


async def test_json_shows_header_names_never_values():
    secret = "sk-live-abcdefghijklmnop"
    request = {
        "tools": [
            {
                "type": "mcp",
                "server_label": "files",
                "server_url": f"http://127.0.0.1:{free_port()}/mcp",
                "headers": {"X-Api-Key": "key-value-77"},
                "authorization": secret,
            }
        ]
    }
    report = await probe(request, timeout=5)
    data = report.as_json()
    text = json.dumps(data)
    assert secret not in text and "key-value-77" not in text
    (server,) = data["servers"]
    assert server["headers"] == ["Authorization", "X-Api-Key"]
    assert server["reachable"] is False and server["kind"] == "refused"
    assert data["exit_code"] == 1


async def test_no_mcp_tools_is_nothing_to_probe():
    report = await probe({"tools": [{"type": "function", "name": "f"}]})
    assert report.exit_code == 2
    assert "no MCP tools" in report.problems[0]


def rendered(report: ProbeReport) -> str:
    console = Console(record=True, width=300, color_system=None)
    console.print(render(report))
    return console.export_text()


def test_render_shows_the_server_the_call_and_the_cause():
    server = ServerReport(
        "files",
        "http://127.0.0.1:8765/mcp",
        transport="streamable_http",
        headers=["Authorization"],
        reachable=True,
        protocol_version="2025-06-18",
        server_name="demo",
        server_version="1.0",
        initialize_seconds=0.05,
        list_seconds=0.01,
        tools=[
            tool_report("search", "Search.", OBJECT, RESULT_SCHEMA),
            tool_report("odd", None, {"type": "string"}, None),
        ],
        skipped_tools=["hidden"],
        calls=[
            CallReport(
                server_label="files",
                tool="broken_schema",
                arguments={"query": "x"},
                source="recording",
                recorded_error="http_error 424: unhandled errors in a TaskGroup (1 sub-exception)",
                seconds=0.01,
                ok=False,
                openai_error=dict(TASKGROUP_424),
                cause="RuntimeError: Tool broken_schema has an output schema but did not return "
                "structured content",
                kind="missing_structured_content",
                checks=structured_checks(RESULT_SCHEMA, None),
            )
        ],
    )
    text = rendered(ProbeReport([server]))
    assert (
        "✓ files  http://127.0.0.1:8765/mcp  streamable HTTP · protocol 2025-06-18 · "
        "demo 1.0 · init 0.05 s · list 0.01 s"
    ) in text
    assert "headers sent (values hidden): Authorization" in text
    assert "tools: 3 offered, 2 allowed, 1 excluded by allowed_tools: hidden" in text
    assert "✗ inputSchema has type 'string'" in text
    assert "1 without remarks: search (1 declare an outputSchema" in text
    assert "✗ broken_schema" in text and "(re-run from the recording)" in text
    assert (
        "OpenAI would report: http_error 424: unhandled errors in a TaskGroup (1 sub-exception)"
    ) in text
    assert (
        "nested cause: RuntimeError: Tool broken_schema has an output schema but did not "
        "return structured content"
    ) in text
    assert "✗ declares an outputSchema but the result has no structuredContent" in text
    assert "(exit 1)" in text


def test_render_unreachable_and_hostile_text():
    server = ServerReport(
        "files",
        "http://127.0.0.1:9/mcp",
        kind="refused",
        problem="connection refused by 127.0.0.1:9: is the MCP server running there?",
        cause="ConnectError: All connection attempts failed",
    )
    hostile = ServerReport(
        "[bold]x[/bold]",
        "http://127.0.0.1:1/mcp",
        reachable=True,
        server_name="\x1b[31mred\x07",
        transport="sse",
    )
    text = rendered(ProbeReport([server, hostile]))
    assert (
        "✗ files  unreachable: connection refused by 127.0.0.1:9: is the MCP server running there?"
    ) in text
    assert "cause: ConnectError: All connection attempts failed" in text
    assert "[bold]x[/bold]" in text  # shown as typed, not as markup
    assert "\\x1b[31mred\\x07" in text and "\x1b" not in text


# -- the probe over a fake link: faults, progress lines and secrets --------------------------------

SECRET = "key-value-7731"


class FakeLink:
    """Stands in for `McpLink`: lists `listed`, answers each call with `answer(name)`; speaks
    both eras."""

    listed: list[mcp.types.Tool] = []
    protocol_version = "2025-06-18"

    def __init__(
        self,
        url: str,
        *,
        headers: dict[str, str],
        timeout: float,
        transport: str | None,
        protocol: str = "auto",
    ) -> None:
        self.transport = transport or "streamable_http"
        self.protocol = protocol
        self.era: str | None = None
        self.supported_versions: list[str] | None = None
        self.tools: list[mcp.types.Tool] | None = None
        self.server_info = mcp.types.Implementation(name="fake", version="1")

    async def __aenter__(self) -> FakeLink:
        self.era = "modern" if self.protocol == "modern" else "legacy"
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def list_tools(self) -> list[mcp.types.Tool]:
        self.tools = list(self.listed)
        return self.tools

    async def call(self, name: str, arguments: dict[str, Any], *, timeout: float) -> CallOutcome:
        if name.startswith("explode"):
            raise RuntimeError("the probe tripped")
        return CallOutcome(output="{}", error=None, cause=None, result=text_result(), seconds=0.01)


@pytest.fixture
def fake_link(monkeypatch: pytest.MonkeyPatch) -> type[FakeLink]:
    class Link(FakeLink):
        listed = []

    monkeypatch.setattr("mcptui.probe.probing.McpLink", Link)
    return Link


def fake_entry(label: str = "files", **fields: Any) -> dict[str, Any]:
    return {"type": "mcp", "server_label": label, "server_url": "http://127.0.0.1:1/mcp", **fields}


def tool(name: str, schema: Any = None, **fields: Any) -> mcp.types.Tool:
    return mcp.types.Tool(name=name, input_schema=schema or OBJECT, **fields)


async def test_a_tool_with_a_dangling_ref_does_not_stop_the_probe(fake_link: type[FakeLink]):
    fake_link.listed = [tool("lookup", DANGLING, description="Looks up.")]
    report = await probe({"tools": [fake_entry()]}, tool="lookup", arguments={"q": 1})
    (server,) = report.servers
    assert server.reachable and codes(server.tools[0].checks) == ["dangling_ref"]
    (call,) = server.calls
    assert call.ok and codes(call.checks) == ["arguments_unchecked"]
    assert report.exit_code == 0


async def test_a_call_the_probe_fails_on_is_that_calls_report(fake_link: type[FakeLink]):
    fake_link.listed = [
        tool("explode", description="Fails the probe."),
        tool("fine", description="Works."),
    ]
    recording = load_text(
        stream(
            mcp_call("explode", "files", '{"query": "x"}', dict(TASKGROUP_424)),
            mcp_call("fine", "files", '{"query": "y"}', dict(TASKGROUP_424)),
        )
    )
    report = await probe({"tools": [fake_entry()]}, recording=recording)
    (server,) = report.servers
    exploded, fine = server.calls
    assert not exploded.ok and exploded.called and exploded.kind == "probe_failed"
    (check,) = exploded.checks
    assert (check.severity, check.message) == (
        "error",
        "probe failed on this call: RuntimeError: the probe tripped",
    )
    assert fine.ok  # the next call was still made
    assert report.exit_code == 1
    assert "probe failed on this call" in rendered(report)


async def test_progress_lines_carry_no_terminal_escapes(fake_link: type[FakeLink]):
    hostile = "\x1b[31mred\x1b[0m"
    fake_link.listed = [tool(f"run{hostile}", description="d")]
    lines: list[str] = []
    # (in the URL, a path segment of its own: `x\x1b[31mred…` reads as a token, and a
    # token of the server's URL is hidden wherever it is echoed, the label too)
    await probe(
        {"tools": [fake_entry(hostile, server_url=f"http://127.0.0.1:1/q/x{hostile}")]},
        tool=f"run{hostile}",
        on_progress=lines.append,
    )
    assert len(lines) == 4  # connecting, listing, calling; asking for the modern era
    assert not any("\x1b" in line for line in lines), lines
    assert lines[2] == "calling run\\x1b[31mred\\x1b[0m on \\x1b[31mred\\x1b[0m"
    assert lines[3] == "asking \\x1b[31mred\\x1b[0m for 2026-07-28 (server/discover)"
    refused: list[str] = []
    await probe(
        {
            "tools": [
                {
                    "type": "mcp",
                    "server_label": hostile,
                    "server_url": f"http://127.0.0.1:{free_port()}/mcp",
                }
            ]
        },
        timeout=5,
        on_progress=refused.append,
    )
    assert refused and not any("\x1b" in line for line in refused)


def leaky_tools() -> list[mcp.types.Tool]:
    """A server that echoes the request's header value into every part of its listing."""
    return [
        tool(
            f"lookup_{SECRET}",
            description=f"Looks up with key {SECRET}.",
            schema={
                "type": "object",
                "properties": {
                    "q": {"type": "string", "description": f"default {SECRET}"},
                    SECRET: {"type": "string"},
                },
                "required": ["q", f"also_{SECRET}"],
            },
            output_schema={"type": "object", "title": f"Result for {SECRET}"},
        ),
        tool("typed", schema={"type": f"obj-{SECRET}"}),
        tool(f"hidden_{SECRET}"),
    ]


def test_the_tool_listing_is_scrubbed_of_secrets():
    server = ServerReport("files", "http://127.0.0.1:1/mcp", reachable=True)
    allowed = parse_allowed_tools([f"lookup_{SECRET}", "typed", f"absent_{SECRET}"])
    by_name, skipped = _sort_tools(server, leaky_tools(), allowed, _Scrub([SECRET]))
    assert set(by_name) == {f"lookup_{SECRET}", "typed", f"hidden_{SECRET}"}  # real names
    assert skipped == {f"hidden_{SECRET}"}
    text = json.dumps(server.as_json())
    assert SECRET not in text
    assert "lookup_<redacted>" in text and "hidden_<redacted>" in text
    assert "also_<redacted>" in text  # a check message quoting the schema
    assert "obj-<redacted>" in text
    shown = rendered(ProbeReport([server]))
    assert SECRET not in shown and "lookup_<redacted>" in shown


async def test_secrets_echoed_by_a_server_stay_out_of_the_report(fake_link: type[FakeLink]):
    fake_link.listed = leaky_tools()
    fake_link.protocol_version = f"2025-06-18+{SECRET}"
    entry = fake_entry(headers={"X-Api-Key": SECRET}, allowed_tools=[f"lookup_{SECRET}", "typed"])
    lines: list[str] = []
    report = await probe(
        {"tools": [entry]},
        tool=f"lookup_{SECRET}",
        arguments={"q": SECRET},
        on_progress=lines.append,
    )
    (server,) = report.servers
    assert server.reachable and len(server.calls) == 1
    assert SECRET not in json.dumps(report.as_json())
    assert SECRET not in rendered(report)
    assert not any(SECRET in line for line in lines)
    hidden = await probe({"tools": [entry]}, tool=f"hidden_{SECRET}")
    assert SECRET not in json.dumps(hidden.as_json())
    assert "hidden_<redacted> is listed but excluded" in json.dumps(hidden.as_json())


# -- MCP revisions: the summary line and which era OpenAI's client meets ------------------------


def revision(era: str, speaks: bool, **fields: Any) -> RevisionReport:
    method = {"legacy": "initialize", "modern": "server/discover"}[era]
    asked = {"legacy": "2025-11-25", "modern": "2026-07-28"}[era]
    defaults: dict[str, Any] = {
        "protocol_version": asked if speaks else None,
        "server_name": "srv" if speaks else None,
        "tools": ["a"] if speaks else None,
    }
    return RevisionReport(
        era=era,
        method=method,
        asked=asked,
        speaks=speaks,  # type: ignore[arg-type]
        **{**defaults, **fields},
    )


def judged(*revisions: RevisionReport) -> ServerReport:
    server = ServerReport("files", "http://127.0.0.1:1/mcp", reachable=True)
    server.revisions = {r.revision: r for r in revisions}
    _judge_eras(server)
    return server


def test_revisions_both_eras():
    server = judged(revision("modern", True), revision("legacy", True))
    assert revisions_summary(server) == (
        "speaks 2026-07-28 (server/discover) and 2025-11-25 (initialize)"
    )
    assert server.era_openai_meets is None and server.checks == []
    assert server.era_note is not None and "cannot be known" in server.era_note
    text = rendered(ProbeReport([server]))
    assert "✓ 2026-07-28 (server/discover): srv · 1 tool listed" in text


def test_revisions_legacy_only_and_modern_only():
    old = judged(
        revision(
            "modern", False, answer="-32601 Method not found, HTTP 404", kind="protocol_version"
        ),
        revision("legacy", True),
    )
    assert revisions_summary(old) == (
        "legacy only: 2025-11-25 (server/discover answered -32601 Method not found, HTTP 404)"
    )
    assert old.era_openai_meets == "legacy" and old.checks == []
    new = judged(
        revision("modern", True),
        revision(
            "legacy", False, kind="protocol_version", answer="-32022 Unsupported protocol version"
        ),
    )
    assert revisions_summary(new) == (
        "modern only: 2026-07-28 (initialize answered -32022 Unsupported protocol version)"
    )
    assert new.era_openai_meets is None
    assert codes(new.checks) == ["legacy_refused"] and worst(new.checks) == "error"
    evidence = evidence_of(new)
    assert evidence is not None and evidence.kind == "protocol_version"
    assert not evidence.reachable  # OpenAI's (legacy) client cannot list its tools


def test_revisions_not_asked_no_answer_and_neither():
    assert revisions_summary(judged(revision("legacy", True))) == (
        "speaks 2025-11-25 (initialize); server/discover not asked (--mcp-protocol legacy)"
    )
    silent = judged(
        revision("modern", False, kind="timeout", problem="did not answer"),
        revision("legacy", True),
    )
    assert revisions_summary(silent) == (
        "speaks 2025-11-25 (initialize); server/discover got no answer: did not answer"
    )
    assert silent.era_openai_meets is None
    refusing = judged(
        revision("modern", False, kind="http_401", answer="HTTP 401"),
        revision("legacy", False, kind="http_401", answer="HTTP 401"),
    )
    assert revisions_summary(refusing) is None  # a 401 says nothing of the revisions
    assert revisions_summary(
        judged(revision("legacy", False, kind="protocol_version", answer="-32022 x"))
    ) == (
        "does not speak 2025-11-25 (initialize answered -32022 x); server/discover not asked "
        "(--mcp-protocol legacy)"
    )


def test_tools_listed_differently_per_era_are_a_warning():
    server = judged(revision("modern", True, tools=["a", "b"]), revision("legacy", True))
    (check,) = server.checks
    assert check.code == "era_tools_differ"
    assert check.message == "the revisions list different tools: only under 2026-07-28: b"


def test_a_server_url_is_probed_on_its_own():
    target = read_input("http://user:pw@127.0.0.1:8765/mcp")
    (entry,) = target.request["tools"]
    assert entry["server_label"] == "127.0.0.1:8765" and "pw" not in entry["server_label"]
    assert entry["server_url"] == "http://user:pw@127.0.0.1:8765/mcp"
    assert target.recording is None
    with pytest.raises(ProbeInputError, match="names no host"):
        read_input("https:///mcp")


async def test_an_unknown_protocol_is_refused():
    with pytest.raises(ValueError, match="unknown MCP protocol"):
        await probe({"tools": [fake_entry()]}, protocol="2026")
