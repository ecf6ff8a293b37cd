"""The apps the SVG snapshot tests photograph: the real `McptuiApp` on a shipped recording,
opened paused at step 0 (the tests press keys from there).

Nothing on screen depends on the wall clock: the header shows stream time from the recording,
and playback never starts. To look at one by hand:
`.venv/bin/python tests/app/snapshot_app.py recordings/mcp-success.jsonl`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcptui.sources.replay import open_session
from mcptui.ui.app import McptuiApp

RECORDINGS = Path(__file__).resolve().parents[2] / "recordings"


def make_app(recording: str) -> McptuiApp:
    """`recording` is a file name under recordings/."""
    return McptuiApp(open_session(str(RECORDINGS / recording)), paused=True)


if __name__ == "__main__":
    make_app(Path(sys.argv[1]).name if len(sys.argv) > 1 else "mcp-success.jsonl").run()
