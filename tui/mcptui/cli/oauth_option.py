"""`--oauth` for the commands that talk to MCP servers (`probe`, `tools`): a token from each
server that wants OAuth, got with the authorization-code flow before the command starts.

The flow itself is `mcptui.mcpclient.oauth.authorize` (the `mcp` SDK's client, a loopback
redirect listener); this module is what a command line adds: the options, one-line refusals,
the authorization URL on stderr (as it is: it carries no secret, and redacting its query would
break it), a browser where one can show it, and the token put into the request's tool entry as
its `Authorization` header, in memory, where the probe's redaction hides it like any header
value. Nothing here prints, logs or writes the token.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from mcptui.cli.common import refuse_line, seconds_refused
from mcptui.model.textsafe import visible


class OAuthRefused(ValueError):
    """The flow gave no token: one line saying why (exit 2)."""


def add_oauth_options(parser: argparse.ArgumentParser, then: str) -> None:
    """`--oauth` and `--oauth-timeout S`; `then` says what the command does with the token."""
    parser.add_argument(
        "--oauth",
        action="store_true",
        help="for a server that answers 401 and publishes OAuth metadata (RFC 9728): run the "
        "authorization-code flow with PKCE (registering mcptui where the server offers it), "
        "print the authorization URL (and open a browser where there is one), wait for the "
        f"redirect on a loopback port, and {then}; the token is kept in memory for this run "
        "only, never printed or written",
    )
    parser.add_argument(
        "--oauth-timeout",
        type=float,
        default=None,
        metavar="S",
        help="seconds to wait for the authorization in the browser (default 300)",
    )


def oauth_refused(args: argparse.Namespace, supplied: Sequence[tuple[str, str]]) -> int | None:
    """Exit 2 with one line for options that do not go together; None when they do."""
    if (refused := seconds_refused("--oauth-timeout", args.oauth_timeout)) is not None:
        return refused
    if args.oauth_timeout is not None and not args.oauth:
        return refuse_line("--oauth-timeout needs --oauth")
    if args.oauth and any(name.lower() == "authorization" for name, _value in supplied):
        return refuse_line(
            "--oauth and --header Authorization both supply the token: pass one of them"
        )
    return None


def oauth_tokens(
    request: dict[str, Any], args: argparse.Namespace
) -> tuple[dict[str, Any], dict[str, str]]:
    """`--oauth`: the request with a token from each of its servers that wants OAuth, in
    that entry's headers (where the probe's redaction hides it like any header value), and
    by server label, where each token came from (its authorization server and scope).

    The authorization URL goes to stderr as it is (it carries no secret, and redacting its
    query would break it); a browser is opened only where one can show it. A flow that fails
    (refused, no redirect in time, no OAuth metadata) is an OAuthRefused: exit 2.
    """
    import asyncio

    from mcptui.mcpclient.oauth import DEFAULT_WAIT, OAuthFailed, authorize
    from mcptui.model.oauth import OAuthNeeds
    from mcptui.model.redaction import REDACTED
    from mcptui.probe.probing import entry_headers

    wait = args.oauth_timeout or DEFAULT_WAIT
    tools = request.get("tools")
    changed: list[Any] = []
    got_from: dict[str, str] = {}
    asked = 0
    for tool in tools if isinstance(tools, list) else []:
        url = tool.get("server_url") if isinstance(tool, dict) else None
        if not isinstance(url, str) or tool.get("type") != "mcp" or REDACTED in url:
            changed.append(tool)
            continue
        label = visible(str(tool.get("server_label") or url))

        def told(needs: OAuthNeeds, label: str = label) -> None:
            print(f"mcptui: {label} {visible(needs.summary())}", file=sys.stderr, flush=True)

        def show(url: str) -> None:
            print(
                f"mcptui: open this URL in a browser to authorize mcptui (waiting up to "
                f"{wait:g} s):\n  {visible(url)}",
                file=sys.stderr,
                flush=True,
            )
            _open_browser(url)

        headers, _redacted = entry_headers(tool)
        try:
            got = asyncio.run(
                authorize(
                    url,
                    show_url=show,
                    wait=wait,
                    timeout=getattr(args, "timeout", None) or 30.0,
                    headers=headers,
                    on_needs=told,
                )
            )
        except OAuthFailed as exc:
            raise OAuthRefused(f"--oauth at {label}: {exc}") from None
        asked += 1
        if got is None:
            print(f"mcptui: {label} asks for no token: going on without one", file=sys.stderr)
            changed.append(tool)
            continue
        print(
            f"mcptui: {label} authorized"
            + (f" (scope {visible(got.scope)})" if got.scope else "")
            + ": the token is used for this run only, never shown or stored",
            file=sys.stderr,
            flush=True,
        )
        entry = dict(tool)
        entry.pop("authorization", None)
        given = entry.get("headers")
        kept = {
            str(k): v
            for k, v in (given.items() if isinstance(given, dict) else [])
            if str(k).lower() != "authorization"
        }
        entry["headers"] = {**kept, "Authorization": got.header}
        changed.append(entry)
        got_from[str(tool.get("server_label") or url)] = (
            f"authorization server {got.needs.authorization_server or '?'}"
            + (f", scope {got.scope}" if got.scope else "")
        )
    if not asked:
        raise OAuthRefused("--oauth: the request has no MCP server URL to authorize at")
    return {**request, "tools": changed}, got_from


def _open_browser(url: str) -> None:
    """Open `url` where a browser can show it: a terminal of its own (never a test or CI),
    and a desktop (macOS, Windows, or X11/Wayland), so no text browser takes over the
    terminal the probe prints to."""
    import os
    import threading
    import webbrowser

    desktop = sys.platform in ("darwin", "win32") or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    )
    if not desktop or os.environ.get("CI") or not (sys.stdin.isatty() and sys.stderr.isatty()):
        return
    threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
