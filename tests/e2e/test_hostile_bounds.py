"""Hostile inputs run the commands in bounded memory (issue 35, "Bounded time and memory").

Each command runs as a process of its own with its address space capped at a fixed base plus
three times the input's size (RLIMIT_AS) and a generous timeout: runaway guards, not speed
targets. Before the fixes each of these went past its cap (MemoryError, exit 3) or ran for
minutes.

The process is forked from one that has imported mcptui (tests/_cli_fork.py, ~1.5 s of CPU
less a command), so it starts holding that one's address space: its cap is what it holds then
plus the base less IMPORTED, the same room for the command's work as a fresh `python -m mcptui`
has once it has imported what the command needs. One case keeps the real process.
"""

from __future__ import annotations

import base64
import gzip
import json
import resource
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from _cli_fork import forked_cli, real_cli

BASE = 400 << 20
"""Address space of `mcptui export` / `inspect` on a tiny file, with room to spare (the
openai SDK's types, thread stacks and malloc arenas are reserved, not resident)."""
TIMEOUT = 120
IMPORTED = 64 << 20
"""Address space of a fresh `python -m mcptui inspect --json` of a tiny file at its peak (71 MB
measured; 18 MB when `main` starts): the interpreter and the modules a command imports, which
a forked child holds already."""


def capped_cli(
    args: list[str], cwd: Path, input_size: int, base: int = BASE, *, real: bool = False
) -> subprocess.CompletedProcess[str]:
    """`mcptui ARGS` with its address space capped at `base` + 3x the input's size: forked
    (_cli_fork.py) with the room that leaves beyond the imports, or with `real` as a
    `python -m mcptui` of its own capped at exactly that."""
    cap = base + 3 * input_size

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    if real:
        done = real_cli(args, cwd, timeout=TIMEOUT, preexec_fn=limit)
    else:
        done = forked_cli(args, cwd, timeout=TIMEOUT, memory=cap - IMPORTED)
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    return done


def header(server_url: str = "https://mcp.example.com/mcp") -> dict[str, object]:
    return {
        "mcptui": "recording",
        "format": 1,
        "source": {"kind": "test"},
        "request": {
            "model": "gpt-5-mini",
            "input": "hi",
            "stream": True,
            "tools": [
                {
                    "type": "mcp",
                    "server_label": "docs",
                    "server_url": server_url,
                    "require_approval": "never",
                }
            ],
        },
        "endpoint": "https://api.openai.com/v1/responses",
    }


def delta(text: str, sequence: int = 1) -> dict[str, object]:
    return {
        "type": "response.output_text.delta",
        "sequence_number": sequence,
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": text,
    }


LONG = 8 << 20
"""A long string: at ~120 bytes of regex state per character it needed about 1 GB."""


def test_json_lines_with_many_brackets_and_a_long_string_read_in_bounded_memory(tmp_path: Path):
    """More than 100 brackets made the whole text go through the depth scan, whose string
    pattern kept regex state for every character of a long string."""
    created = {
        "type": "response.created",
        "sequence_number": 0,
        "response": {"id": "resp_1", "output": [[] for _ in range(101)]},
    }
    path = tmp_path / "deep-long.jsonl"
    path.write_text(json.dumps(created) + "\n" + json.dumps(delta("a" * LONG)) + "\n")

    done = capped_cli(["inspect", "--json", path.name], tmp_path, path.stat().st_size)

    assert done.returncode in (0, 1), done.stderr
    assert json.loads(done.stdout)["files"][0]["events"] == 2


def test_export_of_a_recording_with_one_long_delta_runs_in_bounded_memory(tmp_path: Path):
    path = tmp_path / "long-delta.jsonl"
    path.write_text(
        json.dumps(header())
        + "\n"
        + json.dumps({"t": 0.1, "event": delta("[" * 101 + "a" * LONG)})
        + "\n"
    )

    done = capped_cli(["export", path.name], tmp_path, path.stat().st_size)

    assert done.returncode == 0, done.stderr
    assert "curl -sS -N" in done.stdout and "https://mcp.example.com/mcp" in done.stdout


