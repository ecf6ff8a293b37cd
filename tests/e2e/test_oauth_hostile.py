"""Hostile OAuth servers and browsers, over real loopback sockets: a 401 whose metadata is too
big, not JSON, missing or of the wrong shape, and junk sent to the loopback redirect listener.
Each is said in plain words; nothing raises, nothing hangs."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx2
import pytest
from _cli_fork import forked_cli
from mcptui.mcpclient.oauth import MAX_METADATA, LoopbackRedirect, OAuthFailed, discover
from mcptui.net.serve import ServerThread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route


async def refuse(request: Request) -> Response:
    case = request.path_params["case"]
    origin = f"{request.url.scheme}://{request.url.netloc}"
    return JSONResponse(
        {"error": "invalid_token"},
        status_code=401,
        headers={"WWW-Authenticate": f'Bearer resource_metadata="{origin}/meta/{case}"'},
    )


async def metadata(request: Request) -> Response:
    case = request.path_params["case"]
    if case == "huge":
        return Response(b"[" + b"0," * MAX_METADATA + b"0]", media_type="application/json")
    if case == "text":
        return Response("<html>hello</html>", media_type="text/html")
    if case == "shape":
        return JSONResponse({"authorization_servers": "https://as.example", "resource": 5})
    if case == "noas":  # points at an authorization server with no metadata anywhere
        origin = f"{request.url.scheme}://{request.url.netloc}"
        return JSONResponse({"authorization_servers": [f"{origin}/nowhere"]})
    if case == "drip":  # a byte at a time, never done: no read timeout ever fires
        return StreamingResponse(_drip(), media_type="application/json")
    return Response(status_code=404)


async def _drip() -> AsyncIterator[bytes]:
    yield b"["
    while True:
        await asyncio.sleep(0.2)
        yield b" "


@pytest.fixture(scope="module")
def hostile() -> Iterator[str]:
    app = Starlette(
        routes=[
            Route("/m/{case}/mcp", refuse, methods=["POST", "GET"]),
            Route("/meta/{case}", metadata),
        ]
    )
    with ServerThread(app) as served:
        yield served.url


def needs_of(origin: str, case: str):
    url = f"{origin}/m/{case}/mcp"
    header = f'Bearer resource_metadata="{origin}/meta/{case}"'
    return asyncio.run(discover(url, 401, header, timeout=10))


def test_metadata_too_big_is_not_read(hostile: str):
    needs = needs_of(hostile, "huge")
    assert not needs.oauth
    assert (
        f"the resource metadata the 401 points at: {hostile}/meta/huge sent more than 256 KiB: "
        "not read"
    ) in needs.problems


def test_metadata_that_is_not_json(hostile: str):
    needs = needs_of(hostile, "text")
    assert f"the resource metadata the 401 points at: {hostile}/meta/text did not send JSON" in (
        needs.problems
    )


def test_metadata_that_is_not_there(hostile: str):
    needs = needs_of(hostile, "gone")
    assert (
        f"the resource metadata the 401 points at: {hostile}/meta/gone answered HTTP 404"
    ) in needs.problems
    assert needs.summary() == "needs credentials: HTTP 401, and no OAuth metadata"


def test_metadata_of_the_wrong_shape(hostile: str):
    needs = needs_of(hostile, "shape")
    assert not needs.oauth
    assert (
        "the protected-resource metadata's authorization_servers is not a list (str)"
        in needs.problems
    )
    assert "the protected-resource metadata's resource is not a non-empty string (int)" in (
        needs.problems
    )


def test_an_authorization_server_without_metadata(hostile: str):
    needs = needs_of(hostile, "noas")
    assert needs.oauth  # the resource names one: the flow could still be tried
    assert needs.server is None
    (problem,) = needs.problems
    assert problem.startswith("the authorization server's metadata (RFC 8414) was not found: ")
    assert "answered HTTP 404" in problem


def test_the_probe_says_it_in_its_report(tmp_path: Path, hostile: str):
    done = forked_cli(["probe", f"{hostile}/m/shape/mcp", "--json"], tmp_path, timeout=60)
    assert "Traceback" not in done.stdout + done.stderr
    (server,) = json.loads(done.stdout)["servers"]
    assert server["oauth"]["oauth"] is False
    assert [c["code"] for c in server["checks"]] == ["needs_token"]
    assert server["checks"][0]["message"].startswith(
        "needs credentials: HTTP 401, and no OAuth metadata; "
    )


def test_metadata_that_never_ends_is_given_up_on(tmp_path: Path, hostile: str):
    """The probe's whole wait for metadata is bounded (three times its per-document wait,
    here --timeout 1), however slowly a server drips it."""
    done = forked_cli(
        ["probe", f"{hostile}/m/drip/mcp", "--json", "--timeout", "1"], tmp_path, timeout=60
    )
    (server,) = json.loads(done.stdout)["servers"]
    assert server["oauth"] is None
    (check,) = [c for c in server["checks"] if c["code"] == "oauth_slow"]
    assert check["message"] == (
        "the server answered HTTP 401, and its OAuth metadata did not arrive within 3 s"
    )
    done = forked_cli(
        ["probe", f"{hostile}/m/drip/mcp", "--oauth", "--timeout", "1"], tmp_path, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.endswith(
        "the server answered HTTP 401, and its OAuth metadata did not arrive within 3 s\n"
    )


# -- the loopback listener -----------------------------------------------------------------------


def raw(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_the_listener_ignores_junk_and_takes_the_real_redirect():
    async def scenario() -> tuple[list[bytes], object]:
        async with LoopbackRedirect() as listener:
            port = listener.port
            answers = [
                await asyncio.to_thread(raw, port, b"NOT HTTP AT ALL\r\n\r\n"),
                await asyncio.to_thread(raw, port, b"GET /favicon.ico HTTP/1.1\r\n\r\n"),
                await asyncio.to_thread(raw, port, b"GET /callback HTTP/1.1\r\n\r\n"),
                await asyncio.to_thread(
                    raw, port, b"GET /callback?x=" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n"
                ),
            ]
            async with httpx2.AsyncClient() as client:
                page = await client.get(f"{listener.redirect_uri}?code=abc&state=xyz")
            answers.append(page.text.encode())
            got = await listener.wait(5)
        return answers, got

    answers, got = asyncio.run(scenario())
    assert [a.split(b"\r\n", 1)[0] for a in answers[:3]] == [b"HTTP/1.1 404 Not Found"] * 3
    assert answers[3] == b"" or answers[3].startswith(b"HTTP/1.1 4")  # too big: dropped or 4xx
    assert b"authorization received" in answers[4]
    assert got.code == "abc" and got.state == "xyz"  # type: ignore[attr-defined]


def test_the_listener_gives_up_after_its_wait():
    async def scenario() -> str:
        async with LoopbackRedirect() as listener:
            try:
                await listener.wait(0.2)
            except OAuthFailed as exc:
                return str(exc)
        return "no failure"

    said = asyncio.run(scenario())
    assert said.startswith("no authorization arrived at http://127.0.0.1:")
    assert "/callback within 0.2 s" in said
