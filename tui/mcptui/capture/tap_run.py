"""`mcptui tap`: serve the tap in front of an MCP server and print what crosses it.

Binds 127.0.0.1; `--public-url` is the tunnel (ngrok, cloudflared) OpenAI's servers reach it
through, so the `server_url` to paste into the request is printed with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from rich.text import Text

from mcptui.capture.proxy_run import SERVER_OPTIONS, TimelineFeed, quiet_collector
from mcptui.capture.relay import RecordingProxy
from mcptui.capture.tap import TapHub
from mcptui.capture.tap_relay import RelayThread, serve_tap, suits
from mcptui.io.recording import DEFAULT_RECORD_DIR
from mcptui.model.events import Event, note
from mcptui.model.player import Player
from mcptui.model.timeline import Timeline
from mcptui.net.serve import DEFAULT_HOST, ServerThread, base_url, bind, make_server
from mcptui.sources.session import Session

if TYPE_CHECKING:
    from rich.console import Console

    from mcptui.share.otel_live import LiveExport, TapFollower


class _QuietStop(logging.Filter):
    """Stopping the tap (Ctrl+C, quitting the app) while a client still holds a stream open
    (the GET event stream of a live session, a slow call) is its normal end: uvicorn cancels
    the relaying task after a grace period and would log that, with a traceback of the
    cancellation, on the terminal."""

    def filter(self, record: logging.LogRecord) -> bool:
        cancelled = record.exc_info is not None and isinstance(
            record.exc_info[1], asyncio.CancelledError
        )
        return not (cancelled or "graceful shutdown exceeded" in record.getMessage())


logging.getLogger("uvicorn.error").addFilter(_QuietStop())


def relay_thread(hub: TapHub, port: int) -> ServerThread | RelayThread:
    """The tap served from a thread of its own (the terminal UI, `run --tap`), bound at once:
    by the tap's own relay (tui/mcptui/capture/tap_relay.py) for a plain-HTTP server, by the
    ASGI relay on httpx2 for an https or proxied one."""
    if suits(hub.upstream):
        return RelayThread(hub, bind(DEFAULT_HOST, port))
    return ServerThread(RecordingProxy(hub), port=port, own_logging=False, **SERVER_OPTIONS)


def default_record() -> Path:
    return DEFAULT_RECORD_DIR / f"{datetime.now().strftime('%Y%m%d-%H%M%S')}-tap.jsonl"


def server_url(address: str, hub: TapHub, public_url: str | None) -> str:
    """The `server_url` that goes through the tap: the public URL when OpenAI reaches the tap
    through a tunnel, else the tap's own address; with the server's own path either way."""
    base = (public_url or address).rstrip("/")
    return base + hub.path + (f"?{q}" if (q := urlsplit(hub.upstream).query) else "")


def serve_tap_lines(
    upstream: str,
    port: int,
    record: Path | None,
    public_url: str | None,
    console: Console,
    export: LiveExport | None = None,
) -> int:
    """`--no-tui`: a line per message until Ctrl+C; exit 0 (what the server said is data, and
    Ctrl+C is how a tap ends: a second one while it stops too). The messages are recorded and
    printed in this process while the relay waits for the server (tui/mcptui/capture/
    deferred.py); the recording is opened first, so one that cannot be written is refused at
    once."""
    from mcptui.capture.deferred import DeferredHub
    from mcptui.share.progress_lines import ProgressPrinter

    sock = bind(DEFAULT_HOST, port)
    tap = TapHub(upstream, record or default_record())
    path = tap.path_of_recording
    tap.on_event = ProgressPrinter(console)  # `MCP → tools/call …`, as `run --no-tui`
    tap.on_problem = lambda message: console.print(Text(f"mcptui: {message}", "bold red"))
    follower = None
    if export is not None:  # after on_event: it passes each note on to the printer
        from mcptui.share.otel_live import TapFollower

        follower = TapFollower(export, tap)
    hub = DeferredHub(tap)
    address = base_url(sock)
    console.print(
        f"mcptui tap: {address}{tap.path} → {upstream}\n"
        f"  server_url for the request: {server_url(address, tap, public_url)}\n"
        f"  recording to {path} · Ctrl+C stops",
        style="dim",
        highlight=False,
        soft_wrap=True,
    )
    quiet_collector()
    try:
        if suits(upstream):
            serve_tap(hub, sock)
        else:  # https, or through a proxy: the ASGI relay, on httpx2
            make_server(RecordingProxy(hub), **SERVER_OPTIONS).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl+C once it has shut down
        pass
    finally:
        with _interrupts_held():  # a second Ctrl+C: what was relayed is still recorded
            hub.close()
            if follower is not None:
                follower.flush()
    if export is not None:
        from mcptui.share.otel_live import print_end

        print_end(export)  # Ctrl+C cuts its wait for the collector
    console.print(
        f"mcptui tap: {tap.messages} messages recorded in {path}", style="dim", highlight=False
    )
    return 0


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """Ctrl+C ignored for the block, then as it was."""
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


class TapService:
    """`mcptui tap` in the terminal UI: bound at once (a busy port is refused before the
    screen opens), served from its own thread once the app's loop runs; each message becomes
    an entry of the shown timeline as it crosses."""

    def __init__(
        self,
        upstream: str,
        port: int,
        record: Path | None,
        public_url: str | None,
        export: LiveExport | None = None,
    ) -> None:
        self.hub = TapHub(upstream, record or default_record())
        self.export = export
        self.follower: TapFollower | None = None
        self.server = relay_thread(self.hub, port)
        self.server_url = server_url(self.server.url, self.hub, public_url)
        self.upstream = upstream

    def session(self) -> Session:
        session = Session(
            Timeline(),
            source=f"tap {self.server.url}{self.hub.path}",
            live=True,
            player=Player(instant=True),
            idle_hint=f"waiting for MCP traffic: put server_url "
            f"{self.server_url} in the request (forwarded to "
            f"{self.upstream})",
        )
        session.header = self.hub.header
        session.recording_path = str(self.hub.path_of_recording or "")
        return session

    def start(self, session: Session, loop: asyncio.AbstractEventLoop) -> None:
        feed = TimelineFeed(session, loop)
        self.hub.on_event = feed.post
        self.hub.on_problem = feed.problem
        if self.export is not None:  # after on_event: it passes each note on to the feed
            from mcptui.share.otel_live import TapFollower

            self.follower = TapFollower(self.export, self.hub)
        session.receiving = lambda: self.hub.open_exchanges > 0
        self.server.start()

    def stop(self) -> None:
        self.server.stop()
        self.hub.close()
        if self.follower is not None:
            self.follower.flush()
            self.follower = None


class RunTaps:
    """`mcptui run --tap`: a tap in front of each MCP server a request names, started before
    the request is sent; the request goes out with the taps' URLs, and their messages join the
    live run's timeline and recording (on its clock, on its loop).

    With `public_urls` (tunnels to the taps, one per server in the request's order) the taps
    listen on `port`, `port + 1`, … where the tunnels point; else on free ports."""

    def __init__(
        self, request: dict[str, Any], *, public_urls: Sequence[str] = (), port: int = 0
    ) -> None:
        labels: dict[str, list[str]] = {}
        for tool in request.get("tools") or []:
            if (
                isinstance(tool, dict)
                and tool.get("type") == "mcp"
                and isinstance(tool.get("server_url"), str)
            ):
                label = tool.get("server_label")
                labels.setdefault(tool["server_url"], []).extend(
                    [label] if isinstance(label, str) else []
                )
        if not labels:
            raise TapError("--tap: the request has no mcp tool with a server_url to tap")
        if public_urls and len(public_urls) != len(labels):
            raise TapError(
                f"--tap-public-url: the request names {len(labels)} MCP server"
                f"{'s' if len(labels) != 1 else ''}; give one tunnel URL for each, "
                "in the order of the request's tools"
            )
        self.hubs: list[TapHub] = []
        self.servers: list[ServerThread | RelayThread] = []
        self.routes: dict[str, str] = {}
        """The request's server_url → the tap's."""
        try:
            for position, (url, names) in enumerate(labels.items()):
                hub = TapHub(url, None, labels=names)
                server = relay_thread(hub, port + position if port else 0)
                self.hubs.append(hub)
                self.servers.append(server)
                public = public_urls[position] if public_urls else None
                self.routes[url] = server_url(server.url, hub, public)
        except BaseException:
            self.stop()
            raise

    def describe(self) -> list[dict[str, Any]]:
        """For the recording's header: which server went through which tap."""
        return [
            {"server_labels": hub.labels, "server_url": hub.upstream, "tap": server.url}
            for hub, server in zip(self.hubs, self.servers, strict=True)
        ]

    def route(self, request: dict[str, Any]) -> dict[str, Any]:
        """The request as sent: each tapped server_url replaced by its tap's."""
        tools = request.get("tools")
        if not isinstance(tools, list):
            return request
        return {
            **request,
            "tools": [
                {**tool, "server_url": self.routes[tool["server_url"]]}
                if isinstance(tool, dict) and tool.get("server_url") in self.routes
                else tool
                for tool in tools
            ],
        }

    def start(
        self,
        add: Callable[[Event], None],
        loop: asyncio.AbstractEventLoop,
        *,
        clock: Callable[[], float],
        start: float,
    ) -> None:
        """Serve; each message is handed to `add` on `loop`, timed on the run's clock."""
        for hub, server in zip(self.hubs, self.servers, strict=True):
            hub.clock, hub.start = clock, start
            hub.on_event = lambda event: loop.call_soon_threadsafe(add, event)
            hub.on_problem = lambda message: loop.call_soon_threadsafe(
                add, note("tap", f"tap: {message}", level="warning")
            )
            server.start()

    def stop(self) -> None:
        for server in self.servers:
            server.stop()
        for hub in self.hubs:
            hub.close()
        self.servers = []


class TapError(ValueError):
    """`--tap` cannot be used with this request; the message says why."""