def test_export_of_a_server_url_with_many_secret_segments_is_linear(tmp_path: Path):
    """Each of N secret path segments carried (and the script's comment printed) the whole
    URL with its N variables: N² memory, 669 MB for 2,000 segments, 24 GB for 20,000."""
    segments = [f"k{n:08d}Xw2pQzAbCdEfGh" for n in range(6000)]
    path = tmp_path / "url.jsonl"
    path.write_text(json.dumps(header("https://mcp.example.com/" + "/".join(segments))) + "\n")

    done = capped_cli(["export", path.name], tmp_path, path.stat().st_size)

    assert done.returncode == 0, done.stderr
    assert not [segment for segment in segments if segment in done.stdout]
    url = "https://mcp.example.com/" + "/".join(f"${{DOCS_URL_SECRET_{n}}}" for n in range(1, 6001))
    assert done.stdout.count(url) == 1  # shown once, in the comment; the body quotes it
    assert (
        "DOCS_URL_SECRET_6000  the secret in the URL of the docs server: see "
        "DOCS_URL_SECRET_1" in done.stdout
    )


def gzip_of_zeros(megabytes: int) -> bytes:
    """A valid gzip body of `megabytes` MB of zeros, built in ~0.4 s instead of ~5 s of zlib:
    each MB is compressed after a full flush (which resets the window), so every MB after
    the first compresses to the same bytes, repeated; the trailer gets the CRC and size of
    the whole (gzip.decompress reads it back whole: checked by the test below)."""
    zeros = bytes(1 << 20)
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    first = packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH)
    again = packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH)
    end = packer.flush()
    crc = 0
    for _ in range(megabytes):
        crc = zlib.crc32(zeros, crc)
    size = (megabytes << 20) & 0xFFFFFFFF
    return first + again * (megabytes - 1) + end[:-8] + struct.pack("<II", crc, size)


def test_the_gzip_of_zeros_is_what_it_says():
    body = gzip_of_zeros(3)
    assert gzip.decompress(body) == bytes(3 << 20)


def gzip_bomb_cassette(path: Path, megabytes: int) -> None:
    """A VCR cassette whose streamed answer is a gzip body of `megabytes` MB of zeros."""
    body = gzip_of_zeros(megabytes)
    lines = "".join(f"          {line}\n" for line in base64.encodebytes(body).decode().split())
    path.write_text(
        "interactions:\n"
        "- request:\n"
        '    body: \'{"model": "gpt-5-mini", "input": "hi", "stream": true}\'\n'
        "    headers: {}\n"
        "    method: POST\n"
        "    uri: https://api.openai.com/v1/responses\n"
        "  response:\n"
        "    body:\n"
        "      string: !!binary |\n" + lines + "    headers:\n"
        "      Content-Encoding: [gzip]\n"
        "      Content-Type: [text/event-stream]\n"
        "    status: {code: 200, message: OK}\n"
        "version: 1\n"
    )


def test_a_gzip_bomb_in_a_cassette_is_refused_at_max_bytes(tmp_path: Path):
    """A 1 MB body that inflates to 1 GB: decompressed only up to --max-bytes, then refused
    with exit 2 and a message naming the limit and the flag (it was MemoryError, exit 3)."""
    path = tmp_path / "bomb.yaml"
    gzip_bomb_cassette(path, 1024)

    done = capped_cli(
        ["inspect", "--max-bytes", "50000000", path.name], tmp_path, path.stat().st_size
    )

    assert done.returncode == 2, done.stderr
    assert (
        "the response body of interaction 1 (gzip) decompresses to more than --max-bytes "
        "50,000,000 (47.7 MB) (a compression bomb?): pass a larger --max-bytes to read it"
    ) in " ".join(done.stderr.split())


