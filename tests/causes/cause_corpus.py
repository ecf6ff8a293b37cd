"""The labelled corpus of MCP failures, and how the likely-cause engine is scored on it.

Each case is one way a Responses API call with a remote MCP tool fails, reproduced with the
emulator and the demo MCP server (make_corpus.py writes it), labelled with its true cause. Each
case is kept in three forms, as users bring them:

- `recording.jsonl`: the live recording `mcptui run` wrote, with arrival times;
- `pasted.json`: the same events as a JSON array without timing (what forum posts hold); for
  a request the API refused outright, the error body it answered with;
- `response.json`: the final Response object (GET /v1/responses/{id}); none when the API
  refused the request (there is no response).

Scoring (`score_form`): the true cause must be listed; no cause outside the label may be
`likely` or `confirmed`; and where a probe can see the cause, after probing a demo server in
the case's mode the true cause must be `confirmed`.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _ports import free_port
from mcptui.emulator.demo_server import DemoModes, build_app
from mcptui.io.formats import load_path
from mcptui.model.causes import LikelyCause, ProbeEvidence
from mcptui.model.diagnosis import ItemKey
from mcptui.net.serve import ServerThread
from mcptui.probe.probing import evidence_of, probe, probe_call
from mcptui.probe.targets import file_servers
from mcptui.share.inspect_output import Inspection

HERE = Path(__file__).resolve().parent
FORMS = ("recording", "pasted", "response")
FILES = {"recording": "recording.jsonl", "pasted": "pasted.json", "response": "response.json"}
TOOL_TIMEOUT = 1.0
"""The emulator's --tool-timeout while the corpus is made (slow_search waits longer)."""
WRONG_TOKEN = "wrong-token-for-the-corpus"
"""What the auth cases' requests send; the demo server wants another (the probe sends this
one again, as `mcptui probe --header` would)."""
RIGHT_TOKEN = "right-token-the-server-wants"


@dataclass(frozen=True)
class Case:
    name: str
    cause: str
    """The true cause (a key of mcptui.model.causes.CAUSES)."""
    how: str
    """What was done to reproduce it, for the score table."""
    tool: str | None = None
    """The demo tool the request calls (None: no call is made)."""
    arguments: dict[str, Any] = field(default_factory=dict)
    modes: DemoModes | None = None
    """The demo server's mode; None for a closed port (nothing listens)."""
    fault: str | None = None
    """The emulator fault (metadata.mcptui_fault)."""
    also: tuple[str, ...] = ()
    """Causes that are true too and may be likely or confirmed (a failed listing is one)."""
    background: bool = False
    authorization: str | None = None
    request_fields: dict[str, Any] = field(default_factory=dict)
    tool_fields: dict[str, Any] = field(default_factory=dict)
    probe: bool = True
    """Whether a probe of the MCP server can see this cause (not for the API's own errors)."""


LISTING = ("tool_list_failure",)
OPEN = DemoModes()

