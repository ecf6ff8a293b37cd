"""The configuration file end to end (issue 39): `mcptui run --no-tui` with no option but the
request reaches the emulator through the file's `base_url` and records in its `[run]
record-dir`, a separate process, as a user runs it."""

from __future__ import annotations

import json
from pathlib import Path

from _e2e_support import Servers, calls
from test_run_cli import cli_env, run_cli


def test_run_takes_base_url_and_record_dir_from_the_file(tmp_path: Path, servers: Servers):
    folder = tmp_path / "cfg"
    folder.mkdir()
    (folder / "config.toml").write_text(
        f'base_url = "{servers.emulator}"\n\n[run]\nrecord-dir = "{tmp_path / "recs"}"\n'
    )
    body = {
        "model": "gpt-5-mini",
        "input": calls("q", ("search", {"query": "x"})),
        "tools": [servers.tool()],
    }
    (tmp_path / "request.json").write_text(json.dumps(body))
    env = cli_env(MCPTUI_CONFIG_DIR=str(folder))
    done = run_cli(["run", "request.json", "--no-tui"], tmp_path, env)
    assert done.returncode == 0, done.stdout + done.stderr
    (recording,) = (tmp_path / "recs").iterdir()
    assert f"recorded to {recording}" in done.stderr
    header = json.loads(recording.read_text().splitlines()[0])
    assert header["endpoint"].startswith(servers.emulator)
    assert not (tmp_path / "mcptui-recordings").exists()

    # the command line still wins: another folder
    done = run_cli(["run", "request.json", "--no-tui", "--record-dir", "here"], tmp_path, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(list((tmp_path / "here").iterdir())) == 1
