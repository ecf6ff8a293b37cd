"""OAuth for MCP servers that want a token: find out what they need, and get a token.

`discover` follows a 401's `WWW-Authenticate` to the protected-resource metadata (RFC 9728,
the `resource_metadata` URL, else the well-known places) and on to the authorization server's
metadata (RFC 8414), with the `mcp` SDK's own lists of where to look; what they hold is read by
`mcptui.model.oauth`, which never raises on what a server sends. Metadata is public: nothing of
the request's credentials is sent to fetch it.

`authorize` runs the authorization-code flow with PKCE (S256) and dynamic client registration
(RFC 7591) where the server offers it. The flow is the SDK's own (`OAuthClientProvider`, an
httpx2 auth): this module gives it what a command line has, a loopback listener for the
redirect (`LoopbackRedirect`, RFC 8252 §7.3) and a hook that shows the authorization URL and
may open a browser. It drives the flow with one unauthenticated JSON-RPC `ping` to the server:
the 401 starts the flow, the retry carries the token, and what the retry gets is of no concern.

The token lives in memory only (`MemoryTokens`): it is handed back to the caller, which sends
it as `Authorization: Bearer …` the way an `mcp` tool entry's `authorization` is sent, so the
probe's redaction hides it like any header value. It never reaches a file, a log or the screen
from here; neither do the client secret, the code or the PKCE verifier.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.client.auth.utils import (
    build_oauth_authorization_server_metadata_discovery_urls,
    build_protected_resource_metadata_discovery_urls,
)
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from pydantic import AnyUrl

from mcptui.model.failure_text import describe_exception
from mcptui.model.jsonsafe import loads
from mcptui.model.oauth import (
    OAuthNeeds,
    ResourceMetadata,
    ServerMetadata,
    metadata_url_of,
    needs_from,
    read_resource_metadata,
    read_server_metadata,
)
from mcptui.model.textsafe import one_line
from mcptui.model.urlsafe import usable_http_url

MAX_METADATA = 256 * 1024
"""Bytes of a metadata document read; a bigger one is refused (no server needs that much)."""
MAX_REQUEST = 16 * 1024
"""Bytes of the browser's request to the loopback listener read."""
DEFAULT_WAIT = 300.0
"""Seconds to wait for the person in the browser (the authorization and the redirect)."""
CALLBACK_PATH = "/callback"
CLIENT_NAME = "mcptui"

ShowUrl = Callable[[str], Awaitable[None] | None]
"""Shows the authorization URL to the person (and may open a browser)."""


class OAuthFailed(Exception):
    """The flow did not give a token; the message says why in plain words (never a secret)."""


# -- discovery -----------------------------------------------------------------------------------


async def _fetch_json(client: httpx2.AsyncClient, url: str) -> tuple[Any, str | None]:
    """(the JSON, None) or (None, why not): a status other than 200, too big, not JSON."""
    where = one_line(url, 160)
    try:
        async with client.stream("GET", url, headers={"Accept": "application/json"}) as response:
            if response.status_code != 200:
                return None, f"{where} answered HTTP {response.status_code}"
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body.extend(chunk)
                if len(body) > MAX_METADATA:
                    return None, f"{where} sent more than {MAX_METADATA // 1024} KiB: not read"
    except httpx2.HTTPError as exc:
        return None, f"{where}: {one_line(describe_exception(exc), 160)}"
    try:
        return loads(bytes(body)), None
    except ValueError:
        return None, f"{where} did not send JSON"


def needs_issuer(resource: ResourceMetadata | None) -> str | None:
    """The authorization server to ask (the first listed), when the metadata names one."""
    if resource is None or not resource.authorization_servers:
        return None
    return resource.authorization_servers[0]


async def discover(
    server_url: str, status: int, challenge: str | None, *, timeout: float = 10.0
) -> OAuthNeeds:
    """What a server that answered `status` (401 or 403) with `challenge` (its
    WWW-Authenticate, None when it sent none) wants; never raises for what the network does."""
    problems: list[str] = []
    pointed = metadata_url_of(challenge)
    candidates = build_protected_resource_metadata_discovery_urls(pointed, server_url)
    resource: ResourceMetadata | None = None
    server: ServerMetadata | None = None
    found_at: str | None = None
    async with httpx2.AsyncClient(timeout=timeout, follow_redirects=False) as client:
        for url in candidates:
            data, problem = await _fetch_json(client, url)
            if problem is not None:
                if url == pointed:  # where the server said it is: that it is not there matters
                    problems.append(f"the resource metadata the 401 points at: {problem}")
                continue
            read = read_resource_metadata(data)
            if read.authorization_servers or url == pointed:
                resource, found_at = read, url
                break
        if resource is None and pointed is None and status == 401:
            problems.append("no protected-resource metadata (RFC 9728) at the well-known places")
        issuer = needs_issuer(resource)
        if issuer is not None and usable_http_url(issuer):
            tried: list[str] = []
            for url in build_oauth_authorization_server_metadata_discovery_urls(issuer, server_url):
                data, problem = await _fetch_json(client, url)
                if problem is None:
                    server = read_server_metadata(data)
                    break
                tried.append(problem)
            if server is None:
                problems.append(
                    "the authorization server's metadata (RFC 8414) was not found: "
                    + "; ".join(tried[:3])
                )
    return needs_from(
        status,
        challenge,
        metadata_url=found_at or pointed,
        resource=resource,
        server=server,
        problems=tuple(problems),
    )


