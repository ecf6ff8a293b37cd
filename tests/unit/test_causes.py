"""Likely causes: each failure shape and piece of evidence leads to the cause a person would
look for first, with the evidence stated."""

from __future__ import annotations

from pathlib import Path

import pytest
from _support import HTTP_ERROR_424, MCP_TOOL, fold, read_chunks, with_failed_mcp_call
from mcptui.model.causes import CAUSES, ProbeEvidence, item_causes, response_causes
from mcptui.model.events import note
from mcptui.model.state import ItemState, ResponseState
from mcptui.model.timeline import Timeline

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def failed_call(upstream_dir: Path):
    """The real MCP stream with its first call failing with a given error."""

    def make(error: object) -> tuple[Timeline, ResponseState, ItemState]:
        raws, call_id = with_failed_mcp_call(read_chunks(upstream_dir / MCP_TOOL), error)
        timeline = fold(raws)
        [resp] = timeline.state.responses
        [item] = [i for i in resp.items if i.item_id == call_id]
        return timeline, resp, item

    return make


def keys(found: list) -> list[tuple[str, str]]:
    return [(c.cause.key, c.confidence) for c in found]


def test_a_quick_424_from_a_reachable_server_lists_equal_candidates(failed_call) -> None:
    """The stream cannot tell an output schema without structuredContent from an invalid
    content block (the same opaque 424, as fast): none is `likely`; they are candidates, most
    common first, and the evidence names the step that tells them apart."""
    timeline, resp, item = failed_call(HTTP_ERROR_424)
    found = item_causes(resp, item, timeline.events, tool_seconds=0.4)
    assert keys(found) == [
        ("output_schema_without_structured_content", "possible"),
        ("invalid_content", "possible"),
        ("invalid_structured_content", "possible"),
        ("session_terminated", "possible"),
    ]
    evidence = " ".join(found[0].evidence)
    assert "too soon for a timeout" in evidence  # timing rules the timeout out
    assert "listed its tools" in evidence
    assert "cannot tell these candidates apart (listed most common first)" in evidence
    assert "a probe (p, `mcptui probe`)" in evidence


def test_a_424_after_a_minute_is_a_timeout(failed_call) -> None:
    timeline, resp, item = failed_call(HTTP_ERROR_424)
    found = item_causes(resp, item, timeline.events, tool_seconds=61.2)
    assert keys(found)[0] == ("timeout", "likely")
    assert "61.2 s" in found[0].evidence[0]


def test_without_timing_the_424_stays_open_between_causes(failed_call) -> None:
    timeline, resp, item = failed_call(HTTP_ERROR_424)
    # The fixture's server listed its tools: the server was reachable, and the schema
    # explanation leads, but nothing is claimed as confirmed.
    found = item_causes(resp, item, timeline.events, tool_seconds=None)
    assert all(c.confidence == "possible" for c in found)
    assert found[0].cause.key == "output_schema_without_structured_content"
    # No timing removes no candidate: the timeout stays one.
    (timeout,) = [c for c in found if c.cause.key == "timeout"]
    assert timeout.evidence == ("no timing in this source to rule it out",)


@pytest.mark.parametrize(("seconds", "expected"), [(2.9, ("timeout", "likely")), (0.3, None)])
def test_the_timeout_rule_uses_the_limit_the_response_names(
    failed_call, seconds: float, expected
) -> None:
    """An emulator run with --tool-timeout 3 writes the limit into the response's metadata: a
    call failing after 2.9 s is its timeout, not "too soon for a timeout"."""
    timeline, resp, item = failed_call(HTTP_ERROR_424)
    resp.tool_timeout = 3.0
    found = item_causes(resp, item, timeline.events, tool_seconds=seconds)
    if expected is not None:
        assert keys(found)[0] == expected
        assert "the 3 s limit this response names" in found[0].evidence[0]
    else:
        assert "timeout" not in [key for key, _ in keys(found)]
        assert "too soon for a timeout (the 3 s limit this response names)" in " ".join(
            found[0].evidence
        )


