"""Write the labelled corpus: every case of cause_corpus.CASES, reproduced for real.

    .venv/bin/python tests/causes/make_corpus.py [CASE ...]

For each case: a demo MCP server in the case's mode (or a closed port) and the emulator on
loopback, then the installed `mcptui run REQUEST --no-tui --record` (the openai SDK, as a user
runs it) writes `recording.jsonl`; `pasted.json` is its events as a JSON array without timing
(or the error body, when the API refused the request); `response.json` is the Response object
the emulator returns for GET /v1/responses/{id}, when there is one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx2

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))  # tests/: _ports.py

from cause_corpus import CASES, TOOL_TIMEOUT, Case, case_dir, mcp_server, request_for  # noqa: E402
from mcptui.emulator.app import Emulator  # noqa: E402
from mcptui.emulator.runner import RunConfig  # noqa: E402
from mcptui.io.recording import is_header  # noqa: E402
from mcptui.net.serve import ServerThread  # noqa: E402

MCPTUI = Path(sys.executable).parent / "mcptui"


def make(case: Case, emulator: str) -> str:
    out = case_dir(case)
    out.mkdir(exist_ok=True)
    for old in out.iterdir():
        old.unlink()
    with mcp_server(case) as origin, tempfile.TemporaryDirectory() as tmp:
        request = Path(tmp, "request.json")
        request.write_text(json.dumps(request_for(case, origin), indent=2))
        recording = out / "recording.jsonl"
        env = {**os.environ, "OPENAI_API_KEY": "sk-corpus-not-a-real-key", "CI": "true"}
        done = subprocess.run(
            [
                str(MCPTUI),
                "run",
                str(request),
                "--no-tui",
                "--base-url",
                emulator,
                "--record",
                str(recording),
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    lines = [json.loads(line) for line in recording.read_text().splitlines() if line.strip()]
    records = [line for line in lines if not is_header(line)]
    events = [r["event"] for r in records if "event" in r]
    notes = [r["note"] for r in records if "note" in r]
    if events:
        pasted: Any = events
    else:
        bodies = [n.get("body") for n in notes if isinstance(n.get("body"), dict)]
        pasted = bodies[0] if bodies else None
    if pasted is not None:
        (out / "pasted.json").write_text(json.dumps(pasted, indent=2) + "\n")
    response_id = next(
        (
            e["response"]["id"]
            for e in events
            if isinstance(e.get("response"), dict) and e["response"].get("id")
        ),
        None,
    )
    if response_id is not None:
        got = httpx2.get(
            f"{emulator}/responses/{response_id}",
            timeout=10,
            headers={"Authorization": "Bearer sk-corpus-not-a-real-key"},
        )
        got.raise_for_status()
        (out / "response.json").write_text(json.dumps(got.json(), indent=2) + "\n")
    return f"{case.name}: exit {done.returncode}, {len(events)} events, {len(notes)} notes"


def main(names: list[str]) -> int:
    config = RunConfig(
        tool_timeout=TOOL_TIMEOUT, delta_delay=0.0, queue_delay=0.05, list_timeout=5.0
    )
    chosen = [c for c in CASES if not names or c.name in names]
    with ServerThread(Emulator(config, seed=11).app) as emulator:
        for case in chosen:
            print(make(case, f"{emulator.url}/v1"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
