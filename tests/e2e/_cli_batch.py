"""Run several `mcptui` commands in ONE process, each as its own `main(argv)` with its own
stdout and stderr (file descriptors 1 and 2 redirected, so what a library writes past
`sys.stdout` is caught too).

    python _cli_batch.py COMMANDS.json RESULTS.json

COMMANDS.json: a list of argument lists. RESULTS.json: a list of {code, stdout, stderr}.

Why: a test that reads the same outputs of ~100 commands (test_secrets_everywhere.py) paid a
fresh interpreter and the import of mcptui, the openai SDK and Textual for each: ~100 CPU
seconds of startup for ~20 of work. The commands still run as the CLI runs them (argument
parsing, dispatch, the crash handler, files written relative to the working directory); a
few tests elsewhere keep running the real `python -m mcptui` process.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path


def run_one(argv: list[str]) -> dict[str, object]:
    from mcptui.cli.main import main

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = os.dup(1), os.dup(2)
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        try:
            try:
                code = main(argv)
            except SystemExit as stop:  # argparse refusing an option
                code = stop.code if isinstance(stop.code, int) else 2
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        texts = []
        for handle in (out, err):
            handle.seek(0)
            texts.append(handle.read().decode("utf-8", errors="replace"))
    return {"code": code, "stdout": texts[0], "stderr": texts[1]}


def main() -> None:
    commands = json.loads(Path(sys.argv[1]).read_text())
    results = [run_one(argv) for argv in commands]
    Path(sys.argv[2]).write_text(json.dumps(results))


if __name__ == "__main__":
    main()
