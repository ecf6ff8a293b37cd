"""`mcptui tap`: serve the tap in front of an MCP server and print what crosses it.

Binds 127.0.0.1; `--public-url` is the tunnel (ngrok, cloudflared) OpenAI's servers reach it
through, so the `server_url` to paste into the request is printed with it.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from rich.text import Text

from tui.capture.proxy_run import SERVER_OPTIONS
from tui.capture.relay import RecordingProxy
from tui.capture.tap import TapHub
from tui.emulator.serve import DEFAULT_HOST, base_url, bind, make_server
from tui.io.recording import DEFAULT_RECORD_DIR
from tui.model.events import Event
from tui.model.textsafe import one_line

if TYPE_CHECKING:
    from rich.console import Console


def default_record() -> Path:
    return DEFAULT_RECORD_DIR / f"{datetime.now().strftime('%Y%m%d-%H%M%S')}-tap.jsonl"


def server_url(address: str, hub: TapHub, public_url: str | None) -> str:
    """The `server_url` that goes through the tap: the public URL when OpenAI reaches the tap
    through a tunnel, else the tap's own address; with the server's own path either way."""
    base = (public_url or address).rstrip("/")
    return base + hub.path + (f"?{q}" if (q := urlsplit(hub.upstream).query) else "")


def message_line(event: Event) -> Text:
    t = f"{event.t:8.3f}s " if event.t is not None else "          "
    level = event.raw.get("level")
    style = "yellow" if level == "warning" else "red" if level == "error" else ""
    text = Text(t, "dim")
    text.append(one_line(str(event.raw.get("message", "")), 300), style)
    return text


def serve_tap_lines(upstream: str, port: int, record: Path | None, public_url: str | None,
                    console: Console) -> int:
    """`--no-tui`: a line per message until Ctrl+C; exit 0 (what the server said is data)."""
    sock = bind(DEFAULT_HOST, port)
    hub = TapHub(upstream, record or default_record())
    hub.on_event = lambda event: console.print(message_line(event), soft_wrap=True)
    hub.on_problem = lambda message: console.print(Text(f"mcptui: {message}", "bold red"))
    address = base_url(sock)
    console.print(f"mcptui tap: {address}{hub.path} → {upstream}\n"
                  f"  server_url for the request: {server_url(address, hub, public_url)}\n"
                  f"  recording to {hub.path_of_recording} · Ctrl+C stops",
                  style="dim", highlight=False, soft_wrap=True)
    try:
        make_server(RecordingProxy(hub), **SERVER_OPTIONS).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        hub.close()
    console.print(f"mcptui tap: {hub.messages} messages recorded in {hub.path_of_recording}",
                  style="dim", highlight=False)
    return 0