# -- the loopback redirect -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Redirected:
    """What the authorization server's redirect brought: a code, or an error."""

    code: str | None
    state: str | None
    iss: str | None
    error: str | None
    error_description: str | None


_PAGE = (
    "<!doctype html><meta charset=utf-8><title>mcptui</title>"
    "<p>mcptui: {text} You can close this tab.</p>"
)


class LoopbackRedirect:
    """A one-shot HTTP listener on 127.0.0.1 for the authorization server's redirect.

    Bound on entry (port 0: a free one), so the redirect URI is known before the client
    registers. The first request to `/callback` that carries a `code` or an `error`, and the
    `state` of the authorization URL (`expect_state_of`), is the answer; anything else (a
    favicon, a stray probe) gets a 404, and a redirect with another state a 400 (any local
    process can reach a loopback port: a forged callback must neither win nor end the flow,
    whose error would then print the real state), and the wait goes on.
    """

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self._server: asyncio.base_events.Server | None = None
        self._answer: asyncio.Future[Redirected] | None = None
        self.port = 0
        self.state: str | None = None
        """The `state` the authorization URL carried: the only one a redirect may bring."""

    def expect_state_of(self, authorization_url: str) -> None:
        found = parse_qs(urlsplit(authorization_url).query).get("state")
        self.state = found[0] if found else None

    @property
    def redirect_uri(self) -> str:
        return f"http://{self.host}:{self.port}{CALLBACK_PATH}"

    async def __aenter__(self) -> LoopbackRedirect:
        self._answer = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._serve, self.host, 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def wait(self, seconds: float) -> Redirected:
        """The redirect's parameters; OAuthFailed after `seconds` without one."""
        assert self._answer is not None
        try:
            with anyio.fail_after(seconds):
                return await asyncio.shield(self._answer)
        except TimeoutError:
            raise OAuthFailed(
                f"no authorization arrived at {self.redirect_uri} within {seconds:g} s: "
                "open the URL above in a browser on this machine and allow access "
                "(--oauth-timeout S waits longer)"
            ) from None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            with anyio.fail_after(10):
                head = await reader.readuntil(b"\r\n\r\n")
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
            writer.close()
            return
        if len(head) > MAX_REQUEST:
            await self._reply(writer, 431, "the request was too large.")
            return
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        target = parts[1] if len(parts) == 3 and parts[0] == "GET" else ""
        split = urlsplit(target)
        query = {k: v[0] for k, v in parse_qs(split.query).items() if v}
        answer = self._answer
        if (
            split.path != CALLBACK_PATH
            or not ("code" in query or "error" in query)
            or answer is None
            or answer.done()
        ):
            await self._reply(writer, 404, "this is not the page you are looking for.")
            return
        if self.state is not None and not hmac.compare_digest(
            query.get("state", "").encode(), self.state.encode()
        ):
            await self._reply(writer, 400, "this redirect is not for the sign-in mcptui waits for.")
            return
        answer.set_result(
            Redirected(
                code=query.get("code"),
                state=query.get("state"),
                iss=query.get("iss"),
                error=query.get("error"),
                error_description=query.get("error_description"),
            )
        )
        text = (
            "the authorization was refused."
            if "error" in query
            else "authorization received, back to the terminal."
        )
        await self._reply(writer, 200, text)

    @staticmethod
    async def _reply(writer: asyncio.StreamWriter, status: int, text: str) -> None:
        body = _PAGE.format(text=text).encode()
        reason = {
            200: "OK",
            400: "Bad Request",
            404: "Not Found",
            431: "Request Header Fields Too Large",
        }[status]
        writer.write(
            f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body
        )
        with contextlib.suppress(OSError):
            await writer.drain()
        writer.close()


# -- the flow ------------------------------------------------------------------------------------


class MemoryTokens:
    """The SDK's TokenStorage, in memory only: nothing of the flow is ever written."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


@dataclass(frozen=True, slots=True)
class Authorized:
    """A token the server's authorization server issued. `repr` never shows it."""

    access_token: str
    scope: str | None
    needs: OAuthNeeds
    """What the server asked for (its authorization server, the scopes)."""
    registered: bool
    """The client was registered dynamically for this flow."""

    def __repr__(self) -> str:
        return f"Authorized(scope={self.scope!r}, registered={self.registered})"

    @property
    def header(self) -> str:
        return f"Bearer {self.access_token}"


PING = {"jsonrpc": "2.0", "id": 0, "method": "ping"}
MCP_ACCEPT = {"Accept": "application/json, text/event-stream"}