def test_a_probe_confirms_the_cause(failed_call) -> None:
    timeline, resp, item = failed_call(HTTP_ERROR_424)
    probe = ProbeEvidence(
        "missing_structured_content",
        "RuntimeError: Tool x has an output schema but did not return structured content",
    )
    found = item_causes(resp, item, timeline.events, tool_seconds=0.4, probe=probe)
    # Once confirmed, the other candidates and the "a probe would tell" hint go away.
    assert keys(found) == [("output_schema_without_structured_content", "confirmed")]
    assert found[0].evidence[0].startswith("probe: RuntimeError")
    assert "too soon for a timeout" in found[0].evidence[1]
    assert not any("cannot tell" in e for e in found[0].evidence)


@pytest.mark.parametrize(
    ("kind", "cause"),
    [
        ("timeout", "timeout"),
        ("invalid_content", "invalid_content"),
        ("invalid_structured_content", "invalid_structured_content"),
    ],
)
def test_a_probed_call_confirms_its_cause(failed_call, kind: str, cause: str) -> None:
    timeline, resp, item = failed_call(HTTP_ERROR_424)
    found = item_causes(resp, item, timeline.events, probe=ProbeEvidence(kind, "seen"))
    assert keys(found)[0] == (cause, "confirmed")


def test_a_connection_failure_from_here_weighs_less_than_the_stream(failed_call) -> None:
    timeline, resp, item = failed_call(HTTP_ERROR_424)
    refused = ProbeEvidence("refused", "connection refused by files.example.com", reachable=False)
    # OpenAI listed this server's tools in the same response: this machine's view is not its,
    # and "unreachable" with the evidence that OpenAI reached it would contradict itself.
    found = item_causes(resp, item, timeline.events, tool_seconds=0.4, probe=refused)
    assert keys(found)[0] == ("output_schema_without_structured_content", "possible")
    assert "unreachable" not in [key for key, _ in keys(found)]
    assert not any("OpenAI reached" in e for c in found for e in c.evidence)
    assert not any(c.confidence == "likely" for c in found)
    # A 421 names its cause wherever it comes from.
    found = item_causes(
        resp, item, timeline.events, probe=ProbeEvidence("http_421", "421", reachable=False)
    )
    assert keys(found)[0] == ("host_header_421", "confirmed")


def test_a_401_without_the_recordings_credentials_proves_little(failed_call) -> None:
    timeline, resp, item = failed_call(HTTP_ERROR_424)
    probe = ProbeEvidence("http_401", "HTTP 401", reachable=False, credentials_missing=True)
    found = item_causes(resp, item, timeline.events, tool_seconds=0.4, probe=probe)
    assert ("auth", "possible") in keys(found)
    assert "redacted" in " ".join(e for c in found for e in c.evidence)


def test_tool_and_protocol_errors_name_themselves(failed_call) -> None:
    timeline, resp, item = failed_call(
        {"type": "mcp_tool_execution_error", "content": [{"type": "text", "text": "quota"}]}
    )
    found = item_causes(resp, item, timeline.events)
    assert keys(found) == [("tool_error", "confirmed")]
    assert "quota" in found[0].evidence[0]

    timeline, resp, item = failed_call(
        {"type": "mcp_protocol_error", "code": 32600, "message": "Session terminated"}
    )
    assert keys(item_causes(resp, item, timeline.events))[0] == ("session_terminated", "likely")

    timeline, resp, item = failed_call(
        {"type": "mcp_protocol_error", "code": -32602, "message": "Invalid params"}
    )
    assert keys(item_causes(resp, item, timeline.events)) == [("protocol_error", "confirmed")]


def test_plain_string_errors_are_read_for_clues(failed_call) -> None:
    timeline, resp, item = failed_call("Request 'tools/call' timed out")
    assert ("timeout", "likely") in keys(item_causes(resp, item, timeline.events))
    timeline, resp, item = failed_call("HTTP 401 Unauthorized")
    assert keys(item_causes(resp, item, timeline.events))[0] == ("auth", "likely")


