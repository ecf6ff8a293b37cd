"""How the demo MCP server can misbehave at the HTTP layer: the failures that are not a tool's.

Each is an ASGI middleware around the MCP app, reproducing what users meet in the wild:

- `BearerAuth`: every request needs the token (a listing without it fails with 401).
- `CallToken`: only `tools/call` needs the token, so the listing works and the call gets 401
  (servers that check scopes per tool, or tokens that expire between listing and calling).
- `ForgetSessions`: a session is forgotten once it has listed tools, so the call that follows
  gets 404 for its stale session id, as from a restarted server or another instance behind a
  load balancer. Legacy era only: a 2026-07-28 client has no session, so it is unaffected.
- `PathToken`: the server lives under a secret path (a secret in the URL).

DNS-rebinding protection (421 to an unexpected Host header) is the mcp package's own, switched
on by `host_check_security`.

The server speaks both MCP eras on one endpoint: the 2025-11-25 `initialize` handshake with its
Mcp-Session-Id, and the stateless 2026-07-28 revision (`server/discover`, `_meta` and routing
headers on every request). Every mode but ForgetSessions works the same in both: they look at
the HTTP request (Authorization, the path, the JSON-RPC method of the body), which both eras
send alike. `LegacyOnly` (the `legacy_only` mode) makes the server a 2025-era one, which
does not know `server/discover`; `refuse_legacy` (`modern_only`) one that has dropped the
handshake and answers `initialize` with -32022.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp.types import UNSUPPORTED_PROTOCOL_VERSION
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcptui.model.jsonsafe import loads

ALLOWED_HOSTS = ["localhost", "localhost:*"]
"""With --host-check, the only Host headers accepted: reach the server at 127.0.0.1 (a name
it does not expect, like a tunnel's public host name) and it answers 421."""
SESSION_HEADER = b"mcp-session-id"
VERSION_HEADER = b"mcp-protocol-version"
ROUTING_HEADERS = (VERSION_HEADER, b"mcp-method", b"mcp-name", b"content-length")


def host_check_security(enabled: bool) -> TransportSecuritySettings:
    """The mcp package's transport security: off by default (the demo server is meant to be
    reached through tunnels and random ports), on for --host-check."""
    if not enabled:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=ALLOWED_HOSTS,
        allowed_origins=["http://localhost:*"],
    )