CASES: tuple[Case, ...] = (
    Case(
        "broken_schema",
        "output_schema_without_structured_content",
        "demo tool broken_schema",
        "broken_schema",
        {"query": "q"},
        OPEN,
    ),
    Case(
        "mismatched_schema",
        "invalid_structured_content",
        "demo tool mismatched_schema",
        "mismatched_schema",
        {"query": "q"},
        OPEN,
    ),
    Case(
        "bad_content",
        "invalid_content",
        "demo tool bad_content",
        "bad_content",
        {"query": "q"},
        OPEN,
    ),
    Case(
        "timeout",
        "timeout",
        f"slow_search 3 s, emulator --tool-timeout {TOOL_TIMEOUT:g}",
        "slow_search",
        {"query": "q", "delay_s": 3},
        OPEN,
    ),
    Case(
        "unreachable",
        "unreachable",
        "server_url on a closed port",
        "search",
        {"query": "q"},
        None,
        also=LISTING,
    ),
    Case(
        "host_header_421",
        "host_header_421",
        "demo-server --host-check, reached at 127.0.0.1",
        "search",
        {"query": "q"},
        DemoModes(host_check=True),
        also=LISTING,
    ),
    Case(
        "auth_listing",
        "auth",
        "demo-server --token, request sends another token",
        "search",
        {"query": "q"},
        DemoModes(token=RIGHT_TOKEN),
        also=LISTING,
        authorization=WRONG_TOKEN,
    ),
    Case(
        "auth_call",
        "auth",
        "demo-server --call-token, request sends another token",
        "search",
        {"query": "q"},
        DemoModes(call_token=RIGHT_TOKEN),
        authorization=WRONG_TOKEN,
    ),
    Case(
        "wrong_path",
        "tool_list_failure",
        "server_url path /nope (404)",
        "search",
        {"query": "q"},
        OPEN,
        tool_fields={"path": "/nope"},
    ),
    Case(
        "session_lost",
        "session_terminated",
        "demo-server --forget-sessions",
        "search",
        {"query": "q"},
        DemoModes(forget_sessions=True),
    ),
    Case(
        "protocol_error",
        "protocol_error",
        "demo tool protocol_error",
        "protocol_error",
        {"query": "q"},
        OPEN,
    ),
    # MCPServer answers the tool's RuntimeError with a bare "Error executing tool
    # failing_api", as it would its own output check: the stream says both, a probe tells.
    Case(
        "tool_error",
        "tool_error",
        "demo tool failing_api",
        "failing_api",
        {"query": "q"},
        OPEN,
        also=("hidden_exception",),
    ),
    Case(
        "background_bare",
        "background_bare_failure",
        "background: true + emulator fault background_fail",
        "search",
        {"query": "q"},
        OPEN,
        fault="background_fail",
        background=True,
        probe=False,
    ),
    Case(
        "insufficient_quota",
        "insufficient_quota",
        "emulator fault insufficient_quota",
        "search",
        {"query": "q"},
        OPEN,
        fault="insufficient_quota",
        probe=False,
    ),
    Case(
        "rate_limited",
        "rate_limited",
        "emulator fault http_429",
        "search",
        {"query": "q"},
        OPEN,
        fault="http_429",
        probe=False,
    ),
    Case(
        "server_error",
        "server_error",
        "emulator fault http_500",
        "search",
        {"query": "q"},
        OPEN,
        fault="http_500",
        probe=False,
    ),
    Case(
        "invalid_request",
        "invalid_request",
        "mcp tool without server_url (400)",
        "search",
        {"query": "q"},
        OPEN,
        tool_fields={"server_url": None},
        probe=False,
    ),
)


def case_dir(case: Case) -> Path:
    return HERE / case.name


def request_for(case: Case, mcp_origin: str) -> dict[str, Any]:
    """The request body that reproduces `case` against a demo server at `mcp_origin`."""
    tool: dict[str, Any] = {
        "type": "mcp",
        "server_label": "demo",
        "server_url": mcp_origin + case.tool_fields.get("path", "/mcp"),
        "require_approval": "never",
    }
    if case.authorization:
        tool["authorization"] = case.authorization
    if "server_url" in case.tool_fields and case.tool_fields["server_url"] is None:
        del tool["server_url"]
    calls = [f"call {case.tool} {json.dumps(case.arguments)}"] if case.tool else []
    body: dict[str, Any] = {
        "model": "gpt-5-mini",
        "input": "\n".join([f"Reproduce {case.name}.", *calls]),
        "tools": [tool],
        "stream": True,
    }
    if case.background:
        body["background"] = True
    if case.fault:
        body["metadata"] = {"mcptui_fault": case.fault}
    body.update(case.request_fields)
    return body


@contextmanager
def mcp_server(case: Case) -> Iterator[str]:
    """A demo server in the case's mode (its origin), or a closed port's origin."""
    with ExitStack() as stack:
        if case.modes is None:
            yield f"http://127.0.0.1:{free_port()}"
            return
        thread = stack.enter_context(ServerThread(build_app(modes=case.modes)))
        yield thread.url


# -- scoring -------------------------------------------------------------------------------


