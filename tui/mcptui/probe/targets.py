"""What `mcptui probe URL-or-FILE` probes: one MCP server's URL, a request file, or any file
`inspect` reads, plus --header.

People have the stream that failed (a recording, a paste from a forum post) more often than the
request that made it. Such a file names its MCP servers itself: a recording's header keeps the
(redacted) request, and `response.created` echoes the request's tools. Their credentials are
gone from it (`<redacted>`, or withheld by OpenAI), so `--header NAME=VALUE` supplies them, a
value being `${ENV_VAR}` so the secret stays out of shell history. Supplied values go into the
tool entries the probe sends and scrubs from its report (`mcptui.probe`); they are never printed
here either: messages about a bad --header name its position, not its text. Pure: no Textual.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from mcptui.io.formats import load_bytes
from mcptui.io.reading import MAX_BYTES, InputError
from mcptui.io.recording import Loaded
from mcptui.model.state import mcp_entries
from mcptui.model.timeline import Timeline
from mcptui.sources.request_file import (
    VARIABLE,
    RequestFileError,
    parse_request,
    read_request_or_dump,
)

HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
"""An HTTP header name (RFC 9110 token)."""
ORDINALS = ("first", "second", "third")
SERVER_URL = re.compile(r"https?://", re.IGNORECASE)
"""A positional that is an MCP server's URL rather than a file."""


class ProbeInputError(ValueError):
    """The file or a --header cannot be used: one line saying why (never a secret value)."""


@dataclass(slots=True)
class ProbeInput:
    """What to probe: the request (real, or the tool entries a file names), and the file's
    events when the positional was a stream dump (its failed calls are then the calls)."""

    request: dict[str, Any]
    recording: Loaded | None = None
    """The positional's events, when it was not a request file."""
    echoed: bool = False
    """Some tool entries come from the tools a response echoed, which carry no headers at all:
    whatever credentials the request had are unknown."""
    supplied: list[str] = field(default_factory=list)
    """The names of the --header values applied (never the values)."""
    oauth: dict[str, str] = field(default_factory=dict)
    """By server label: where the token `--oauth` got came from (never the token)."""


def read_input(path: str, max_bytes: int = MAX_BYTES) -> ProbeInput:
    """The positional of `mcptui probe`: an MCP server's http(s) URL, a request file as `run`
    reads it (with `${NAME}` expanded), else a stream dump whose servers come from its own
    content."""
    if SERVER_URL.match(path):
        return ProbeInput({"tools": [url_entry(path)]})
    try:
        read = read_request_or_dump(path, max_bytes, what="a request or a recording")
    except InputError as exc:
        raise ProbeInputError(str(exc)) from None
    source, text = read.source, read.text
    if read.is_request:
        return ProbeInput(_request(text, source))
    loaded = load_bytes(read.data, source=source, max_bytes=max_bytes)
    if not loaded.usable:
        if text.lstrip().startswith("{"):
            _request(text, source)  # a request that is not JSON: say where it breaks
        problems = "; ".join(str(p) for p in loaded.problems[:3]) or "no events"
        raise ProbeInputError(f"cannot use {source}: {problems}")
    entries, echoed = file_servers(loaded)
    if not entries:
        raise ProbeInputError(
            f"nothing to probe: {source} names no MCP server (no request in it and no "
            "response.created with tools); pass the request file: mcptui probe REQUEST.json "
            f"--recording {source}"
        )
    return ProbeInput({"tools": entries}, recording=loaded, echoed=echoed)


def url_entry(url: str) -> dict[str, Any]:
    """The `mcp` tool entry a bare server URL stands for; its label is the host (and port),
    never the URL's user info."""
    try:
        parts = urlsplit(url.strip())
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise ProbeInputError(f"not a usable server URL: {exc}") from None
    if not host:
        raise ProbeInputError("the server URL names no host: write http(s)://HOST[:PORT]/PATH")
    label = f"{host}:{port}" if port else host
    return {
        "type": "mcp",
        "server_label": label,
        "server_url": url.strip(),
        "require_approval": "never",
    }


