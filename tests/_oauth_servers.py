"""An OAuth-protected MCP server built with the `mcp` SDK's own auth support, and the
authorization server that issues its tokens, both on loopback.

The resource server is an `MCPServer` with `AuthSettings` and a token verifier: the SDK answers
an unauthenticated request with 401 and a `WWW-Authenticate: Bearer …, resource_metadata="…"`,
and serves the RFC 9728 protected-resource metadata. The authorization server is the SDK's
`create_auth_routes` (RFC 8414 metadata, RFC 7591 registration, /authorize, /token) over an
in-memory provider that approves every request at once (or refuses each one with
`access_denied`), so a test plays the browser by fetching the authorization URL and following
the redirect to the client's loopback listener.

Run it by hand (`.venv/bin/python tests/_oauth_servers.py`) to try `mcptui probe URL --oauth`.
"""

from __future__ import annotations

import asyncio
import secrets
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from mcptui.mcpclient.oauth import Authorized, authorize
from mcptui.net.serve import ServerThread
from pydantic import AnyHttpUrl
from starlette.applications import Starlette

SCOPE = "tools:read"


@dataclass
class Issuer:
    """The authorization server's state: clients, codes and tokens, in memory."""

    deny: bool = False
    """Refuse every authorization (the person pressed "Deny")."""
    clients: dict[str, OAuthClientInformationFull] = field(default_factory=dict)
    codes: dict[str, AuthorizationCode] = field(default_factory=dict)
    tokens: dict[str, AccessToken] = field(default_factory=dict)
    issued: list[str] = field(default_factory=list)
    """Every access token and authorization code issued, so a test can look for them where
    they must not be (with `secrets`)."""

    def secrets(self) -> list[str]:
        """What must never reach a screen or a file: tokens, codes, client secrets."""
        minted = [c.client_secret for c in self.clients.values() if c.client_secret]
        return [*self.issued, *minted]

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id] = client_info

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        if self.deny:
            return construct_redirect_uri(
                str(params.redirect_uri),
                error="access_denied",
                error_description="the user said no",
                state=params.state,
            )
        code = secrets.token_urlsafe(24)
        self.issued.append(code)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        token = "at-" + secrets.token_urlsafe(24)
        self.issued.append(token)
        self.tokens[token] = AccessToken(
            token=token,
            client_id=client.client_id,
            scopes=authorization_code.scopes,
            expires_at=int(time.time()) + 3600,
            resource=authorization_code.resource,
        )
        return OAuthToken(
            access_token=token, expires_in=3600, scope=" ".join(authorization_code.scopes)
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return None

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        raise NotImplementedError

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.tokens.get(token)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.tokens.pop(token.token, None)


class Verifier:
    """The resource server's token check: asks the issuer (an introspection in real life)."""

    def __init__(self, issuer: Issuer) -> None:
        self.issuer = issuer

    async def verify_token(self, token: str) -> AccessToken | None:
        return await self.issuer.load_access_token(token)


class _Late:
    """An ASGI app filled in once both ports are known (each server names the other)."""

    app: Any = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)


@dataclass
class Protected:
    mcp: str
    """The MCP server's endpoint (…/mcp)."""
    issuer_url: str
    issuer: Issuer


def resource_server(issuer: Issuer, issuer_url: str, mcp_url: str) -> Starlette:
    server = MCPServer(
        "guarded",
        token_verifier=Verifier(issuer),
        auth=AuthSettings(
            issuer_url=AnyHttpUrl(issuer_url),
            resource_server_url=AnyHttpUrl(mcp_url),
            required_scopes=[SCOPE],
            validate_token_resource=False,
        ),
    )

    @server.tool()
    def echo(text: str) -> str:
        """Say it back."""
        return text

    @server.tool()
    def whoami() -> str:
        """Who the token says you are."""
        return "a client with a token"

    return server.streamable_http_app()


def authorization_server(issuer: Issuer, issuer_url: str) -> Starlette:
    return Starlette(
        routes=create_auth_routes(
            issuer,
            AnyHttpUrl(issuer_url),
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]
            ),
        )
    )


@contextmanager
def protected_server(*, deny: bool = False) -> Iterator[Protected]:
    """The MCP server and its authorization server, each on a loopback port of its own."""
    issuer = Issuer(deny=deny)
    rs_app, as_app = _Late(), _Late()
    rs, auth = ServerThread(rs_app), ServerThread(as_app)
    mcp_url = f"{rs.url}/mcp"
    rs_app.app = resource_server(issuer, auth.url, mcp_url)
    as_app.app = authorization_server(issuer, auth.url)
    with auth, rs:
        yield Protected(mcp_url, auth.url, issuer)


async def authorized(mcp_url: str) -> Authorized:
    """The flow `--oauth` runs, with the test as the browser: it opens the authorization URL
    and follows the redirects to the flow's loopback listener."""
    import httpx2

    async def browser(url: str) -> None:
        async with httpx2.AsyncClient(follow_redirects=True) as client:
            await client.get(url)

    pending: list[asyncio.Task[None]] = []
    got = await authorize(
        mcp_url, show_url=lambda url: pending.append(asyncio.create_task(browser(url))), wait=30
    )
    await asyncio.gather(*pending)
    assert got is not None, f"{mcp_url} asked for no token"
    return got


if __name__ == "__main__":
    with protected_server(deny="--deny" in sys.argv) as served:
        print(f"MCP server (OAuth): {served.mcp}\nauthorization server: {served.issuer_url}")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
