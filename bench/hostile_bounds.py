"""Time and peak memory of the commands on hostile inputs (issue 35, "Bounded time and memory").

Each case writes one hostile file (once, into bench/out/hostile/) and runs one command on it in
a fresh process, guarded by an address-space cap and a timeout, so a runaway shows as `killed`
instead of taking the machine. The anchor is a fresh process that only loads the same file
(`json.loads` of every line that parses, kept in a list; the YAML loader for a cassette): the
least any reader pays. Figures are wall seconds and the child's peak RSS (ru_maxrss), and that
peak beyond the same command's on a tiny recording (its fixed base: imports), against the
input's size.

  deep+long JSONL  two lines, one with 101 brackets, one with a 10 MB string (`too_deep_at`)
  30 MB delta      a recording with one 30 MB text delta (101 `[` in it), exported (curl)
  url 2k / 20k     a recording whose server_url has 2,000 / 20,000 token-like path segments,
                   exported
  gzip bomb        a VCR cassette whose gzip body decompresses to `--bomb-gb` GB of zeros
  3M empty SSE     `data: {}` x 3,000,000 (30 MB), inspect --json
  200k tools       one mcp_list_tools item listing 200,000 tools, inspect --json

Goal (issue 35): time linear with a small constant, memory within 3x the file beyond a fixed
base (the anchor's own base is ~15 MB).

Measured on the shared 2-core development machine (busy: the anchors ran 2-10x slow),
`--cap-gb 4 --timeout 120`, seconds and peak RSS, before (e2bd2a9) and after this branch:
  deep+long JSONL 10 MB     6.2 s  1294 MB              10.9 s  114 MB
  30 MB delta export        9.8 s  3445 MB (killed)      5.7 s  292 MB
  url 2,000 segments        8.8 s   742 MB               2.8 s   27 MB
  url 20,000 segments     >120 s   1848 MB (timeout)    10.3 s   61 MB
  gzip bomb (1 GB zeros)   17.8 s  2089 MB              11.6 s  552 MB  (refused, exit 2)
  3M empty SSE events     >120 s   1359 MB (timeout)   >120 s  1117 MB  (not yet bounded)
  200k tools               83.6 s  3323 MB (aborted)    11.1 s  274 MB
(A run of the base on /tmp/base: `git archive e2bd2a9 tui | tar -x -C /tmp/base`, then run
this script from /tmp/base: `python -m mcptui` imports the tui of the working directory.)

Run: `.venv/bin/python bench/hostile_bounds.py [--scale S] [--cap-gb G] [--timeout T]`
(`--scale 0.1` for a quick look; the files are regenerated when the scale changes).
"""

from __future__ import annotations

import argparse
import base64
import json
import resource
import subprocess
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

OUT_DIR = Path(__file__).resolve().parent / "out" / "hostile"
MB = 1 << 20

ANCHOR_JSON = (
    "import json, sys\n"
    "rows = []\n"
    "for line in open(sys.argv[1], 'rb').read().decode().split('\\n'):\n"
    "    line = line.removeprefix('data: ')\n"
    "    if not line:\n"
    "        continue\n"
    "    try:\n"
    "        rows.append(json.loads(line))\n"
    "    except ValueError:\n"
    "        pass\n"
    "print(len(rows))\n"
)
ANCHOR_YAML = (
    "import sys, yaml\nprint(len(yaml.load(open(sys.argv[1]).read(), Loader=yaml.CSafeLoader)))\n"
)