def test_unlisted_private_server_is_flagged_as_unreachable(upstream_dir: Path) -> None:
    raws, call_id = with_failed_mcp_call(read_chunks(upstream_dir / MCP_TOOL), HTTP_ERROR_424)
    raws = [
        r
        for r in raws
        if not (
            r.get("item", {}).get("type") == "mcp_list_tools"
            or r["type"].startswith("response.mcp_list_tools")
        )
    ]
    for raw in raws:
        if raw["type"] == "response.completed":
            output = raw["response"]["output"]
            output[:] = [i for i in output if i.get("type") != "mcp_list_tools"]
    timeline = fold(raws)
    [resp] = timeline.state.responses
    [item] = [i for i in resp.items if i.item_id == call_id]
    found = item_causes(resp, item, timeline.events, server_url="http://localhost:8000/mcp")
    assert ("unreachable", "likely") in keys(found)
    assert any("localhost" in e for c in found for e in c.evidence)


def test_tool_list_http_424_on_the_request() -> None:
    timeline, resp = _listing_401()
    found = keys(response_causes(resp, timeline.events))
    # What failed (the listing) is certain; why (the 401 it names) is the answer, so first.
    assert found[:2] == [("auth", "likely"), ("tool_list_failure", "confirmed")]


def _listing_401() -> tuple[Timeline, ResponseState]:
    timeline = Timeline(
        [
            note(
                "http_error",
                "POST /v1/responses: HTTP 424: Error retrieving tool list from MCP "
                "server: 'files'. Http status code: 401 (Unauthorized)",
                level="error",
                status=424,
            )
        ]
    )
    timeline.seek_end()
    [resp] = timeline.state.responses
    return timeline, resp


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        (
            {},
            "the request's files tool sends no `authorization` and no Authorization header: "
            "OpenAI called the server without a token",
        ),
        (
            {"authorization": "<redacted>"},
            "the request's files tool sends `authorization` (a token, value not kept): the "
            "server refused that token (expired, for another server, or without a scope it "
            "wants)",
        ),
        (
            {"headers": {"authorization": "<redacted>"}},
            "the request's files tool sends an Authorization header (value not kept): the "
            "server refused it",
        ),
    ],
)
def test_a_401_says_what_the_request_sent_and_what_authorization_must_hold(
    entry: dict, said: str
) -> None:
    timeline, resp = _listing_401()
    request = {
        "tools": [
            {"type": "mcp", "server_label": "files", "server_url": "https://f.example/mcp", **entry}
        ]
    }
    (auth, *_rest) = response_causes(resp, timeline.events, request=request)
    assert auth.cause.key == "auth"
    assert said in auth.evidence
    assert auth.cause.fix.startswith(
        "Put the MCP server's access token in the tool's `authorization` field, the token "
        "alone: OpenAI sends it as `Authorization: Bearer <token>`"
    )
    assert "OpenAI runs no OAuth flow for you" in auth.cause.fix


def test_a_probe_that_found_an_oauth_server_names_it_in_the_fix(failed_call) -> None:
    timeline, resp, item = failed_call("HTTP 401 Unauthorized")
    probe = ProbeEvidence(
        "http_401",
        "answered HTTP 401",
        reachable=False,
        wants="needs OAuth: authorization server https://as.example/, scopes files:read",
    )
    (auth, *_rest) = item_causes(resp, item, timeline.events, probe=probe)
    assert auth.cause.key == "auth"
    assert auth.cause.fix.startswith(
        "The server wants OAuth: authorization server https://as.example/, scopes files:read. "
        "OpenAI runs no OAuth flow for you: your application gets an access token from that "
        "authorization server"
    )


def test_background_run_failing_bare() -> None:
    from mcptui.io.formats import load_path

    loaded = load_path(str(REPO / "recordings" / "background-failed.jsonl"))
    timeline = Timeline(loaded.events, loaded.snapshots)
    timeline.seek_end()
    [resp] = timeline.state.responses
    found = response_causes(resp, timeline.events, request=loaded.header.get("request"))
    # The API's own "server_error" is what a bare background failure always says: a
    # candidate behind the MCP explanation, not the answer.
    assert keys(found) == [("background_bare_failure", "likely"), ("server_error", "possible")]
    assert "server_error" in found[0].evidence[0] or "error" in found[0].evidence[0]


