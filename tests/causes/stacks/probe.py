"""Call every contract tool on every stack; record what comes back on the wire and in the client.

    .venv/bin/python tests/causes/stacks/probe.py [STACK ...] [--out FILE]

For each stack (all available ones by default) it records, as JSON (default
tests/causes/stacks/wire.json):

- `legacy_raw`: hand-made POSTs of the 2025-11-25 era (initialize, notifications/initialized,
  tools/list, tools/call of each tool, carrying Mcp-Session-Id), each with its HTTP status,
  its Mcp-Session-Id and content type, and the JSON-RPC messages of its body (JSON or SSE);
- `modern_wire`: what the real `mcp` client (mode="auto") sent and got on the wire, one entry a
  POST (discover, tools/list, tools/call ...), when the stack serves the 2026-07-28 revision;
- `client`: what `mcp.Client` made of it in mode "legacy" and "auto": the negotiated version,
  serverInfo, the tools listed (and whether each declares an outputSchema), and each call's
  result or the exception it raised;
- `kill_restart`: the server is SIGKILLed and started again on the same port between tools/list
  and tools/call: the raw answer to the next POST with the old Mcp-Session-Id, and what
  `mcp.Client` raised (legacy, auto) for the call after the restart; and (`*_dead`) what the
  client does when the server is killed and not restarted.

tests/causes/stacks/README.md is written from this output.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from real_stacks import LEGACY, STACKS, Running, Stack, available, start

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
VALUES: dict[str, Any] = {
    "echo": "hello",
    "broken_schema": "q",
    "wrong_type": "q",
    "crash": "q",
    "bad_content": "q",
    "slow": 0.2,
    "fails": "the tool failed on purpose",
}
CLIENT_INFO = {"name": "mcptui-stacks-probe", "version": "0"}


def messages(response: httpx2.Response) -> list[Any]:
    """The JSON-RPC messages of a body: one JSON document, or the data of each SSE event."""
    text = response.text
    if not text.strip():
        return []
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        out: list[Any] = []
        for event in text.replace("\r\n", "\n").split("\n\n"):
            data = "\n".join(
                line[5:].lstrip() for line in event.split("\n") if line.startswith("data:")
            )
            if data:
                try:
                    out.append(json.loads(data))
                except ValueError:
                    out.append(data)
        return out
    try:
        return [response.json()]
    except ValueError:
        return [text]


def exchange(response: httpx2.Response) -> dict[str, Any]:
    return {
        "status": response.status_code,
        "content_type": response.headers.get("content-type"),
        "session_id": response.headers.get("mcp-session-id"),
        "body": messages(response) if response.status_code != 202 else response.text,
    }


class Legacy:
    """A hand-driven 2025-11-25 session over raw POSTs."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = httpx2.Client(timeout=30)
        self.session_id: str | None = None
        self.next_id = 1

    def post(
        self, method: str, params: dict[str, Any] | None = None, *, notification: bool = False
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            body["params"] = params
        if not notification:
            body["id"] = self.next_id
            self.next_id += 1
        headers = dict(HEADERS)
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        if method != "initialize":
            headers["MCP-Protocol-Version"] = LEGACY
        response = self.http.post(self.url, json=body, headers=headers)
        return exchange(response)

    def open(self) -> dict[str, Any]:
        init = self.post(
            "initialize", {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT_INFO}
        )
        self.session_id = init["session_id"]
        initialized = self.post("notifications/initialized", notification=True)
        return {"initialize": init, "initialized": initialized}

    def close(self) -> None:
        self.http.close()


def legacy_raw(stack: Stack, url: str) -> dict[str, Any]:
    legacy = Legacy(url)
    try:
        out = legacy.open()
        out["tools/list"] = legacy.post("tools/list", {})
        calls = {}
        for tool in stack.tools:
            name, arguments = stack.call(tool, VALUES[tool])
            calls[tool] = legacy.post("tools/call", {"name": name, "arguments": arguments})
        out["tools/call"] = calls
        return out
    finally:
        legacy.close()


class Recorder(httpx2.AsyncBaseTransport):
    """Records each POST's request and (buffered) response; GETs stream through untouched."""

    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.log: list[dict[str, Any]] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)
        if request.method != "POST":
            self.log.append({"method": request.method, "status": response.status_code})
            return response
        content = await response.aread()
        await response.aclose()
        recorded = httpx2.Response(
            response.status_code, headers=response.headers, content=content, request=request
        )
        sent = {
            k: v
            for k, v in request.headers.items()
            if k.lower().startswith("mcp") or k.lower() == "accept"
        }
        self.log.append(
            {
                "request": json.loads(request.content or b"null"),
                "request_headers": sent,
                **exchange(recorded),
            }
        )
        return recorded

    async def aclose(self) -> None:
        await self.inner.aclose()


