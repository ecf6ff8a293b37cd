"""What an OAuth-protected MCP server asks for, read from its own words.

An MCP server that wants a token answers 401 with `WWW-Authenticate: Bearer …` (RFC 6750),
whose `resource_metadata` parameter points at its protected-resource metadata (RFC 9728); that
names the authorization servers and the scopes, and each authorization server's metadata
(RFC 8414) names its endpoints, whether it registers clients dynamically (RFC 7591) and whether
it offers PKCE S256. This module reads those three texts into small records and says, in one
line, what the server needs: the probe's finding and the likely-cause fix both come from here.

Everything here is from the network and may be anything: a header of junk, metadata with a
field of the wrong type, a megabyte of scopes. Reading never raises; what cannot be used is a
`problem` in plain words, and every value kept is bounded (`MAX_ITEMS`, `MAX_CHARS`) and shown
through `one_line`, so a hostile server can neither flood the screen nor drive the terminal.
Pure: no I/O (the fetching is `mcptui.mcpclient.oauth`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcptui.model.textsafe import one_line

MAX_HEADER = 8192
"""Characters of a WWW-Authenticate header read; the rest is ignored (and said so)."""
MAX_ITEMS = 20
"""Authorization servers, scopes and methods kept from a metadata list."""
MAX_CHARS = 300
"""Characters kept of one value (a URL, a scope, a description)."""

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_TOKEN68 = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
_SPACE = " \t"


@dataclass(frozen=True, slots=True)
class Challenge:
    """One challenge of a WWW-Authenticate header: its scheme and parameters (names lower-cased)."""

    scheme: str
    params: dict[str, str] = field(default_factory=dict)
    token68: str | None = None

    @property
    def is_bearer(self) -> bool:
        return self.scheme.lower() == "bearer"

    def get(self, name: str) -> str | None:
        return self.params.get(name)


@dataclass(frozen=True, slots=True)
class ParsedChallenges:
    challenges: tuple[Challenge, ...]
    problem: str | None = None
    """What could not be read (junk, cut at MAX_HEADER), None when all of it was."""

    @property
    def bearer(self) -> Challenge | None:
        return next((c for c in self.challenges if c.is_bearer), None)


def _short(text: str) -> str:
    return text if len(text) <= MAX_CHARS else text[:MAX_CHARS]


def parse_www_authenticate(header: str | None) -> ParsedChallenges:
    """The challenges of a WWW-Authenticate header (RFC 9110 §11.6.1), as far as it parses.

    `Bearer realm="x", scope="a b", resource_metadata="https://…"`; several challenges may share
    one header (`Basic realm="x", Bearer …`). Reading stops at the first thing that is neither
    a parameter nor a new challenge; what was read before it is kept.
    """
    if header is None or not header.strip():
        return ParsedChallenges((), "the 401 carries no WWW-Authenticate header")
    problem = None
    if len(header) > MAX_HEADER:
        header = header[:MAX_HEADER]
        problem = f"the WWW-Authenticate header is longer than {MAX_HEADER} characters: cut there"
    found: list[Challenge] = []
    at, end = 0, len(header)

    def skip(chars: str) -> None:
        nonlocal at
        while at < end and header[at] in chars:
            at += 1

    while True:
        skip(_SPACE + ",")
        if at >= end:
            break
        scheme = _TOKEN.match(header, at)
        if scheme is None:
            problem = problem or _junk(header, at)
            break
        at = scheme.end()
        params: dict[str, str] = {}
        token68: str | None = None
        skip(_SPACE)
        # token68 (`Basic dXNlcjpwYXNz`): one word that ends the challenge, not `name=value`
        t68 = _TOKEN68.match(header, at)
        if t68 is not None and _ends_item(header, t68.end()):
            token68, at = _short(t68.group()), t68.end()
        while token68 is None:
            skip(_SPACE + ",")
            name = _TOKEN.match(header, at)
            if name is None:
                break
            after = name.end()
            while after < end and header[after] in _SPACE:
                after += 1
            if after >= end or header[after] != "=":
                break  # the next challenge's scheme
            at = after + 1
            skip(_SPACE)
            value, at, bad = _value(header, at)
            if bad is not None:
                problem = problem or bad
                found.append(Challenge(_short(scheme.group()), params))
                return ParsedChallenges(tuple(found), problem)
            params.setdefault(name.group().lower(), _short(value))
        found.append(Challenge(_short(scheme.group()), params, token68))
        skip(_SPACE)
        if at < end and header[at] != "," and _TOKEN.match(header, at) is None:
            problem = problem or _junk(header, at)
            break
    if not found and problem is None:
        problem = "the WWW-Authenticate header holds no challenge"
    return ParsedChallenges(tuple(found), problem)


def _ends_item(text: str, at: int) -> bool:
    while at < len(text) and text[at] in _SPACE:
        at += 1
    return at >= len(text) or text[at] == ","


def _value(text: str, at: int) -> tuple[str, int, str | None]:
    """A quoted-string (with `\\` escapes) or a token, and where reading stopped."""
    if at < len(text) and text[at] == '"':
        out: list[str] = []
        at += 1
        while at < len(text):
            char = text[at]
            if char == "\\" and at + 1 < len(text):
                out.append(text[at + 1])
                at += 2
                continue
            if char == '"':
                return "".join(out), at + 1, None
            out.append(char)
            at += 1
        return "".join(out), at, "a quoted value in the WWW-Authenticate header never ends"
    token = _TOKEN.match(text, at) or _TOKEN68.match(text, at)
    if token is None:
        return "", at, _junk(text, at)
    return token.group(), token.end(), None


def _junk(text: str, at: int) -> str:
    return (
        f"the WWW-Authenticate header is not RFC 9110 syntax from character {at + 1}: "
        f"{one_line(text[at:], 40)!r}"
    )


# -- metadata ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ResourceMetadata:
    """RFC 9728 protected-resource metadata, as far as it could be read."""

    resource: str | None
    authorization_servers: tuple[str, ...]
    scopes_supported: tuple[str, ...] | None
    resource_name: str | None = None
    problems: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ServerMetadata:
    """RFC 8414 authorization-server metadata, as far as it could be read."""

    issuer: str | None
    authorization_endpoint: str | None
    token_endpoint: str | None
    registration_endpoint: str | None
    scopes_supported: tuple[str, ...] | None
    code_challenge_methods: tuple[str, ...] | None
    problems: tuple[str, ...] = ()

    @property
    def offers_pkce(self) -> bool | None:
        """S256 listed (True), a list without it (False), no list (None: RFC 8414 says the
        server then offers no PKCE, but many that do omit it)."""
        if self.code_challenge_methods is None:
            return None
        return "S256" in self.code_challenge_methods


def _string(data: Mapping[str, Any], key: str, what: str, problems: list[str]) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        problems.append(f"the {what}'s {key} is not a non-empty string ({_kind(value)})")
        return None
    return _short(value.strip())


def _url(data: Mapping[str, Any], key: str, what: str, problems: list[str]) -> str | None:
    value = _string(data, key, what, problems)
    if value is not None and not re.match(r"https?://[^\s/?#]+", value, re.IGNORECASE):
        problems.append(f"the {what}'s {key} is not an http(s) URL: {one_line(value, 80)!r}")
        return None
    return value


def _strings(
    data: Mapping[str, Any], key: str, what: str, problems: list[str]
) -> tuple[str, ...] | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, list):
        problems.append(f"the {what}'s {key} is not a list ({_kind(value)})")
        return None
    kept = [_short(v) for v in value if isinstance(v, str) and v.strip()]
    if len(kept) < len(value):
        problems.append(f"the {what}'s {key} holds values that are not strings: left out")
    if len(kept) > MAX_ITEMS:
        problems.append(f"the {what}'s {key} lists {len(kept)} values: the first {MAX_ITEMS} kept")
        kept = kept[:MAX_ITEMS]
    return tuple(kept)


def _kind(value: Any) -> str:
    return "empty" if value in ("", [], {}) else type(value).__name__


def read_resource_metadata(data: Any) -> ResourceMetadata:
    """RFC 9728 metadata from its JSON (already parsed); never raises."""
    what = "protected-resource metadata"
    if not isinstance(data, dict):
        return ResourceMetadata(None, (), None, problems=(f"the {what} is not a JSON object",))
    problems: list[str] = []
    servers = _strings(data, "authorization_servers", what, problems) or ()
    urls = tuple(s for s in servers if re.match(r"https?://", s, re.IGNORECASE))
    if len(urls) < len(servers):
        problems.append(f"the {what}'s authorization_servers holds values that are not URLs")
    if not urls:
        problems.append(f"the {what} names no authorization server (authorization_servers)")
    return ResourceMetadata(
        resource=_string(data, "resource", what, problems),
        authorization_servers=urls,
        scopes_supported=_strings(data, "scopes_supported", what, problems),
        resource_name=_string(data, "resource_name", what, problems),
        problems=tuple(problems),
    )


def read_server_metadata(data: Any) -> ServerMetadata:
    """RFC 8414 metadata from its JSON (already parsed); never raises."""
    what = "authorization server's metadata"
    if not isinstance(data, dict):
        return ServerMetadata(
            None, None, None, None, None, None, problems=(f"the {what} is not a JSON object",)
        )
    problems: list[str] = []
    found = ServerMetadata(
        issuer=_url(data, "issuer", what, problems),
        authorization_endpoint=_url(data, "authorization_endpoint", what, problems),
        token_endpoint=_url(data, "token_endpoint", what, problems),
        registration_endpoint=_url(data, "registration_endpoint", what, problems),
        scopes_supported=_strings(data, "scopes_supported", what, problems),
        code_challenge_methods=_strings(data, "code_challenge_methods_supported", what, problems),
        problems=(),
    )
    for key in ("authorization_endpoint", "token_endpoint"):
        if getattr(found, key) is None and data.get(key) is None:
            problems.append(f"the {what} has no {key}")
    return ServerMetadata(
        found.issuer,
        found.authorization_endpoint,
        found.token_endpoint,
        found.registration_endpoint,
        found.scopes_supported,
        found.code_challenge_methods,
        tuple(problems),
    )


# -- what the server needs -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OAuthNeeds:
    """What a server that refused with 401 (or 403) wants, from its challenge and metadata."""

    status: int
    challenge: Challenge | None = None
    resource_metadata_url: str | None = None
    """Where the protected-resource metadata was found (or named by the challenge)."""
    resource: ResourceMetadata | None = None
    server: ServerMetadata | None = None
    problems: tuple[str, ...] = ()
    """What could not be fetched or read, in plain words."""

    @property
    def oauth(self) -> bool:
        """The server speaks OAuth: a Bearer challenge that points at metadata, or metadata
        found at the well-known place."""
        return self.resource is not None and bool(self.resource.authorization_servers)

    @property
    def authorization_server(self) -> str | None:
        if self.resource is None or not self.resource.authorization_servers:
            return None
        return self.resource.authorization_servers[0]

    @property
    def scopes(self) -> tuple[str, ...]:
        """The scopes to ask for, in the MCP spec's order of preference: the challenge's
        `scope`, else the resource metadata's, else the authorization server's."""
        said = self.challenge.get("scope") if self.challenge is not None else None
        if said:
            return tuple(said.split()[:MAX_ITEMS])
        if self.resource is not None and self.resource.scopes_supported:
            return self.resource.scopes_supported
        if self.server is not None and self.server.scopes_supported:
            return self.server.scopes_supported
        return ()

    @property
    def error(self) -> str | None:
        """The challenge's `error` and `error_description` ("invalid_token: expired")."""
        if self.challenge is None:
            return None
        error, description = self.challenge.get("error"), self.challenge.get("error_description")
        if error and description:
            return f"{error}: {description}"
        return error or description

    @property
    def registration(self) -> bool | None:
        """Dynamic client registration offered (RFC 7591), when the server's metadata was read."""
        if self.server is None:
            return None
        return self.server.registration_endpoint is not None

    def summary(self) -> str:
        """One line: "needs OAuth: authorization server X, scopes a b (resource metadata at Z)",
        or why it cannot be told."""
        if not self.oauth:
            said = f" ({one_line(self.error, 120)})" if self.error else ""
            scheme = (
                f", it asks for {one_line(self.challenge.scheme, 40)} authentication"
                if self.challenge is not None and not self.challenge.is_bearer
                else ""
            )
            return f"needs credentials: HTTP {self.status}{said}{scheme}, and no OAuth metadata"
        parts = [f"authorization server {one_line(self.authorization_server or '', 120)}"]
        scopes = self.scopes
        parts.append(f"scopes {one_line(' '.join(scopes), 160)}" if scopes else "no scopes named")
        where = (
            f" (resource metadata at {one_line(self.resource_metadata_url, 160)})"
            if self.resource_metadata_url
            else ""
        )
        return "needs OAuth: " + ", ".join(parts) + where

    def details(self) -> list[str]:
        """Further lines: the flow the authorization server offers, and what went wrong."""
        lines: list[str] = []
        if self.error:
            lines.append(f"the server said: {one_line(self.error, 160)}")
        if self.server is not None:
            registration = (
                "dynamic client registration offered"
                if self.registration
                else "no dynamic client registration (a client must be registered by hand)"
            )
            pkce = {True: "PKCE S256 offered", False: "PKCE S256 not offered", None: ""}[
                self.server.offers_pkce
            ]
            lines.append(", ".join(p for p in (registration, pkce) if p))
        lines.extend(one_line(p, 200) for p in self.problems)
        return lines

    def as_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "oauth": self.oauth,
            "authorization_server": self.authorization_server,
            "authorization_servers": list(self.resource.authorization_servers)
            if self.resource is not None
            else [],
            "scopes": list(self.scopes),
            "resource_metadata": self.resource_metadata_url,
            "resource": self.resource.resource if self.resource is not None else None,
            "registration": self.registration,
            "pkce_s256": self.server.offers_pkce if self.server is not None else None,
            "error": self.error,
            "problems": list(self.problems),
        }


def needs_from(
    status: int,
    header: str | None,
    *,
    metadata_url: str | None = None,
    resource: ResourceMetadata | None = None,
    server: ServerMetadata | None = None,
    problems: tuple[str, ...] = (),
) -> OAuthNeeds:
    """The needs of a refusal, from its header and the metadata fetched for it."""
    parsed = parse_www_authenticate(header)
    found: list[str] = []
    if parsed.problem is not None and (header or status == 401):
        found.append(parsed.problem)
    found.extend(problems)
    if resource is not None:
        found.extend(resource.problems)
    if server is not None:
        found.extend(server.problems)
    return OAuthNeeds(
        status=status,
        challenge=parsed.bearer or (parsed.challenges[0] if parsed.challenges else None),
        resource_metadata_url=metadata_url,
        resource=resource,
        server=server,
        problems=tuple(dict.fromkeys(found)),
    )


def metadata_url_of(header: str | None) -> str | None:
    """The challenge's `resource_metadata` URL, when it is an http(s) URL."""
    bearer = parse_www_authenticate(header).bearer
    value = bearer.get("resource_metadata") if bearer is not None else None
    if value and re.match(r"https?://[^\s/?#]+", value, re.IGNORECASE):
        return value
    return None