@pytest.mark.parametrize(
    ("error", "status", "cause"),
    [
        (
            {
                "type": "insufficient_quota",
                "code": "insufficient_quota",
                "message": "You exceeded your current quota",
            },
            429,
            "insufficient_quota",
        ),
        (
            {"type": "requests", "code": "rate_limit_exceeded", "message": "Rate limit reached"},
            429,
            "rate_limited",
        ),
        (
            {"type": "server_error", "code": None, "message": "The server had an error"},
            500,
            "server_error",
        ),
        (
            {
                "type": "invalid_request_error",
                "code": None,
                "param": "tools[0].server_url",
                "message": "Invalid URL",
            },
            400,
            "invalid_request",
        ),
    ],
)
def test_response_level_api_errors_get_their_own_cause_and_advice(
    error: dict, status: int, cause: str
) -> None:
    """An HTTP error before the stream (the note a live run records) names its cause."""
    timeline = Timeline(
        [
            note(
                "http_error",
                f"POST /responses: HTTP {status}",
                level="error",
                status=status,
                body={"error": error},
            )
        ]
    )
    timeline.seek_end()
    [resp] = timeline.state.responses
    found = response_causes(resp, timeline.events)
    assert keys(found) == [(cause, "confirmed")]
    assert found[0].cause.fix
    if cause == "invalid_request":
        assert "(param: tools[0].server_url)" in found[0].evidence[0]


def test_every_cause_says_why_and_what_to_try() -> None:
    for cause in CAUSES.values():
        assert cause.title and cause.why.endswith(".") and cause.fix.endswith((".", ")"))


def test_words_alone_do_not_name_a_cause(failed_call) -> None:
    """`session` in an argument error, or a closed connection, is not a lost session or an
    unreachable server."""
    timeline, resp, item = failed_call(
        {
            "type": "mcp_protocol_error",
            "code": -32602,
            "message": "'session_id' is a required property",
        }
    )
    assert keys(item_causes(resp, item, timeline.events)) == [("protocol_error", "confirmed")]
    timeline, resp, item = failed_call("Connection closed")
    assert "unreachable" not in [key for key, _ in keys(item_causes(resp, item, timeline.events))]
    timeline, resp, item = failed_call("connection refused by files.example.com")
    assert ("unreachable", "likely") in keys(item_causes(resp, item, timeline.events))


def test_a_probe_that_worked_speaks_against_the_result_shape(failed_call) -> None:
    timeline, resp, item = failed_call(HTTP_ERROR_424)
    worked = ProbeEvidence(None, "answered in 0.01 s; structuredContent matches")
    found = item_causes(resp, item, timeline.events, tool_seconds=0.4, probe=worked)
    shape = next(c for c in found if c.cause.key == "output_schema_without_structured_content")
    assert shape.confidence == "possible"
    assert any(e.startswith("probe: the call worked") for e in shape.evidence)


def test_a_connect_timeout_is_not_a_slow_tool(failed_call) -> None:
    timeline, resp, item = failed_call(HTTP_ERROR_424)
    found = item_causes(
        resp,
        item,
        timeline.events,
        probe=ProbeEvidence("timeout", "did not finish connecting within 60 s", reachable=False),
    )
    # OpenAI listed the server in this response: a connect timeout from here proves nothing.
    assert "unreachable" not in [key for key, _ in keys(found)]
    assert ("timeout", "confirmed") not in keys(found)


LISTING_424 = (
    "Error retrieving tool list from MCP server: 'demo'. Http status code: 424 (Failed Dependency)"
)


def _listing_refused(**request_fields: object) -> Timeline:
    body = {
        "error": {
            "message": LISTING_424,
            "type": "external_connector_error",
            "param": "tools",
            "code": "http_error",
        }
    }
    return Timeline(
        [
            note(
                "http_error",
                f"POST /responses: HTTP 424: {LISTING_424}",
                level="error",
                status=424,
                body=body,
            )
        ]
    )


def test_a_listing_failure_that_names_no_status_leaves_equal_candidates() -> None:
    """OpenAI's listing 424 says "424 (Failed Dependency)" whatever the server answered: an
    unreachable server, a refused token and a refused Host header are equal candidates."""
    timeline = _listing_refused()
    timeline.seek_end()
    [resp] = timeline.state.responses
    found = response_causes(resp, timeline.events)
    assert keys(found) == [
        ("tool_list_failure", "confirmed"),
        ("unreachable", "possible"),
        ("auth", "possible"),
        ("host_header_421", "possible"),
    ]
    assert any("a probe (p, `mcptui probe`) connects" in e for e in found[1].evidence)