def summary(result: Any) -> dict[str, Any]:
    dumped = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    dumped.pop("_meta", None)
    return dumped


def failure(exc: BaseException) -> dict[str, Any]:
    groups = ""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        groups += f"{type(exc).__qualname__} of "
        exc = exc.exceptions[0]
    out: dict[str, Any] = {
        "raised": f"{groups}{type(exc).__module__}.{type(exc).__qualname__}",
        "message": str(exc),
    }
    error = getattr(exc, "error", None)
    if error is not None and hasattr(error, "code"):
        out["code"] = error.code
    return out


def client_for(url: str, mode: str, recorder: Recorder | None = None) -> Client:
    if recorder is None:
        return Client(url, mode=mode, read_timeout_seconds=20)
    http = httpx2.AsyncClient(transport=recorder, timeout=httpx2.Timeout(30, read=300))
    return Client(streamable_http_client(url, http_client=http), mode=mode, read_timeout_seconds=20)


async def client_run(
    stack: Stack, url: str, mode: str, recorder: Recorder | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    try:
        async with client_for(url, mode, recorder) as client:
            info = client.server_info
            out["protocol_version"] = client.protocol_version
            out["server_info"] = None if info is None else info.model_dump(exclude_none=True)
            listed = await client.list_tools()
            out["tools"] = {
                t.name: {"outputSchema": t.output_schema}
                for t in listed.tools
                if t.name in stack.tools.values()
            }
            calls = {}
            for tool in stack.tools:
                name, arguments = stack.call(tool, VALUES[tool])
                try:
                    calls[tool] = summary(await client.call_tool(name, arguments))
                except Exception as exc:
                    calls[tool] = failure(exc)
            out["calls"] = calls
    except Exception as exc:
        out["connect"] = failure(exc)
    return out


async def client_across_restart(server: Running, mode: str) -> dict[str, Any]:
    """tools/list, SIGKILL + restart on the same port, then call echo in the same session."""
    out: dict[str, Any] = {}
    name, arguments = server.stack.call("echo", VALUES["echo"])
    try:
        async with Client(server.url, mode=mode, read_timeout_seconds=10) as client:
            out["protocol_version"] = client.protocol_version
            await client.list_tools()
            server.kill()
            await asyncio.to_thread(server.restart)
            try:
                out["call_after_restart"] = summary(await client.call_tool(name, arguments))
            except Exception as exc:
                out["call_after_restart"] = failure(exc)
            try:
                out["second_call"] = summary(await client.call_tool(name, arguments))
            except Exception as exc:
                out["second_call"] = failure(exc)
    except Exception as exc:
        out["exit"] = failure(exc)
    return out


async def client_on_dead(server: Running, mode: str) -> dict[str, Any]:
    """tools/list, SIGKILL (no restart), then call echo in the same session."""
    out: dict[str, Any] = {}
    name, arguments = server.stack.call("echo", VALUES["echo"])
    try:
        async with Client(server.url, mode=mode, read_timeout_seconds=10) as client:
            await client.list_tools()
            server.kill()
            try:
                out["call_after_kill"] = summary(await client.call_tool(name, arguments))
            except Exception as exc:
                out["call_after_kill"] = failure(exc)
    except Exception as exc:
        out["exit"] = failure(exc)
    await asyncio.to_thread(server.restart)
    return out


def raw_across_restart(server: Running) -> dict[str, Any]:
    legacy = Legacy(server.url)
    try:
        legacy.open()
        legacy.post("tools/list", {})
        old = legacy.session_id
        server.kill()
        server.restart()
        name, arguments = server.stack.call("echo", VALUES["echo"])
        after = legacy.post("tools/call", {"name": name, "arguments": arguments})
        legacy.session_id = None
        no_session = legacy.post("tools/call", {"name": name, "arguments": arguments})
        return {
            "old_session_id": old,
            "restart_ready_seconds": round(server.ready_seconds, 2),
            "tools/call with the old Mcp-Session-Id": after,
            "tools/call with no Mcp-Session-Id": no_session,
        }
    finally:
        legacy.close()


def probe(name: str) -> dict[str, Any]:
    stack = STACKS[name]
    out: dict[str, Any] = {"label": stack.label}
    with start(name) as server:
        out["ready_seconds"] = round(server.ready_seconds, 2)
        out["legacy_raw"] = legacy_raw(stack, server.url)
        recorder = Recorder()
        out["client"] = {
            "legacy": asyncio.run(client_run(stack, server.url, "legacy")),
            "auto": asyncio.run(client_run(stack, server.url, "auto", recorder)),
        }
        if out["client"]["auto"].get("protocol_version") != LEGACY:
            out["modern_wire"] = recorder.log
        else:
            out["auto_fallback_wire"] = recorder.log[:2]
        out["kill_restart"] = {
            "raw_legacy": raw_across_restart(server),
            "client_legacy": asyncio.run(client_across_restart(server, "legacy")),
            "client_auto": asyncio.run(client_across_restart(server, "auto")),
            "client_legacy_dead": asyncio.run(client_on_dead(server, "legacy")),
            "client_auto_dead": asyncio.run(client_on_dead(server, "auto")),
        }
        started = time.monotonic()
        server.kill()
        out["kill_seconds"] = round(time.monotonic() - started, 3)
    return out


# ---- the matrix of stacks/README.md, from the JSON above -------------------------------------

START, END = "<!-- matrix:start -->", "<!-- matrix:end -->"


def _text(value: str, limit: int = 160) -> str:
    """One line of verbatim text for a table cell (multi-line texts: their first line)."""
    lines = value.split("\n")
    out = lines[0] if len(lines) == 1 else f"{lines[0]} …({len(lines)} lines)"
    if len(out) > limit:
        out = out[:limit] + " …"
    return out.replace("|", "\\|")


def _answer(message: Any) -> str:
    """A JSON-RPC answer in short form: the result's isError, text and structuredContent,
    or the error's code and message."""
    if not isinstance(message, dict):
        return f"`{_text(str(message))}`"
    if "error" in message:
        error = message["error"]
        return f"error {error.get('code')} `{_text(str(error.get('message')))}`"
    result = message.get("result", {})
    parts = []
    if "content" not in result:
        shown = {k: v for k, v in result.items() if k != "_meta"}
        parts.append(f"**no content**: result `{json.dumps(shown)}` (+ `_meta`)")
    if result.get("isError"):
        parts.append("isError")
    texts = [c.get("text", json.dumps(c)) for c in result.get("content", [])]
    parts.extend(f"`{_text(t)}`" for t in texts)
    if "structuredContent" in result:
        parts.append(f"sc `{json.dumps(result['structuredContent'])}`")
    elif "content" in result:
        parts.append("no sc")
    return " ".join(parts)


def _exchange(ex: dict[str, Any] | None) -> str:
    if ex is None:
        return "–"
    body = ex["body"]
    status = "" if ex["status"] == 200 else f"HTTP {ex['status']} "
    if isinstance(body, list) and body:
        return status + _answer(body[-1])
    return status + f"`{_text(str(body))}`"


def _client(value: dict[str, Any] | None) -> str:
    if value is None:
        return "–"
    if "raised" in value:
        groups, _, qualified = value["raised"].rpartition(" of ")
        name = (f"{groups} of " if groups else "") + qualified.rsplit(".", 1)[-1]
        code = f" {value['code']}" if "code" in value else ""
        return f"raises {name}{code} `{_text(value['message'], 120)}`"
    return _answer({"result": value})


def _modern_calls(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    calls: dict[str, dict[str, Any]] = {}
    for ex in report.get("modern_wire", []):
        request = ex.get("request")
        if isinstance(request, dict) and request.get("method") == "tools/call":
            calls[request["params"]["name"]] = ex
    return calls


def render(reports: dict[str, Any]) -> str:
    out = [START, ""]
    for name, report in reports.items():
        stack = STACKS[name]
        raw = report["legacy_raw"]
        init = raw["initialize"]["body"][-1]["result"]
        out.append(f"### {name}: {report['label']}")
        out.append("")
        out.append(
            f"- initialize: protocolVersion `{init['protocolVersion']}`, serverInfo "
            f"`{json.dumps(init['serverInfo'])}`, Mcp-Session-Id "
            f"{'issued' if raw['initialize']['session_id'] else '**none** (stateless)'}"
        )
        wire = report.get("modern_wire")
        if wire:
            discover = wire[0]["body"][-1]["result"]
            info = discover.get("_meta", {}).get("io.modelcontextprotocol/serverInfo")
            out.append(
                f"- server/discover: supportedVersions "
                f"`{json.dumps(discover.get('supportedVersions'))}`, serverInfo (`_meta`) "
                f"`{json.dumps(info)}`"
            )
        else:
            fallback = report.get("auto_fallback_wire") or [{}]
            out.append(
                f"- server/discover: not served: {_exchange(fallback[0])} (mode=auto "
                f"falls back to initialize)"
            )
        listed = {t["name"]: t for t in raw["tools/list"]["body"][-1]["result"]["tools"]}
        declared = ", ".join(
            f"{tool} {'yes' if 'outputSchema' in listed[real] else 'no'}"
            for tool, real in stack.tools.items()
        )
        out.append(f"- tools/list outputSchema: {declared}")
        out.append("")
        out.append(
            "| tool | raw tools/call, 2025-11-25 | raw tools/call, 2026-07-28 "
            "| mcp Client legacy | mcp Client auto |"
        )
        out.append("| --- | --- | --- | --- | --- |")
        modern = _modern_calls(report)
        clients = report["client"]
        for tool, real in stack.tools.items():
            cells = [
                tool if tool == real else f"{tool} (`{real}`)",
                _exchange(raw["tools/call"][tool]),
                _exchange(modern.get(real)) if wire else "–",
                _client(clients["legacy"].get("calls", {}).get(tool)),
                _client(clients["auto"].get("calls", {}).get(tool)),
            ]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    out.append("### Killed and restarted between tools/list and tools/call")
    out.append("")
    out.append(
        "| stack | next POST with the old Mcp-Session-Id | the same POST without one "
        "| mcp Client legacy | mcp Client auto |"
    )
    out.append("| --- | --- | --- | --- | --- |")
    for name, report in reports.items():
        kr = report["kill_restart"]
        raw = kr["raw_legacy"]
        legacy, auto = kr["client_legacy"], kr["client_auto"]
        cells = [
            name,
            _exchange(raw["tools/call with the old Mcp-Session-Id"]),
            _exchange(raw["tools/call with no Mcp-Session-Id"]),
            _client(legacy.get("call_after_restart", legacy.get("exit"))),
            _client(auto.get("call_after_restart", auto.get("exit"))),
        ]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    out.append("### Killed, not restarted, between tools/list and tools/call (mcp Client)")
    out.append("")
    out.append("| stack | legacy | auto |")
    out.append("| --- | --- | --- |")
    for name, report in reports.items():
        kr = report["kill_restart"]
        cells = [name]
        for mode in ("legacy", "auto"):
            dead = kr.get(f"client_{mode}_dead", {})
            if "call_after_kill" in dead:
                cells.append("call_tool " + _client(dead["call_after_kill"]))
            elif "exit" in dead:
                cells.append(
                    "call_tool is cancelled (CancelledError); leaving the Client "
                    + _client(dead["exit"])
                )
            else:
                cells.append("–")
        out.append("| " + " | ".join(cells) + " |")
    out.extend(["", END])
    return "\n".join(out)


def write_readme(reports: dict[str, Any], readme: Path) -> None:
    text = readme.read_text()
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    readme.write_text(head + render(reports) + tail)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stacks", nargs="*", help="default: every available stack")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("wire.json"))
    parser.add_argument(
        "--readme",
        type=Path,
        default=Path(__file__).with_name("README.md"),
        help="whose matrix section (between the matrix markers) is rewritten",
    )
    parser.add_argument(
        "--render",
        action="store_true",
        help="only rewrite the README's matrix from --out, probing nothing",
    )
    args = parser.parse_args()
    if args.render:
        report = json.loads(args.out.read_text())
    else:
        names = args.stacks or [n for n in STACKS if available(n) is None]
        report = {}
        for name in names:
            print(f"probing {name} ...", file=sys.stderr)
            report[name] = probe(name)
        args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {args.out}", file=sys.stderr)
    if args.readme.exists() and START in args.readme.read_text():
        write_readme(report, args.readme)
        print(f"rewrote the matrix of {args.readme}", file=sys.stderr)


if __name__ == "__main__":
    main()
