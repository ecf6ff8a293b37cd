"""The relay is no browser: a cookie the upstream sets for one app's request is passed back to
that app, never kept and sent with the requests of another (every app through the proxy shares
its one upstream client)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
from mcptui.capture.captures import CaptureHub
from mcptui.capture.proxy_run import SERVER_OPTIONS
from mcptui.capture.relay import RecordingProxy
from mcptui.net.serve import ServerThread


async def upstream(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Sets a cookie; answers with the Cookie header it was sent."""
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    cookie = dict(scope["headers"]).get(b"cookie", b"").decode()
    body = json.dumps({"cookie": cookie}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"application/json"),
                (b"set-cookie", b"session=app-one-secret; Path=/"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def test_a_cookie_set_for_one_app_is_not_sent_with_anothers_requests(tmp_path: Path):
    with (
        ServerThread(upstream) as api,
        ServerThread(
            RecordingProxy(CaptureHub(f"{api.url}/v1", tmp_path)), **SERVER_OPTIONS
        ) as proxy,
    ):
        with httpx2.Client() as one:
            first = one.get(f"{proxy.url}/v1/models")
        assert first.headers["set-cookie"].startswith("session=app-one-secret")
        with httpx2.Client() as another:
            second = another.get(f"{proxy.url}/v1/models")
        assert second.json() == {"cookie": ""}