@pytest.mark.parametrize(
    ("kind", "cause"),
    [
        ("refused", "unreachable"),
        ("http_421", "host_header_421"),
        ("http_401", "auth"),
        ("http_404", "tool_list_failure"),
    ],
)
def test_a_probe_refused_like_openai_was_confirms_the_listing_cause(kind: str, cause: str) -> None:
    """The probe failing to connect from here says little where OpenAI connected; where
    OpenAI could not list the tools either, the same refusal is the answer."""
    timeline = _listing_refused()
    timeline.seek_end()
    [resp] = timeline.state.responses
    probe = ProbeEvidence(kind, f"probe saw {kind}", reachable=False)
    found = response_causes(resp, timeline.events, probe=probe)
    assert (cause, "confirmed") in keys(found)
    assert not [
        k for k, c in keys(found) if c != "possible" and k not in (cause, "tool_list_failure")
    ]


def test_a_local_api_reaches_private_urls(failed_call) -> None:
    """From the emulator (on this machine), a localhost server_url is no reason to fail."""
    timeline, resp, item = failed_call("connection closed by peer")
    url = "http://127.0.0.1:8765/mcp"
    assert ("unreachable", "likely") in keys(
        item_causes(resp, item, timeline.events, server_url=url)
    )
    assert "unreachable" not in dict(
        keys(item_causes(resp, item, timeline.events, server_url=url, api_local=True))
    )


def test_an_http_refusal_of_the_call_is_not_the_servers_json_rpc_error(failed_call) -> None:
    """mcp's client reports a 401 on tools/call as JSON-RPC -32603 "Server returned an error
    response": not a protocol error of the server's; most likely the token."""
    timeline, resp, item = failed_call(
        {
            "type": "mcp_protocol_error",
            "code": -32603,
            "message": "Server returned an error response",
        }
    )
    found = item_causes(resp, item, timeline.events)
    # The status is not kept: 401/403 is the usual one, a 5xx the other.
    assert keys(found) == [("auth", "possible"), ("mcp_server_error", "possible")]
    probe = ProbeEvidence("http_401", "the call got HTTP 401")
    assert keys(item_causes(resp, item, timeline.events, probe=probe))[0] == ("auth", "confirmed")


# -- what today's SDKs say, read as evidence (issue 34, cases 5-9) -------------------------------

FASTMCP_MISSING = "Output validation error: outputSchema defined but no structured output returned"
TS_MISSING = (
    "MCP error -32602: Output validation error: Tool broken_schema has an output "
    "schema but no structured content was provided"
)


@pytest.mark.parametrize(
    ("text", "cause", "family"),
    [
        (FASTMCP_MISSING, "output_schema_without_structured_content", "fastmcp"),
        (TS_MISSING, "output_schema_without_structured_content", "TypeScript"),
        (
            "Output validation error: 'three' is not of type 'number'",
            "invalid_structured_content",
            None,
        ),
    ],
)
def test_the_servers_own_output_check_names_the_classic_424(
    failed_call, text, cause, family
) -> None:
    timeline, resp, item = failed_call(
        {"type": "mcp_tool_execution_error", "content": [{"type": "text", "text": text}]}
    )
    found = item_causes(resp, item, timeline.events)
    assert keys(found)[0] == (cause, "confirmed")
    assert "tool_error" not in [key for key, _ in keys(found)]
    assert "the MCP plumbing worked" not in found[0].cause.fix
    if family is not None:  # the fix is given in the words of the stack that said it
        assert family.lower() in found[0].cause.fix.lower() or "McpServer" in found[0].cause.fix


