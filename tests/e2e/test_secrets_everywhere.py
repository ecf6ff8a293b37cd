"""No planted secret in any file or stream mcptui writes (issue 35, "Secrets").

One fixture plants every kind of secret a user has (the API key, MCP header values: an API-key
header, a cookie and a bearer token without "Bearer"; a token in a server URL's path, a
`?token=` value, a password in a URL's user part) in every place a stream can echo it: the
request's input, tool arguments split across deltas, the tool's output, text deltas split,
an error message, and HTTP archives (HAR, VCR, test-proxy) holding the same exchange. Then
each command runs as a user runs it: `run`, `run --tap`, `proxy`, `probe`, `emulate` and the
crash log each in its own process; the commands that read a file (`inspect` (plain, --json,
--strict), `report` (md, html), `export` (curl, python, request), `--screenshot` (whole and
`--step N`)), ~100 of them, as `main(argv)` in two processes (_cli_batch.py), each with its
own stdout and stderr. Every file and every
stdout/stderr they write is searched for each secret and for the pieces a split leaves.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

import openai
import pytest
import yaml
from _e2e_support import calls
from mcptui.emulator.demo_server import build_app
from mcptui.net.serve import ServerThread
from openai import OpenAI
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from test_run_cli import cli_env, run_cli

pytestmark = pytest.mark.xdist_group("test_secrets_everywhere")
"""One worker runs this module (`--dist loadgroup`, pyproject.toml): otherwise
its module fixture runs every command once in each worker that runs one of its tests."""

API_KEY = "sk-proj-LIVEk3y9Qw7Zx2Vb5Nm"
HEADER_KEY = "xak7Hq2Lm9Pz4Wd6"
COOKIE = "ckS3ss10nV4lu3Qz"
BARE_BEARER = "brT0k3nN0Pr3f1x8"
PATH_TOKEN = "pthT0k3nA1b2C3d4"
QUERY_TOKEN = "qryT0k3nE5f6G7h8"
PASSWORD = "pwdS3cr3tI9j0K1l"
API_QUERY = "apiQ7r8s9T0u1V2w"
"""An `?api_key=` on the API's own URL (a proxied app's `default_query`)."""

SECRETS = (API_KEY, HEADER_KEY, COOKIE, BARE_BEARER, PATH_TOKEN, QUERY_TOKEN, PASSWORD, API_QUERY)
ECHO = " ".join(SECRETS)
"""What the model and the tool echo: every secret, in the clear."""


def pieces(secret: str) -> list[str]:
    """The secret and the obvious pieces of it a split leaves: every run of 8 of its
    characters (each split of it into three leaves one of them whole)."""
    return [secret[at : at + 8] for at in range(0, len(secret) - 7)]


def split_each(text: str) -> list[str]:
    """`text` cut into deltas so that each secret in it lands in three of them."""
    cuts = sorted(
        {
            at + offset
            for secret in SECRETS
            for at in _starts(text, secret)
            for offset in (5, len(secret) // 2 + 1)
        }
    )
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in pairwise(bounds) if b > a]


def _starts(text: str, secret: str) -> list[int]:
    return [m.start() for m in re.finditer(re.escape(secret), text)]


# -- a Responses API that echoes every secret, in split deltas ----------------------------------


def tool(origin: str) -> dict[str, Any]:
    """An MCP tool whose URL and headers carry the planted secrets."""
    host = origin.removeprefix("http://")
    return {
        "type": "mcp",
        "server_label": "demo",
        "server_url": f"http://user:{PASSWORD}@{host}/s/{PATH_TOKEN}/mcp?token={QUERY_TOKEN}"
        f"&api_key={API_QUERY}",
        "headers": {"X-Api-Key": HEADER_KEY, "Cookie": f"sid={COOKIE}"},
        "authorization": BARE_BEARER,
        "require_approval": "never",
    }


def request(origin: str, **fields: Any) -> dict[str, Any]:
    return {
        "model": "gpt-5-mini",
        "input": f"please echo {ECHO}",
        "tools": [tool(origin)],
        **fields,
    }


def stream_events() -> list[dict[str, Any]]:
    """A clean stream: an mcp_call whose arguments and output echo the secrets, then a
    message whose text does, each echo split across deltas."""
    arguments = json.dumps({"query": ECHO})
    text = f"The tool said: {ECHO}."
    call = {
        "type": "mcp_call",
        "id": "mcp_1",
        "server_label": "demo",
        "name": "search",
        "arguments": "",
        "status": "in_progress",
    }
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "in_progress",
        "content": [],
    }
    done_call = {
        **call,
        "arguments": arguments,
        "output": f"found: {ECHO}",
        "error": None,
        "status": "completed",
    }
    part = {"type": "output_text", "text": text, "annotations": []}
    done_message = {**message, "status": "completed", "content": [part]}
    response = {
        "id": "resp_secret1",
        "object": "response",
        "status": "in_progress",
        "model": "gpt-5-mini",
        "output": [],
    }
    out: list[dict[str, Any]] = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": call},
    ]
    out += [
        {
            "type": "response.mcp_call_arguments.delta",
            "output_index": 0,
            "item_id": "mcp_1",
            "delta": piece,
        }
        for piece in split_each(arguments)
    ]
    out += [
        {
            "type": "response.mcp_call_arguments.done",
            "output_index": 0,
            "item_id": "mcp_1",
            "arguments": arguments,
        },
        {"type": "response.mcp_call.completed", "output_index": 0, "item_id": "mcp_1"},
        {"type": "response.output_item.done", "output_index": 0, "item": done_call},
        {"type": "response.output_item.added", "output_index": 1, "item": message},
        {
            "type": "response.content_part.added",
            "output_index": 1,
            "item_id": "msg_1",
            "content_index": 0,
            "part": {**part, "text": ""},
        },
    ]
    out += [
        {
            "type": "response.output_text.delta",
            "output_index": 1,
            "item_id": "msg_1",
            "content_index": 0,
            "delta": piece,
        }
        for piece in split_each(text)
    ]
    out += [
        {
            "type": "response.output_text.done",
            "output_index": 1,
            "item_id": "msg_1",
            "content_index": 0,
            "text": text,
        },
        {
            "type": "response.content_part.done",
            "output_index": 1,
            "item_id": "msg_1",
            "content_index": 0,
            "part": part,
        },
        {"type": "response.output_item.done", "output_index": 1, "item": done_message},
        {
            "type": "response.completed",
            "response": {**response, "status": "completed", "output": [done_call, done_message]},
        },
    ]
    return [{**event, "sequence_number": number} for number, event in enumerate(out)]


def sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


ERROR_BODY = {
    "error": {
        "type": "invalid_request_error",
        "code": None,
        "param": None,
        "message": f"Error retrieving tool list: {ECHO} was refused",
    }
}


async def responses(request: Request) -> Response:
    body = await request.json()
    headers = {"x-request-id": "req_secret1", "openai-organization": f"org-{COOKIE}"}
    if (body.get("metadata") or {}).get("fail"):
        return JSONResponse(ERROR_BODY, status_code=400, headers=headers)
    return Response(sse(stream_events()), media_type="text/event-stream", headers=headers)


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    app = Starlette(routes=[Route("/v1/responses", responses, methods=["POST"])])
    with ServerThread(app) as server:
        yield f"{server.url}/v1"


# -- archives of the same exchange ---------------------------------------------------------------


def archives(folder: Path, origin: str) -> list[Path]:
    """The exchange as a HAR, a VCR cassette and a test-proxy record would hold it."""
    url = f"https://api.openai.com/v1/responses?api_key={API_QUERY}"
    body = json.dumps({**request(origin), "stream": True})
    answer = sse(stream_events())
    har = {
        "log": {
            "version": "1.2",
            "entries": [
                {
                    "startedDateTime": "2025-01-01T00:00:00Z",
                    "time": 10,
                    "request": {
                        "method": "POST",
                        "url": url,
                        "headers": [{"name": "Authorization", "value": f"Bearer {API_KEY}"}],
                        "postData": {"mimeType": "application/json", "text": body},
                    },
                    "response": {
                        "status": 200,
                        "headers": [{"name": "content-type", "value": "text/event-stream"}],
                        "content": {"mimeType": "text/event-stream", "text": answer},
                    },
                }
            ],
        }
    }
    cassette = {
        "interactions": [
            {
                "request": {
                    "method": "POST",
                    "uri": url,
                    "body": body,
                    "headers": {"Authorization": [f"Bearer {API_KEY}"]},
                },
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"Content-Type": ["text/event-stream"]},
                    "body": {"string": answer},
                },
            }
        ]
    }
    proxied = {
        "Entries": [
            {
                "RequestUri": url,
                "RequestMethod": "POST",
                "RequestHeaders": {
                    "Authorization": f"Bearer {API_KEY}",
                    "Content-Type": "application/json",
                },
                "RequestBody": json.loads(body),
                "StatusCode": 200,
                "ResponseHeaders": {"Content-Type": "text/event-stream"},
                "ResponseBody": answer,
            }
        ]
    }
    paths = [folder / "traffic.har", folder / "cassette.yaml", folder / "test-proxy.json"]
    paths[0].write_text(json.dumps(har))
    paths[1].write_text(yaml.safe_dump(cassette))
    paths[2].write_text(json.dumps(proxied))
    return paths


def foreign_recording(folder: Path, origin: str) -> Path:
    """A recording written by someone else: the secrets in clear in its header, and a delta
    that echoes a URL token before the request note that names that URL."""
    header = {
        "mcptui": "recording",
        "format": 1,
        "created": "2025-01-01T00:00:00+00:00",
        "source": {"kind": "live"},
        "request": request(origin),
    }
    lines = [header]
    events = stream_events()
    lines += [{"t": 0.01 * n, "event": e} for n, e in enumerate(events)]
    later = request(origin.replace("127.0.0.1", "localhost"))
    later["tools"][0]["server_url"] = f"{origin}/s/later{PATH_TOKEN[::-1]}9/mcp"
    lines.insert(
        3,
        {
            "t": 0.02,
            "note": {
                "kind": "request",
                "level": "info",
                "message": "POST /responses: HTTP 200",
                "request": later,
            },
        },
    )
    path = folder / "foreign.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


# -- what was written ----------------------------------------------------------------------------


@dataclass
class Written:
    folder: Path
    streams: dict[str, str] = field(default_factory=dict)
    """Label → stdout or stderr of a command."""
    codes: dict[str, int] = field(default_factory=dict)

    def keep(self, label: str, done: subprocess.CompletedProcess[str]) -> None:
        self.streams[f"{label} stdout"] = done.stdout
        self.streams[f"{label} stderr"] = done.stderr
        self.codes[label] = done.returncode

    def leaks(self) -> list[str]:
        """`where: piece` for each planted secret (or piece of one) found."""
        texts = dict(self.streams)
        for path in sorted(self.folder.rglob("*")):
            if path.is_file() and path.name not in PLANTED:
                texts[str(path.relative_to(self.folder))] = path.read_text(errors="replace")
        found = []
        for where, text in texts.items():
            # A bare stream names no secret: only what looks like one can be hidden in it.
            for secret in (API_KEY,) if "stream" in where.split(":")[0] else SECRETS:
                hit = next((piece for piece in pieces(secret) if piece in text), None)
                if hit is not None:
                    found.append(f"{where}: {secret} ({hit})")
        return found


PLANTED = {
    "request.json",
    "failing.json",
    "traffic.har",
    "cassette.yaml",
    "test-proxy.json",
    "foreign.jsonl",
    "stream.sse",
    "tapped.json",
}
"""Files the test itself wrote, secrets and all: inputs, not outputs."""


def readers(path: Path, *, step: int | None = None) -> list[tuple[str, list[str]]]:
    """Every command that reads a file, on `path` (label, arguments); outputs beside it."""
    stem = path.stem
    return [
        (f"{label} {path.name}", args)
        for label, args in (
            ("inspect", ["inspect", str(path)]),
            ("inspect --json", ["inspect", "--json", str(path)]),
            ("inspect --strict", ["inspect", "--strict", str(path)]),
            ("report md", ["report", str(path), "-o", f"{stem}-report.md"]),
            ("report html", ["report", str(path), "-o", f"{stem}-report.html"]),
            ("export curl", ["export", str(path), "--format", "curl", "-o", f"{stem}.sh"]),
            ("export python", ["export", str(path), "--format", "python", "-o", f"{stem}.py"]),
            (
                "export request",
                ["export", str(path), "--format", "request", "-o", f"{stem}-request.json"],
            ),
            ("screenshot", ["replay", str(path), "--screenshot", f"{stem}.svg"]),
            *(
                (
                    (
                        "screenshot step",
                        [
                            "replay",
                            str(path),
                            "--step",
                            str(step),
                            "--screenshot",
                            f"{stem}-step.svg",
                        ],
                    ),
                )
                if step is not None
                else ()
            ),
        )
    ]


def run_readers(written: Written, commands: list[tuple[str, list[str]]]) -> None:
    """The reading commands in two processes (two cores), each running its half one after
    the other as `main(argv)` with its own stdout and stderr (_cli_batch.py): the same
    commands, files and streams as ~100 fresh interpreters, without ~100 s of CPU spent
    importing mcptui again and again. `run`, `proxy`, `emulate`, `probe` and the crash keep
    their own real processes."""
    halves = [commands[::2], commands[1::2]]
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(lambda half: run_batch(written.folder, half), halves))
    for half, results in zip(halves, done, strict=True):
        for (label, _), result in zip(half, results, strict=True):
            written.keep(label, result)


def run_batch(
    folder: Path, commands: list[tuple[str, list[str]]]
) -> list[subprocess.CompletedProcess[str]]:
    batch = folder.parent / f"{folder.name}-batch-{id(commands)}"
    batch.mkdir()
    (batch / "commands.json").write_text(json.dumps([args for _, args in commands]))
    finished = subprocess.run(
        [sys.executable, str(BATCH), str(batch / "commands.json"), str(batch / "results.json")],
        cwd=folder,
        env=cli_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert finished.returncode == 0, finished.stderr
    results = []
    for (label, args), result in zip(
        commands, json.loads((batch / "results.json").read_text()), strict=True
    ):
        out, err = result["stdout"], result["stderr"]
        assert "Traceback" not in out + err, f"{label}: {err}"
        results.append(subprocess.CompletedProcess(args, result["code"], out, err))
    return results


BATCH = Path(__file__).with_name("_cli_batch.py")


def run_live(written: Written, upstream: str, origin: str) -> None:
    folder = written.folder
    (folder / "request.json").write_text(json.dumps(request(origin)))
    (folder / "failing.json").write_text(json.dumps(request(origin, metadata={"fail": "1"})))
    env = cli_env(api_key=API_KEY)
    for name, record in (("request.json", "run.jsonl"), ("failing.json", "run-failed.jsonl")):
        written.keep(
            f"run {name}",
            run_cli(
                ["run", name, "--no-tui", "--base-url", upstream, "--record", record], folder, env
            ),
        )


def run_proxy(written: Written, upstream: str, origin: str) -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcptui",
            "proxy",
            "--no-tui",
            "--port",
            "0",
            "--upstream",
            upstream,
            "--record",
            "proxied",
        ],
        cwd=written.folder,
        env=cli_env(api_key=None),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    first = process.stdout.readline()
    found = re.search(r"(http://127\.0\.0\.1:\d+)/v1 → ", first)
    try:
        assert found, first
        with OpenAI(
            base_url=f"{found.group(1)}/v1",
            api_key=API_KEY,
            max_retries=0,
            default_query={"api_key": API_QUERY},
        ) as app:
            with app.responses.stream(**request(origin)) as stream:
                for _ in stream:
                    pass
            with pytest.raises(openai.BadRequestError):
                app.responses.create(**request(origin, metadata={"fail": "1"}), stream=True)
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    written.streams["proxy stdout"] = first + out
    written.streams["proxy stderr"] = err


def run_tap(written: Written) -> None:
    """`run --tap` through the offline `mcptui emulate` (its log kept) to a demo server at a
    secret path: the tool's arguments and output echo the secrets."""
    folder = written.folder
    emulate = subprocess.Popen(
        [sys.executable, "-m", "mcptui", "emulate", "--port", "0", "--tool-timeout", "5"],
        cwd=folder,
        env=cli_env(api_key=None),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert emulate.stdout is not None
    first = emulate.stdout.readline()
    found = re.search(r"(http://127\.0\.0\.1:\d+)/v1", first)
    try:
        assert found, first
        with ServerThread(build_app(path_token=PATH_TOKEN)) as mcp:
            tapped = {**tool(mcp.url)}
            host = mcp.url.removeprefix("http://")
            tapped["server_url"] = (
                f"http://user:{PASSWORD}@{host}/s/{PATH_TOKEN}/mcp"
                f"?token={QUERY_TOKEN}&api_key={API_QUERY}"
            )
            # Two calls, each echoing half the secrets with no hits: the scripted model clips
            # a long output at 160 characters (a secret cut in two is not one to find).
            halves = (" ".join(SECRETS[:4]), " ".join(SECRETS[4:]))
            body = {
                "model": "gpt-5-mini",
                "tools": [tapped],
                "input": calls(
                    f"echo {ECHO}", *(("search", {"query": half, "limit": 0}) for half in halves)
                ),
            }
            (folder / "tapped.json").write_text(json.dumps(body))
            written.keep(
                "run --tap",
                run_cli(
                    [
                        "run",
                        "tapped.json",
                        "--no-tui",
                        "--tap",
                        "--base-url",
                        f"{found.group(1)}/v1",
                        "--record",
                        "tap-run.jsonl",
                    ],
                    folder,
                    cli_env(api_key=API_KEY),
                ),
            )
            written.keep(
                "probe",
                run_cli(
                    [
                        "probe",
                        tapped["server_url"],
                        "--header",
                        f"X-Api-Key={HEADER_KEY}",
                        "--header",
                        f"Cookie=sid={COOKIE}",
                        "--header",
                        f"Authorization={BARE_BEARER}",
                        "--tool",
                        "search",
                        "--args",
                        json.dumps({"query": ECHO}),
                    ],
                    folder,
                ),
            )
            # An MCP URL whose listing fails: the emulator logs it.
            broken = {**tapped, "server_url": f"{mcp.url}/s/no{PATH_TOKEN}/mcp?api_key={API_QUERY}"}
            with (
                OpenAI(base_url=f"{found.group(1)}/v1", api_key=API_KEY, max_retries=0) as app,
                pytest.raises(openai.APIStatusError),
            ):
                app.responses.create(model="gpt-5-mini", input="q", tools=[broken])
    finally:
        emulate.send_signal(signal.SIGINT)
        out, err = emulate.communicate(timeout=20)
    written.streams["emulate stdout"] = first + out
    written.streams["emulate stderr"] = err


def crash(written: Written) -> None:
    """An internal error with secrets on the command line: the crash log and stderr."""
    script = (
        "import sys, mcptui.cli.main as cli\n"
        "def boom(args): raise RuntimeError('boom')\n"
        "cli.dispatch = boom\n"
        "sys.argv[0] = 'mcptui'\n"
        "sys.exit(cli.main())\n"
    )
    argv = [
        "probe",
        f"http://user:{PASSWORD}@h/s/{PATH_TOKEN}/mcp?token={QUERY_TOKEN}",
        "--header",
        f"X-Api-Key={HEADER_KEY}",
        "--header",
        f"Cookie=sid={COOKIE}",
        "--header",
        f"Authorization={BARE_BEARER}",
        "--header",
        f"X-Other={API_QUERY}",
        "--header",
        f"X-Openai-Key={API_KEY}",
    ]
    done = subprocess.run(
        [sys.executable, "-c", script, *argv],
        cwd=written.folder,
        env=cli_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3, done.stderr
    written.keep("crash", done)


@pytest.fixture(scope="module")
def written(upstream: str, tmp_path_factory: pytest.TempPathFactory) -> Written:
    folder = tmp_path_factory.mktemp("secrets")
    origin = upstream.removesuffix("/v1")
    written = Written(folder)
    run_live(written, upstream, origin)
    run_proxy(written, upstream, origin)
    run_tap(written)
    crash(written)
    (folder / "stream.sse").write_text(sse(stream_events()))
    inputs = [
        folder / "run.jsonl",
        folder / "run-failed.jsonl",
        folder / "tap-run.jsonl",
        *sorted((folder / "proxied").glob("*.jsonl")),
        folder / "stream.sse",
        *archives(folder, origin),
    ]
    commands = [command for path in inputs for command in readers(path)]
    commands += readers(foreign_recording(folder, origin), step=3)
    run_readers(written, commands)
    return written


def test_no_planted_secret_in_any_output(written: Written):
    leaks = written.leaks()
    assert leaks == [], f"{len(leaks)} leaks:\n" + "\n".join(leaks)


def test_a_clean_stream_with_split_secrets_passes_strict(written: Written):
    """Hiding a secret split across deltas keeps deltas and `.done` consistent."""
    strict = {
        label: code
        for label, code in written.codes.items()  # the refused one aside
        if label.startswith("inspect --strict") and "failed" not in label and "pending" not in label
    }
    assert strict and all(code == 0 for code in strict.values()), strict


def test_the_commands_ran(written: Written):
    """The outputs searched are real ones: each command did its work."""
    assert written.codes["run request.json"] == 0, written.streams["run request.json stderr"]
    assert (written.folder / "run.jsonl").exists()
    assert len(list((written.folder / "proxied").glob("*.jsonl"))) >= 1
    assert (written.folder / "tap-run.jsonl").exists()
    assert (written.folder / "mcptui-recordings" / "mcptui-error.log").exists()
    assert (written.folder / "run-report.html").exists()
    assert (written.folder / "foreign-step.svg").exists()
    assert "search" in (written.folder / "tap-run.jsonl").read_text()
