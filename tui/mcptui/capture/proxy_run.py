"""`mcptui proxy`: serve the recording proxy, and show what it captures live or as lines.

The proxy binds 127.0.0.1 only. In the terminal UI it runs in a thread of its own (its own
event loop), so drawing the screen never delays a byte the app is waiting for; captured entries
cross to the UI's loop with `call_soon_threadsafe`, never waiting for it.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mcptui.capture.captures import Capture, CaptureHub
from mcptui.capture.relay import RecordingProxy
from mcptui.model.events import Event, note
from mcptui.net.serve import DEFAULT_HOST, base_url, bind, make_server
from mcptui.sources.session import Session

if TYPE_CHECKING:
    from rich.console import Console

    from mcptui.share.otel_live import CaptureFollower, LiveExport

DEFAULT_UPSTREAM = "https://api.openai.com/v1"
SERVER_OPTIONS: dict[str, Any] = {
    "server_header": False,
    "date_header": False,
    "proxy_headers": False,
}
"""The upstream's own `server` and `date` headers pass through; uvicorn adds none. Nor does it
read X-Forwarded-For into the client's address on each request: nothing here uses it."""


class UpstreamError(ValueError):
    """The --upstream URL cannot be used; the message says why."""


def check_upstream(
    url: str, port: int, *, itself: str = "the proxy", example: str = DEFAULT_UPSTREAM
) -> str:
    """`url` if a relay on `port` can forward to it; refuses what cannot work (not http, the
    relay itself)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UpstreamError(f"--upstream must be an http(s) URL such as {example}, not {url!r}")
    local = parts.hostname in ("127.0.0.1", "localhost", "::1")
    if local and (parts.port or (443 if parts.scheme == "https" else 80)) == port:
        raise UpstreamError(
            f"--upstream {url} is {itself} itself (port {port}): point it at "
            f"the server, e.g. {example}"
        )
    return url


def banner(address: str, upstream: str, record_dir: Path) -> str:
    return (
        f"mcptui proxy: {address}/v1 → {upstream}\n"
        f"  point your app at it: export OPENAI_BASE_URL={address}/v1 (its API key passes "
        f"through, never stored)\n"
        f"  recording each response to {record_dir}/ · Ctrl+C stops"
    )


def serve_lines(
    upstream: str,
    port: int,
    record_dir: Path,
    console: Console,
    otlp: tuple[str, float] | None = None,
) -> int:
    """`--no-tui`: serve in the foreground until Ctrl+C; exit 1 if a captured response
    failed, else 0. A child process records and prints each response
    (tui/mcptui/capture/offload.py): the relay's own process only relays."""
    import time

    from rich.text import Text

    from mcptui.capture.offload import OffloadedHub, ProxySpec

    sock = bind(DEFAULT_HOST, port)
    width = None if console.is_terminal else console.width
    spec = ProxySpec(upstream, record_dir, time.monotonic(), width, otlp)
    hub = OffloadedHub(spec, CaptureHub(upstream, None))
    hub.on_problem = lambda message: console.print(Text(f"mcptui: {message}", "bold red"))
    console.print(banner(base_url(sock), upstream, record_dir), style="dim", highlight=False)
    quiet_collector()
    try:
        make_server(RecordingProxy(hub), **SERVER_OPTIONS).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl+C once it has shut down
        pass
    finally:
        code = hub.finish()
    return code


def quiet_collector() -> None:
    """Leave what is imported by now out of every garbage collection: a full one over the
    relay's 91k objects took 92 ms (2 CPUs, loaded), a stall of every stream at once."""
    import gc

    gc.collect()
    gc.freeze()


class TimelineFeed:
    """Hands entries from a relay's thread to a session shown by the app, on the app's loop:
    one wake-up of the loop delivers every entry posted since the last (a chunk brings many
    events; a wake-up is a system call)."""

    def __init__(self, session: Session, loop: asyncio.AbstractEventLoop) -> None:
        self.session = session
        self.loop = loop
        self._pending: list[Event] = []
        self._lock = threading.Lock()

    def post(self, event: Event, stream: int | None = None) -> None:
        event.stream = stream
        with self._lock:
            self._pending.append(event)
            if len(self._pending) > 1:
                return  # a delivery is already on its way
        self.loop.call_soon_threadsafe(self._deliver)

    def problem(self, message: str) -> None:
        self.post(note("recording", message, level="error"))

    def _deliver(self) -> None:
        with self._lock:
            events, self._pending = self._pending, []
        for event in events:
            self.session.timeline.append(event, follow=False)


class SessionFeed(TimelineFeed):
    """The proxy's captures in the app (the proxy starts once the app's loop runs, so nothing
    arrives before).

    Each capture's events are tagged with its key (`Event.stream`), so responses the app
    streams at the same time stay apart, and shifted to the proxy's clock (a recording's times
    count from its own first request)."""

    def __init__(self, session: Session, hub: CaptureHub, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(session, loop)
        hub.on_open = self.opened
        hub.on_event = self.captured
        hub.on_problem = self.problem
        session.receiving = lambda: hub.open_exchanges > 0

    def opened(self, capture: Capture) -> None:
        if self.session.header is None:
            self.session.header = capture.header
            return
        if capture.opening is None:
            return
        client = ((capture.header or {}).get("source") or {}).get("client") or {}
        if client.get("user-agent"):
            capture.opening.raw["message"] += f" · {client['user-agent']}"
        self.captured(capture, capture.opening)

    def captured(self, capture: Capture, event: Event) -> None:
        t = None if event.t is None else event.t + capture.offset
        self.post(event.copy(t=t, line=None, stream=None), capture.key)


class ProxyService:
    """The proxy beside the terminal UI: bound at once (a busy port is refused before the
    screen opens), served from its own thread once the app's loop runs."""

    def __init__(
        self, upstream: str, port: int, record_dir: Path, export: LiveExport | None = None
    ) -> None:
        from mcptui.net.serve import ServerThread

        self.hub = CaptureHub(upstream, record_dir)
        self.export = export
        self.follower: CaptureFollower | None = None
        if export is not None:
            from mcptui.share.otel_live import CaptureFollower

            self.follower = CaptureFollower(export, self.hub)
        self.server = ServerThread(
            RecordingProxy(self.hub), port=port, own_logging=False, **SERVER_OPTIONS
        )
        self.address = self.server.url
        self.upstream = upstream
        self.record_dir = record_dir

    def session(self) -> Session:
        from mcptui.model.player import Player
        from mcptui.model.timeline import Timeline

        session = Session(
            Timeline(),
            source=f"proxy {self.address}/v1",
            live=True,
            player=Player(instant=True),
            idle_hint=f"waiting for your app: export OPENAI_BASE_URL="
            f"{self.address}/v1  (forwarded to {self.upstream})",
        )
        session.recording_path = f"{self.record_dir}/"
        return session

    def start(self, session: Session, loop: asyncio.AbstractEventLoop) -> None:
        SessionFeed(session, self.hub, loop)
        self.server.start()

    def stop(self) -> None:
        self.server.stop()
        self.hub.close()
        if self.follower is not None:
            self.follower.flush()
            self.follower = None