@dataclass
class FormScore:
    case: Case
    form: str
    present: bool
    listed: bool = False
    top: bool = False
    wrong: list[str] = field(default_factory=list)
    """Causes outside the label shown as likely or confirmed."""
    causes: list[LikelyCause] = field(default_factory=list)
    probed: bool | None = None
    """None: no probe applies (the cause is the API's own, or the form names no server)."""
    confirmed_after_probe: bool = False
    wrong_after_probe: list[str] = field(default_factory=list)


def all_causes(inspection: Inspection) -> list[LikelyCause]:
    """Every failure's causes in the file, in the order `inspect` shows them."""
    out: list[LikelyCause] = []
    for failure in inspection.failures:
        out.extend(inspection.causes_of(failure))
    return out


def wrong_causes(case: Case, causes: list[LikelyCause]) -> list[str]:
    allowed = {case.cause, *case.also}
    return sorted(
        {
            c.cause.key
            for c in causes
            if c.confidence in ("likely", "confirmed") and c.cause.key not in allowed
        }
    )


def score_form(case: Case, form: str, *, origin: str | None = None) -> FormScore:
    """Score one form of a case; with `origin` (a demo server in the case's mode, or a closed
    port), probe the server the file names, pointed there, and score again."""
    path = case_dir(case) / FILES[form]
    if not path.exists():
        return FormScore(case, form, present=False)
    loaded = load_path(str(path))
    inspection = Inspection.of(loaded)
    causes = all_causes(inspection)
    score = FormScore(
        case,
        form,
        present=True,
        causes=causes,
        listed=any(c.cause.key == case.cause for c in causes),
        top=bool(causes) and causes[0].cause.key == case.cause,
        wrong=wrong_causes(case, causes),
    )
    if origin is None or not case.probe:
        return score
    probes, response_probes = asyncio.run(probe_file(inspection, loaded, origin, case))
    if not probes and not response_probes:
        return score
    score.probed = True
    probed = Inspection.of(loaded, probes=probes, response_probes=response_probes)
    after = all_causes(probed)
    score.confirmed_after_probe = any(
        c.cause.key == case.cause and c.confidence == "confirmed" for c in after
    )
    score.wrong_after_probe = wrong_causes(case, after)
    return score


def _entry(loaded: Any, label: str | None, origin: str, case: Case) -> dict[str, Any] | None:
    """The file's mcp entry for `label` (as `mcptui probe FILE` finds it), pointed at
    `origin`, with the credential the request sent (the file keeps it redacted)."""
    for tool in file_servers(loaded)[0]:
        if tool.get("server_label") == label and tool.get("server_url"):
            entry = copy.deepcopy(tool)
            path = str(entry["server_url"]).split("/", 3)[3]
            entry["server_url"] = f"{origin}/{path}"
            if case.authorization:
                entry["authorization"] = case.authorization
            return entry
    return None


async def probe_file(
    inspection: Inspection, loaded: Any, origin: str, case: Case
) -> tuple[dict[ItemKey, ProbeEvidence], dict[int, ProbeEvidence]]:
    """Probe what failed in the file, as `p` / `mcptui probe` would: each failed mcp_call
    (with its arguments, under the limit that applied), and the server of a failed listing."""
    probes: dict[ItemKey, ProbeEvidence] = {}
    response_probes: dict[int, ProbeEvidence] = {}
    for resp in inspection.timeline.state.responses:
        for item in resp.items:
            if item.type != "mcp_call" or not item.failed:
                continue
            entry = _entry(loaded, item.server_label, origin, case)
            if entry is None:
                continue
            report = await probe_call(
                entry, item.name or "", item.arguments or "{}", timeout=resp.tool_limit
            )
            if (evidence := evidence_of(report)) is not None:
                probes[(resp.key, item.key)] = evidence
        if resp.failed and not any(i.failed for i in resp.items):
            entry = _entry(loaded, "demo", origin, case)
            if entry is None:
                continue
            report = await probe({"tools": [entry]}, timeout=5.0)
            if report.servers and (evidence := evidence_of(report.servers[0])) is not None:
                response_probes[resp.key] = evidence
    return probes, response_probes