async def answer(
    send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def unauthorized(send: Send) -> None:
    body = json.dumps(
        {"error": "unauthorized", "error_description": "missing or wrong bearer token"}
    ).encode()
    await answer(send, 401, body, [(b"www-authenticate", b'Bearer realm="mcptui-demo"')])


def bearer_matches(scope: Scope, expected: bytes) -> bool:
    given = dict(scope.get("headers") or []).get(b"authorization", b"")
    return hmac.compare_digest(given, expected)


async def read_body(receive: Receive) -> tuple[bytes, Receive]:
    """The whole request body, and a `receive` that hands it to the app again."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    body = b"".join(chunks)
    return body, replaying(body, receive)


def replaying(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands `body` to the app as the whole request, then listens on."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def rpc_methods(body: bytes) -> set[str]:
    """The JSON-RPC methods a POST body carries (one message or a batch)."""
    try:
        parsed = loads(body or b"null")
    except ValueError:
        return set()
    messages = parsed if isinstance(parsed, list) else [parsed]
    return {str(m.get("method")) for m in messages if isinstance(m, dict) and "method" in m}


class BearerAuth:
    """HTTP requests without `Authorization: Bearer <token>` get 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or bearer_matches(scope, self.expected):
            await self.app(scope, receive, send)
            return
        await unauthorized(send)


class _BodyInspector:
    """Base for middlewares that look at a POST's JSON-RPC methods before the app does."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.handle(scope, receive, send, set())
            return
        body, replay = await read_body(receive)
        await self.handle(scope, replay, send, rpc_methods(body))

    async def handle(self, scope: Scope, receive: Receive, send: Send, methods: set[str]) -> None:
        raise NotImplementedError


class CallToken(_BodyInspector):
    """Only `tools/call` needs `Authorization: Bearer <token>`: listing works, calling 401s."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        super().__init__(app)
        self.expected = f"Bearer {token}".encode()

    async def handle(self, scope: Scope, receive: Receive, send: Send, methods: set[str]) -> None:
        if "tools/call" in methods and not bearer_matches(scope, self.expected):
            await unauthorized(send)
            return
        await self.app(scope, receive, send)


class ForgetSessions(_BodyInspector):
    """A session is forgotten once it has listed tools: its next request gets 404 with the
    JSON-RPC error the mcp package sends for an unknown session id."""

    def __init__(self, app: ASGIApp) -> None:
        super().__init__(app)
        self.forgotten: set[bytes] = set()

    async def handle(self, scope: Scope, receive: Receive, send: Send, methods: set[str]) -> None:
        session = dict(scope.get("headers") or []).get(SESSION_HEADER)
        if session is not None and session in self.forgotten:
            body = json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": "server-error",
                    "error": {"code": -32600, "message": "Session not found"},
                }
            ).encode()
            await answer(send, 404, body)
            return
        if session is not None and "tools/list" in methods:
            # Before the listing is answered, not after: the client sends its call as soon as
            # it has the answer, which could reach this server before this coroutine resumed
            # from sending it (the call then went through: a test failed 1 run in 8).
            self.forgotten.add(session)
        await self.app(scope, receive, send)


class LegacyOnly:
    """The server as a 2025-era one sees a 2026-07-28 client, as most servers in the wild still
    are: a `server/discover` request, or any request whose MCP-Protocol-Version names a
    2026 revision, reaches it without the routing headers and the `_meta` envelope it does not
    know. So streamable HTTP answers as mcp 1.x does (HTTP 400, -32600 "Bad Request: Missing
    session ID"), SSE with -32601 Method not found; the initialize handshake works as before.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        body, replay = await read_body(receive)
        version = dict(scope.get("headers") or []).get(VERSION_HEADER, b"").decode("latin-1")
        try:
            message = loads(body or b"null")
        except ValueError:
            message = None
        if not isinstance(message, dict) or (
            message.get("method") != "server/discover" and version not in MODERN_PROTOCOL_VERSIONS
        ):
            await self.app(scope, replay, send)
            return
        params = message.get("params")
        if isinstance(params, dict):
            params.pop("_meta", None)
        stripped = json.dumps(message).encode()
        headers = [(k, v) for k, v in scope.get("headers") or [] if k not in ROUTING_HEADERS]
        headers.append((b"content-length", str(len(stripped)).encode()))
        await self.app({**scope, "headers": headers}, replaying(stripped, receive), send)


async def refuse_legacy(ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
    """A server middleware that makes the server a 2026-07-28-only one: `initialize` gets
    -32022 Unsupported protocol version naming the revisions it does speak, so a legacy client
    (OpenAI's, as far as anyone knows) cannot connect while `server/discover` works."""
    if ctx.method == "initialize":
        requested = (ctx.params or {}).get("protocolVersion")
        raise MCPError(
            code=UNSUPPORTED_PROTOCOL_VERSION,
            message="Unsupported protocol version",
            data={"supported": list(MODERN_PROTOCOL_VERSIONS), "requested": requested},
        )
    return await call_next(ctx)


class PathToken:
    """The server lives under `/s/<token>/` (a secret in the URL's path, as some hosted MCP
    servers hand out); any other path gets 404."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.prefix = f"/s/{token}"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if not path.startswith(self.prefix + "/"):
            await answer(send, 404, b"")
            return
        inner = path[len(self.prefix) :]
        await self.app({**scope, "path": inner, "raw_path": inner.encode()}, receive, send)