def test_a_listing_of_many_tools_is_checked_in_bounded_memory(tmp_path: Path):
    """Each of 200,000 tools was validated against every item type of the SDK's union: 3.6 GB
    and 21 s. The first thousand elements of a list are checked."""
    tools = [
        {
            "name": f"tool_{n}",
            "description": "Looks something up.",
            "input_schema": {"type": "object", "properties": {}},
        }
        for n in range(50_000)
    ]
    item = {"id": "mcpl_1", "type": "mcp_list_tools", "server_label": "docs", "tools": tools}
    events = [
        {
            "type": "response.created",
            "sequence_number": 0,
            "response": {"id": "resp_1", "status": "in_progress", "output": []},
        },
        {
            "type": "response.output_item.added",
            "sequence_number": 1,
            "output_index": 0,
            "item": {**item, "tools": []},
        },
        {
            "type": "response.output_item.done",
            "sequence_number": 2,
            "output_index": 0,
            "item": item,
        },
    ]
    path = tmp_path / "tools.jsonl"
    path.write_text(
        json.dumps(header())
        + "\n"
        + "".join(json.dumps({"t": 0.1, "event": e}) + "\n" for e in events)
    )

    done = capped_cli(["inspect", "--json", path.name], tmp_path, path.stat().st_size)

    assert done.returncode in (0, 1), done.stderr
    shown = json.loads(done.stdout)
    assert shown["files"][0]["events"] == 3
    assert shown["responses"][0]["items"][0]["type"] == "mcp_list_tools"


def test_a_small_dump_is_read_without_reserving_max_bytes(tmp_path: Path):
    """`read(max_bytes + 1)` reserved 256 MiB for any file that is not a recording: a tiny SSE
    dump died of MemoryError (exit 3) under a 250 MB address-space cap."""
    path = tmp_path / "tiny.sse"
    path.write_text(
        'data: {"type": "response.created", "sequence_number": 0, "response": '
        '{"id": "resp_1", "status": "in_progress", "output": []}}\n\n'
    )

    done = capped_cli(
        ["inspect", "--json", path.name], tmp_path, path.stat().st_size, base=250 << 20, real=True
    )

    assert done.returncode in (0, 1), done.stderr
    assert json.loads(done.stdout)["files"][0]["events"] == 1


EVENTS = 1_000_000


@pytest.mark.parametrize("name", ["keepalive.sse", "keepalive.jsonl"])
def test_millions_of_identical_typeless_events_are_folded_in_bounded_memory(
    tmp_path: Path, name: str
):
    """3M `data: {}` (30 MB) took 44 s and 1.74 GB, each kept as an event with its problem
    and findings: a run of identical events with no type is kept as its first, counted.

    1M of them are enough to tell (and cost a third of the CPU): at the old ~580 bytes per
    event they need ~580 MB for the events alone, more than the whole cap (400 MB + 3 x 10
    MB), whatever the interpreter's own share."""
    path = tmp_path / name
    path.write_text(
        'data: {"type": "response.created", "sequence_number": 0, "response": '
        '{"id": "resp_1", "status": "in_progress", "output": []}}\n\n'
        if name.endswith(".sse")
        else '{"type": "response.created", "sequence_number": 0, "response": '
        '{"id": "resp_1", "status": "in_progress", "output": []}}\n'
    )
    with path.open("a") as handle:
        handle.write(("data: {}\n\n" if name.endswith(".sse") else "{}\n") * EVENTS)

    done = capped_cli(["inspect", "--json", path.name], tmp_path, path.stat().st_size)

    assert done.returncode in (0, 1), done.stderr
    shown = json.loads(done.stdout)
    assert shown["files"][0]["events"] == 2
    assert any(
        f"{EVENTS - 1} more identical events with no type" in p["message"]
        for p in shown["problems"]
    ), shown["problems"]