def _request(text: str, source: str) -> dict[str, Any]:
    try:
        return parse_request(text, source)
    except RequestFileError as exc:
        raise ProbeInputError(str(exc)) from None


def file_servers(loaded: Loaded) -> tuple[list[dict[str, Any]], bool]:
    """The `mcp` tool entries a file names, one per server_label, and whether any of them
    came from a response's echo: the recording header's request first (it kept the header
    names), then the tools each response echoed, as the inspector's `p` finds them."""
    entries: list[dict[str, Any]] = []
    labels: set[Any] = set()
    echoed = False
    request = (loaded.header or {}).get("request")
    timeline = Timeline(loaded.events, loaded.snapshots)
    timeline.seek_end()
    sources = [(request, False)] + [
        ({"tools": resp.tools}, True) for resp in timeline.state.responses
    ]
    for tools, from_echo in sources:
        for entry in mcp_entries(tools):
            label = entry.get("server_label")
            if label in labels:
                continue
            labels.add(label)
            entries.append(entry)
            echoed = echoed or from_echo
    return entries, echoed


# -- --header ------------------------------------------------------------------------------------


def parse_headers(options: Sequence[str], env: Mapping[str, str]) -> list[tuple[str, str]]:
    """`--header NAME=VALUE` options as (name, value); `${NAME}` in VALUE is the environment
    variable (refused when unset, as in request files). Messages never quote a value."""
    return [parse_header(option, env, position) for position, option in enumerate(options)]


def parse_header(option: str, env: Mapping[str, str], position: int = 0) -> tuple[str, str]:
    which = (
        f"the {ORDINALS[position]} --header"
        if position < len(ORDINALS)
        else f"--header number {position + 1}"
    )
    name, equals, value = option.partition("=")
    name = name.strip()
    if not equals:
        hint = " (not NAME: VALUE)" if ":" in option else ""
        raise ProbeInputError(
            f"{which} has no '=': write --header NAME=VALUE{hint}, e.g. "
            "--header 'Authorization=Bearer ${TOKEN}'"
        )
    if not HEADER_NAME.fullmatch(name):
        raise ProbeInputError(
            f"{which} has no valid header name before '=' (letters, digits "
            "and -_.!#$%&'*+^`|~ only): write --header NAME=VALUE"
        )
    unset = [
        found.group(1)
        for found in VARIABLE.finditer(value)
        if found.group(1) not in env and found.group(2) is None
    ]
    if unset:
        raise ProbeInputError(
            f"--header {name}: ${{{unset[0]}}} is not set: export it, or "
            f"write ${{{unset[0]}:-default}}"
        )
    value = VARIABLE.sub(lambda found: env.get(found.group(1), found.group(2) or ""), value)
    if not value.strip():
        raise ProbeInputError(f"--header {name} has an empty value")
    if any(c in value for c in "\r\n\x00"):
        raise ProbeInputError(
            f"--header {name}: the value holds a line break or NUL, which no HTTP header can carry"
        )
    return name, value.strip()


def with_headers(request: Mapping[str, Any], supplied: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """`request` with the supplied headers in every `mcp` tool entry: each replaces the entry's
    header of that name (any case, redacted or not) and is added where there is none. An
    Authorization header also replaces the entry's `authorization` field, which OpenAI would
    otherwise send in its place."""
    supplied = list(supplied)
    if not supplied:
        return dict(request)
    tools = request.get("tools")
    if not isinstance(tools, list):
        return dict(request)
    changed: list[Any] = []
    for tool in tools:
        if not (isinstance(tool, dict) and tool.get("type") == "mcp"):
            changed.append(tool)
            continue
        entry = dict(tool)
        given = entry.get("headers")
        headers = {str(k): v for k, v in given.items()} if isinstance(given, dict) else {}
        for name, value in supplied:
            for key in [k for k in headers if k.lower() == name.lower()]:
                del headers[key]
            headers[name] = value
            if name.lower() == "authorization":
                entry.pop("authorization", None)
        entry["headers"] = headers
        changed.append(entry)
    return {**request, "tools": changed}