def header(server_url: str = "https://mcp.example.com/mcp") -> dict[str, object]:
    return {
        "mcptui": "recording",
        "format": 1,
        "source": {"kind": "bench"},
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


def record(event: dict[str, object], t: float = 0.1) -> str:
    return json.dumps({"t": t, "event": event}) + "\n"


def deep_long_jsonl(path: Path, scale: float) -> None:
    brackets = {
        "type": "response.created",
        "sequence_number": 0,
        "response": {"id": "resp_1", "output": [[] for _ in range(101)]},
    }
    delta = {
        "type": "response.output_text.delta",
        "sequence_number": 1,
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": "a" * int(10 * MB * scale),
    }
    path.write_text(json.dumps(brackets) + "\n" + json.dumps(delta) + "\n")


def big_delta_recording(path: Path, scale: float) -> None:
    delta = {
        "type": "response.output_text.delta",
        "sequence_number": 1,
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": "[" * 101 + "a" * int(30 * MB * scale),
    }  # brackets: `too_deep_at` scans
    path.write_text(json.dumps(header()) + "\n" + record(delta))


def token_segments(count: int) -> str:
    """A server URL with `count` distinct token-like path segments (27 bytes each)."""
    return "https://mcp.example.com/" + "/".join(f"k{i:08d}Xw2pQzAbCdEfGh" for i in range(count))


def url_recording(count: int) -> Callable[[Path, float], None]:
    def make(path: Path, scale: float) -> None:
        created = {
            "type": "response.created",
            "sequence_number": 0,
            "response": {"id": "resp_1", "status": "in_progress", "output": []},
        }
        path.write_text(
            json.dumps(header(token_segments(int(count * scale)))) + "\n" + record(created)
        )

    return make


def gzip_bomb(gigabytes: float) -> Callable[[Path, float], None]:
    def make(path: Path, scale: float) -> None:
        packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip framing
        zeros = bytes(MB)
        body = b"".join(packer.compress(zeros) for _ in range(int(gigabytes * 1024 * scale)))
        body += packer.flush()
        encoded = base64.encodebytes(body).decode()
        indented = "".join("          " + line + "\n" for line in encoded.splitlines())
        path.write_text(
            "interactions:\n"
            "- request:\n"
            '    body: \'{"model": "gpt-5-mini", "input": "hi", "stream": true}\'\n'
            "    headers: {}\n"
            "    method: POST\n"
            "    uri: https://api.openai.com/v1/responses\n"
            "  response:\n"
            "    body:\n"
            "      string: !!binary |\n" + indented + "    headers:\n"
            "      Content-Encoding: [gzip]\n"
            "      Content-Type: [text/event-stream]\n"
            "    status: {code: 200, message: OK}\n"
            "version: 1\n"
        )

    return make


def empty_sse(path: Path, scale: float) -> None:
    path.write_bytes(b"data: {}\n\n" * int(3_000_000 * scale))


def many_tools(path: Path, scale: float) -> None:
    tools = [
        {
            "name": f"tool_{i}",
            "description": "Looks something up.",
            "input_schema": {"type": "object", "properties": {}},
        }
        for i in range(int(200_000 * scale))
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
    path.write_text(json.dumps(header()) + "\n" + "".join(record(e) for e in events))


@dataclass(frozen=True)
class Case:
    name: str
    file: str
    make: Callable[[Path, float], None]
    command: tuple[str, ...]
    anchor: str = ANCHOR_JSON


def cases(bomb_gb: float) -> list[Case]:
    return [
        Case("deep+long JSONL", "deep-long.jsonl", deep_long_jsonl, ("inspect", "--json")),
        Case("30 MB delta export", "delta-30mb.jsonl", big_delta_recording, ("export",)),
        Case("url 2,000 segments", "url-2k.jsonl", url_recording(2_000), ("export",)),
        Case("url 20,000 segments", "url-20k.jsonl", url_recording(20_000), ("export",)),
        Case(
            "gzip bomb cassette",
            "bomb.yaml",
            gzip_bomb(bomb_gb),
            ("inspect", "--json"),
            ANCHOR_YAML,
        ),
        Case("3M empty SSE events", "empty.sse", empty_sse, ("inspect", "--json")),
        Case("200k tools", "tools-200k.jsonl", many_tools, ("inspect", "--json")),
    ]


def capped(limit: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


def timed(argv: list[str], cap: int, timeout: float) -> tuple[float, int, str]:
    """Wall seconds, peak RSS (bytes) and how it ended, of one child in a fresh process."""
    start = time.perf_counter()
    child = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=capped(cap)
    )
    try:
        _, stderr = child.communicate(timeout=timeout)
        ended = f"exit {child.returncode}"
    except subprocess.TimeoutExpired:
        child.kill()
        _, stderr = child.communicate()
        ended = f"timeout {timeout:g}s"
    elapsed = time.perf_counter() - start
    if b"MemoryError" in stderr or (child.returncode == -9 and not ended.startswith("timeout")):
        ended = "killed (memory cap)"
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return elapsed, usage.ru_maxrss * 1024, ended


def measure(argv: list[str], cap: int, timeout: float) -> tuple[float, int, str]:
    """`timed` in a process of its own: RUSAGE_CHILDREN's ru_maxrss is the peak over every
    child waited for, so each case is measured by a fresh parent with one child."""
    code = (
        "import json, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parent.parent)!r})\n"
        "from bench.hostile_bounds import timed\n"
        "print(json.dumps(timed(json.loads(sys.argv[1]), int(sys.argv[2]), "
        "float(sys.argv[3]))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(argv), str(cap), str(timeout)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    seconds, rss, ended = json.loads(out)
    return seconds, rss, ended


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument(
        "--bomb-gb",
        type=float,
        default=1.0,
        help="what the gzip body decompresses to (GB of zeros)",
    )
    parser.add_argument("--cap-gb", type=float, default=6.0, help="address-space cap per run")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per run")
    parser.add_argument("--only", help="run only the cases whose name contains this")
    args = parser.parse_args(argv)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    cap = int(args.cap_gb * (1 << 30))
    tiny = OUT_DIR / "tiny.jsonl"
    url_recording(1)(tiny, 1.0)
    bases = {
        command: measure([sys.executable, "-m", "mcptui", *command, str(tiny)], cap, args.timeout)[
            1
        ]
        for command in {case.command for case in cases(args.bomb_gb)}
    }
    print(
        "base: peak RSS on a tiny recording, "
        + ", ".join(
            f"{' '.join(command)} {rss / MB:.0f} MB" for command, rss in sorted(bases.items())
        )
    )
    print(
        f"{'case':<22} {'input':>9} {'anchor':>16} {'command':>16} {'(RSS-base)/input':>9}  ended"
    )
    for case in cases(args.bomb_gb):
        if args.only and args.only not in case.name:
            continue
        path = OUT_DIR / f"s{args.scale:g}-{case.file}"
        if not path.exists():
            case.make(path, args.scale)
        size = path.stat().st_size
        a_s, a_rss, _ = measure([sys.executable, "-c", case.anchor, str(path)], cap, args.timeout)
        c_s, c_rss, ended = measure(
            [sys.executable, "-m", "mcptui", *case.command, str(path)], cap, args.timeout
        )
        beyond = (c_rss - bases[case.command]) / size
        print(
            f"{case.name:<22} {size / MB:7.1f}MB {a_s:6.2f}s {a_rss / MB:6.0f}MB "
            f"{c_s:6.2f}s {c_rss / MB:6.0f}MB {beyond:15.1f}x  {ended}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
