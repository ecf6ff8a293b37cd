"""The shipped recordings exported to a running Arize Phoenix (`phoenix serve` on loopback, its
OTLP/HTTP endpoint), read back through Phoenix's own REST API: the spans arrived with the names,
parents, statuses and cause attribute that README's OpenTelemetry section documents.

What each trace must hold is read from `mcptui inspect --json` of the same recording (its
responses, items and likely causes): Phoenix must show what mcptui says, span for span. The 424
recording's cause is also named outright, so a diagnosis that went blank would not pass here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from _ports import free_port

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SHIPPED = sorted((ROOT / "recordings").glob("*.jsonl"))
BROKEN = ROOT / "recordings" / "mcp-424-broken-schema.jsonl"
START_WAIT = 120.0
"""Phoenix's first start imports a great deal (about 17 s on an idle 2-core machine)."""


@dataclass
class Phoenix:
    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def spans(self) -> list[dict[str, Any]]:
        """Every span of the default project, through the REST API's pages."""
        found: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            params: dict[str, Any] = {"limit": 1000}
            if cursor:
                params["cursor"] = cursor
            answer = httpx.get(f"{self.url}/v1/projects/default/spans", params=params, timeout=10)
            answer.raise_for_status()
            page = answer.json()
            found += page["data"]
            cursor = page.get("next_cursor")
            if not cursor:
                return found


def wait_for(condition: Callable[[], bool], what: str, timeout: float, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
            raise AssertionError(f"waited {timeout:g} s for {what}; Phoenix said:\n{tail}")
        time.sleep(0.1)


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Phoenix]:
    work = tmp_path_factory.mktemp("phoenix")
    port, grpc_port = free_port(), free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(work),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc_port),
        "PHOENIX_TELEMETRY_ENABLED": "false",  # nothing leaves loopback
        "PHOENIX_DISABLE_AGENT_ASSISTANT": "true",
        "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
    }
    log = work / "phoenix.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(BIN / "phoenix"), "serve"], env=env, stdout=out, stderr=subprocess.STDOUT
        )
    server = Phoenix(f"http://127.0.0.1:{port}", process, log)

    def healthy() -> bool:
        assert process.poll() is None, f"phoenix serve exited: {log.read_text()[-3000:]}"
        try:
            return httpx.get(f"{server.url}/healthz", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    try:
        wait_for(healthy, "phoenix serve to answer /healthz", START_WAIT, log)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def inspected(path: Path) -> dict[str, Any]:
    done = subprocess.run(
        [str(BIN / "mcptui"), "inspect", "--json", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return json.loads(done.stdout)


def request_model(path: Path) -> str:
    header = json.loads(path.read_text().splitlines()[0])
    return str(header["request"]["model"])


def span_name(item: dict[str, Any]) -> str:
    """README's names: `execute_tool {tool}` for an mcp_call, `tools/list` for a listing, the
    item's type for the rest."""
    if item["type"] == "mcp_call":
        return f"execute_tool {item['name']}"
    if item["type"] == "mcp_list_tools":
        return "tools/list"
    return str(item["type"])


def test_shipped_recordings_arrive_in_phoenix_as_documented(phoenix: Phoenix) -> None:
    assert len(SHIPPED) >= 4, "the shipped recordings are missing"
    sent = subprocess.run(
        [str(BIN / "mcptui"), "export", *map(str, SHIPPED), "--otlp", phoenix.url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert sent.returncode == 0, sent.stderr
    views = {path: inspected(path) for path in SHIPPED}
    expected = sum(len(r["items"]) + 1 for view in views.values() for r in view["responses"])
    assert f"sent {expected} spans" in sent.stderr

    wait_for(
        lambda: len(phoenix.spans()) >= expected,
        f"{expected} spans in Phoenix",
        60,
        phoenix.log,
    )
    spans = phoenix.spans()
    assert len(spans) == expected
    roots = [span for span in spans if span["parent_id"] is None]
    by_source = {root["attributes"]["mcptui.source"]: root for root in roots}
    assert sorted(by_source) == sorted(map(str, SHIPPED)), "one trace per response"

    for path, view in views.items():
        (response,) = view["responses"]
        root = by_source[str(path)]
        trace = root["context"]["trace_id"]
        assert root["name"] == f"chat {request_model(path)}"
        assert root["attributes"]["gen_ai.response.id"] == response["id"]
        assert root["status_code"] == ("ERROR" if response["status"] == "failed" else "UNSET")
        children = sorted(
            (s for s in spans if s["parent_id"] == root["context"]["span_id"]),
            key=lambda s: s["attributes"]["mcptui.item.output_index"],
        )
        assert all(s["context"]["trace_id"] == trace for s in children)
        assert [s["name"] for s in children] == [span_name(i) for i in response["items"]]
        assert [s["status_code"] for s in children] == [
            "ERROR" if i["status"] == "failed" else "UNSET" for i in response["items"]
        ]
        for failure in view["failures"]:
            at = root
            if failure["item_id"] is not None:
                (at,) = [
                    s
                    for s in children
                    if s["attributes"].get("gen_ai.tool.call.id") == failure["item_id"]
                ]
            top = failure["likely_causes"][0]
            assert at["attributes"]["mcptui.cause"] == top["cause"], path.name
            assert at["attributes"]["mcptui.cause.confidence"] == top["confidence"]
            assert at["status_code"] == "ERROR"

    broken = by_source[str(BROKEN)]
    (call,) = [s for s in spans if s["name"] == "execute_tool search_files"]
    assert call["parent_id"] == broken["context"]["span_id"]
    assert call["attributes"]["mcptui.cause"] == "output_schema_without_structured_content"
    assert "424" in call["status_message"]
    assert call["attributes"]["gen_ai.tool.name"] == "search_files"
    assert call["attributes"]["mcptui.mcp.server_label"] == "files"