def test_mcpservers_hidden_exception_names_both_readings_and_the_log_that_tells(
    failed_call,
) -> None:
    """MCPServer says "Error executing tool X" both for a tool that raised and for a result
    that failed its output check (the classic 424 of older servers): one cause that says so,
    with the fix for each, rather than a guess."""
    generic = {
        "type": "mcp_tool_execution_error",
        "content": [{"type": "text", "text": "Error executing tool broken_schema"}],
    }
    timeline, resp, item = failed_call(generic)
    for declared in (True, None):
        found = item_causes(resp, item, timeline.events, declares_output_schema=declared)
        assert keys(found) == [("hidden_exception", "likely"), ("tool_error", "possible")]
        assert "outputSchema" in found[0].cause.title
        assert "structured_output=False" in found[0].cause.fix
        assert "ToolError" in found[0].cause.fix
    plain = item_causes(resp, item, timeline.events, declares_output_schema=False)
    assert keys(plain) == [("tool_error", "confirmed")]
    assert "log" in plain[0].cause.fix


def test_a_typescript_server_refusing_its_own_result_blames_the_result(failed_call) -> None:
    timeline, resp, item = failed_call(
        {
            "type": "mcp_protocol_error",
            "code": -32602,
            "message": 'MCP error -32602: Invalid tools/call result: [{"code": '
            '"invalid_union", "path": ["content", 0]}]',
        }
    )
    found = item_causes(resp, item, timeline.events)
    assert keys(found)[0] == ("invalid_content", "confirmed")
    assert "input schema" not in found[0].cause.fix
    assert "JSON.stringify" in found[0].cause.fix  # TypeScript advice for a TypeScript server


def test_a_connector_500_is_a_server_error_not_silence(failed_call) -> None:
    timeline, resp, item = failed_call(
        {
            "type": "http_error",
            "code": 500,
            "message": "An unknown error occurred while executing the tool.",
        }
    )
    found = item_causes(resp, item, timeline.events)
    assert keys(found)[0] == ("mcp_server_error", "likely")
    assert "connector" in found[0].evidence[0]


def test_a_failure_nothing_explains_says_it_cannot_tell(failed_call) -> None:
    timeline, resp, item = failed_call({"type": "something_new", "message": "it broke"})
    found = item_causes(resp, item, timeline.events)
    assert keys(found) == [("undetermined", "possible")]
    assert found[0].cause.title == "Cannot tell from this recording"


def test_a_404_on_mcptuis_own_attach_is_not_the_users_invalid_request() -> None:
    body = {
        "error": {
            "message": "Response with id 'resp_nope' not found.",
            "type": "invalid_request_error",
            "param": "stream",
            "code": None,
        }
    }
    timeline = Timeline(
        [
            note(
                "http_error",
                "GET /responses/resp_nope?stream=true: HTTP 404: "
                "Response with id 'resp_nope' not found.",
                0.1,
                level="error",
                status=404,
                body=body,
            )
        ]
    )
    timeline.seek_end()
    [resp] = timeline.state.responses
    found = response_causes(resp, timeline.events)
    assert keys(found)[0] == ("stored_response_missing", "confirmed")
    assert "invalid_request" not in [k for k, _ in keys(found)]
    assert "not at fault" in found[0].cause.why


def test_a_listing_still_in_progress_proves_no_reachability(failed_call) -> None:
    timeline, resp, item = failed_call(HTTP_ERROR_424)
    for other in resp.items:
        if other.type == "mcp_list_tools":
            other.status = "in_progress"
    found = item_causes(resp, item, timeline.events, tool_seconds=0.4)
    assert not any("was reachable" in e for c in found for e in c.evidence)


@pytest.mark.parametrize(
    ("code", "cause"), [(-32020, "header_mismatch"), (-32022, "protocol_version_mismatch")]
)
def test_the_2026_revisions_errors_name_their_cause(failed_call, code, cause) -> None:
    timeline, resp, item = failed_call(
        {"type": "mcp_protocol_error", "code": code, "message": "Mcp-Method header does not match"}
    )
    assert keys(item_causes(resp, item, timeline.events))[0] == (cause, "confirmed")


def test_an_api_that_cannot_be_reached_is_not_told_to_tap_the_mcp_server() -> None:
    """A response-level failure says what it is itself: "cannot tell" and its advice (record
    the MCP side) are for a failed MCP item only."""
    timeline = Timeline(
        [
            note(
                "connection_error",
                "POST /responses: could not reach http://127.0.0.1:9/v1/: APIConnectionError",
                0.2,
                level="error",
            )
        ]
    )
    timeline.seek_end()
    [resp] = timeline.state.responses
    assert response_causes(resp, timeline.events) == []