async def challenge_of(
    server_url: str, *, timeout: float = 30.0, headers: dict[str, str] | None = None
) -> tuple[int, str | None]:
    """The status and WWW-Authenticate an unauthenticated JSON-RPC ping gets (OAuthFailed
    when the server cannot be reached)."""
    try:
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(timeout), headers=headers) as client:
            response = await client.post(server_url, json=PING, headers=MCP_ACCEPT)
            await response.aclose()
    except httpx2.HTTPError as exc:
        raise OAuthFailed(
            f"cannot reach {one_line(server_url, 160)}: {one_line(describe_exception(exc), 200)}"
        ) from None
    return response.status_code, response.headers.get("www-authenticate")


async def authorize(
    server_url: str,
    *,
    show_url: ShowUrl,
    wait: float = DEFAULT_WAIT,
    timeout: float = 30.0,
    headers: dict[str, str] | None = None,
    on_needs: Callable[[OAuthNeeds], None] | None = None,
) -> Authorized | None:
    """Run the authorization-code flow with PKCE for the MCP server at `server_url`.

    First an unauthenticated ping: a server that does not answer 401 (or 403) needs no token
    here (None). Then what it needs (`discover`; `on_needs` is told), and the flow: `show_url`
    gets the authorization URL (to print, and to open in a browser where there is one), and the
    person has `wait` seconds to allow access. Raises OAuthFailed, in plain words, when the
    server publishes no OAuth metadata or the flow fails: the authorization refused, no
    redirect in time, registration or token exchange refused. `headers` go with every request
    to the MCP server (never an Authorization header: the flow supplies that).
    """
    sent = {k: v for k, v in (headers or {}).items() if k.lower() != "authorization"}
    status, challenge = await challenge_of(server_url, timeout=timeout, headers=sent)
    if status not in (401, 403):
        return None
    try:
        with anyio.fail_after(3 * timeout):  # however slowly a server drips its metadata
            needs = await discover(server_url, status, challenge, timeout=timeout)
    except TimeoutError:
        raise OAuthFailed(
            f"the server answered HTTP {status}, and its OAuth metadata did not arrive "
            f"within {3 * timeout:g} s"
        ) from None
    if on_needs is not None:
        on_needs(needs)
    if not needs.oauth:
        raise OAuthFailed(
            f"{needs.summary()}: --oauth needs the server's protected-resource metadata "
            "(RFC 9728); pass its token with --header 'Authorization=Bearer ${TOKEN}' instead"
        )
    storage = MemoryTokens()
    async with LoopbackRedirect() as listener:

        async def redirect_handler(url: str) -> None:
            listener.expect_state_of(url)
            shown = show_url(url)
            if shown is not None:
                await shown

        async def callback_handler() -> AuthorizationCodeResult:
            answer = await listener.wait(wait)
            if answer.error is not None:
                said = one_line(answer.error, 80)
                if answer.error_description:
                    said += f" ({one_line(answer.error_description, 160)})"
                raise OAuthFailed(f"the authorization server refused the authorization: {said}")
            if not answer.code:
                raise OAuthFailed("the redirect carried no authorization code")
            return AuthorizationCodeResult(code=answer.code, state=answer.state, iss=answer.iss)

        provider = OAuthClientProvider(
            server_url,
            OAuthClientMetadata(
                client_name=CLIENT_NAME,
                redirect_uris=[AnyUrl(listener.redirect_uri)],
                grant_types=["authorization_code", "refresh_token"],
                response_types=["code"],
            ),
            storage,
            redirect_handler=redirect_handler,
            callback_handler=callback_handler,
        )
        quiet = logging.getLogger("mcp.client.auth")
        level, quiet.level = quiet.level, logging.CRITICAL  # its traceback log is not for users
        try:
            # The person's wait, plus a bound on the flow's own requests (a server that drips
            # its answers never trips a read timeout).
            limit = wait + 6 * timeout
            async with httpx2.AsyncClient(
                auth=provider, timeout=httpx2.Timeout(timeout), headers=sent
            ) as client:
                with anyio.fail_after(limit):
                    response = await client.post(server_url, json=PING, headers=MCP_ACCEPT)
                    await response.aclose()
        except OAuthFailed:
            raise
        except TimeoutError:
            raise OAuthFailed(f"the OAuth flow did not finish within {limit:g} s") from None
        except OAuthFlowError as exc:  # the SDK's own words, which name no secret
            raise OAuthFailed(f"the OAuth flow failed: {one_line(str(exc), 300)}") from None
        except Exception as exc:
            raise OAuthFailed(
                f"the OAuth flow failed: {one_line(describe_exception(exc), 300)}"
            ) from None
        finally:
            quiet.level = level
    if storage.tokens is None:
        raise OAuthFailed("the OAuth flow ended without a token")
    return Authorized(
        access_token=storage.tokens.access_token,
        scope=storage.tokens.scope,
        needs=needs,
        registered=storage.client is not None,
    )
