"""Hostile inputs in every format README's `inspect` lists, and a runner that puts each through
every file-reading command as an `mcptui` process of its own under a time and memory cap (the
console script by default; the fuzz tier forks most runs from tests/_cli_fork.py's server).

Shared by the fuzz tier (tests/fuzz/test_hostile.py: a stratified, seeded sample) and the audit
(bench/audit_hostile.py: all of it, against any checkout's `mcptui`). Standard library and
PyYAML only, and no import of `mcptui`: the audit runs it beside an older checkout.

Every input carries the same planted secrets (an API key, a token in the path of the request's
`server_url` that the stream echoes, an MCP header value) and the same terminal hostiles (ESC,
BEL, a C1 CSI, bidi overrides). No output of any command may hold either.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import gzip
import json
import os
import random
import re
import resource
import signal
import subprocess
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

KEY = "sk-proj-FuzzPlantedKey7Q2xK9aBcD0123456789"
PATH_TOKEN = "Pz7fuzzPathTok3n9Q"
HEADER_VALUE = "hv9FuzzHeaderSecret42xq"
SECRETS = (KEY, PATH_TOKEN, HEADER_VALUE)
SERVER_URL = f"https://mcp.fuzz.example/s/{PATH_TOKEN}/mcp"
ENDPOINT = "https://api.openai.com/v1/responses"
HOSTILE = "\x1b]0;pwn\x07\x1b[2J\x9b31m\u202eevil\u2066x\u2069"
"""An OSC title, BEL, a clear screen, a C1 CSI, bidi overrides: none may reach an output."""
UNSAFE = re.compile("[\x07\x1b\x80-\x9f\u202a-\u202e\u2066-\u2069\udc80-\udc9f]")
"""ESC, BEL, C1 (also as a raw byte, read back with surrogateescape) and bidi controls."""

# Markers replaced after serialising: a quoted marker becomes a bare value, a bare one bytes.
BIG = "@@BIG@@"
INF = "@@INF@@"
NAN = "@@NAN@@"
BAD = "@@BAD@@"
NUL = "@@NUL@@"
BIG_DIGITS = "9" * 5000
MARKERS: dict[str, tuple[bytes, bytes]] = {
    BIG: (BIG_DIGITS.encode(), BIG_DIGITS.encode()),
    INF: (b"1e999999", b"1e999999"),
    NAN: (b"NaN", b"NaN"),
    BAD: (b"\xff\xfe\xed\xa0\x80\xc3", b"\xff\xfe\xed\xa0\x80\xc3"),
    NUL: (b"\x00", b"\x00\x00"),
}


def settle(text: str) -> bytes:
    """The serialised text with its markers made hostile (see MARKERS)."""
    data = text.encode("utf-8", "surrogatepass")
    for marker, (bare, inner) in MARKERS.items():
        m = marker.encode()
        for quote in (b'"', b"'"):
            data = data.replace(quote + m + quote, bare)
        data = data.replace(m, inner)
    return data


# ---- one hostile stream, as events -------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """How a stream is made hostile: the text planted in its fields and its odd values."""

    name: str
    text: str = HOSTILE
    number: Any = 0
    extra: Any = None
    split_secrets: bool = False
    big_delta: int = 0


DEEP = 10_000
VARIANTS = [
    Variant("controls"),
    Variant("surrogate", text=HOSTILE + "\ud800\udfff-\udc00"),
    Variant("bigint", number=BIG, extra={"n": BIG}),
    Variant("inf-nan", number=INF, extra={"a": INF, "b": NAN, "c": -1e308}),
    Variant("deep", extra="DEEP"),
    Variant("long-line", big_delta=2_000_000),
    Variant("nul", text=HOSTILE + NUL + "\x00"),
    Variant("bad-utf8", text=HOSTILE + BAD),
    Variant("split-secrets", split_secrets=True),
]
VARIANT = {v.name: v for v in VARIANTS}


def request(text: str = HOSTILE) -> dict[str, Any]:
    """The request a run would send: the MCP server's URL holds a path token, its headers a key."""
    return {
        "model": "gpt-5",
        "input": f"find it{text}",
        "stream": True,
        "tools": [
            {
                "type": "mcp",
                "server_label": "fz",
                "server_url": SERVER_URL,
                "headers": {"X-Api-Key": HEADER_VALUE, "Authorization": f"Bearer {KEY}"},
                "require_approval": "never",
            }
        ],
    }


def _deep() -> str:
    return "[" * DEEP + "]" * DEEP


def _chunks(text: str, split: bool) -> list[str]:
    if not split:
        return [text]
    cuts = sorted({len(text) // 3, 2 * len(text) // 3})
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=False)]


def events(v: Variant) -> list[dict[str, Any]]:
    """A response that lists tools, fails one mcp_call that echoes every secret, and answers."""
    h = v.text
    tools = [
        {
            "type": "mcp",
            "server_label": "fz",
            "server_url": SERVER_URL,
            "headers": None,
            "require_approval": "never",
        }
    ]
    response = {
        "id": "resp_fz1",
        "object": "response",
        "status": "in_progress",
        "model": f"gpt-5{h}",
        "tools": tools,
        "output": [],
    }
    listed = {
        "id": "mcpl_fz",
        "type": "mcp_list_tools",
        "server_label": f"fz{h}",
        "tools": [{"name": f"search{h}", "description": h, "input_schema": {}}],
    }
    arguments = json.dumps({"q": f"q{h}", "api_key": KEY, "server": SERVER_URL})
    error = f"424{h}: {SERVER_URL} refused X-Api-Key {HEADER_VALUE} with key {KEY}"
    call = {
        "id": "mcp_fz",
        "type": "mcp_call",
        "name": f"search{h}",
        "server_label": "fz",
        "arguments": "",
    }
    failed = {
        **call,
        "arguments": arguments,
        "status": "failed",
        "error": error,
        "output": f"echo {HEADER_VALUE} {SERVER_URL}",
    }
    answer = f"Done{h} via {SERVER_URL} (key {KEY}, header {HEADER_VALUE})"
    if v.big_delta:
        answer += (" word" * (v.big_delta // 10)) + " a." * (v.big_delta // 6) + " ://x"
    message = {
        "id": "msg_fz",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": answer}],
    }
    out: list[dict[str, Any]] = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": {**listed, "tools": []}},
        {"type": "response.output_item.done", "output_index": 0, "item": listed},
        {"type": "response.output_item.added", "output_index": 1, "item": call},
    ]
    out += [
        {
            "type": "response.mcp_call_arguments.delta",
            "output_index": 1,
            "item_id": "mcp_fz",
            "delta": piece,
        }
        for piece in _chunks(arguments, v.split_secrets)
    ]
    out += [
        {
            "type": "response.mcp_call_arguments.done",
            "output_index": 1,
            "item_id": "mcp_fz",
            "arguments": arguments,
        },
        {"type": "response.mcp_call.failed", "output_index": 1, "item_id": "mcp_fz"},
        {"type": "response.output_item.done", "output_index": 1, "item": failed},
        {
            "type": "response.output_item.added",
            "output_index": 2,
            "item": {**message, "status": "in_progress", "content": []},
        },
    ]
    out += [
        {
            "type": "response.output_text.delta",
            "output_index": 2,
            "item_id": "msg_fz",
            "content_index": 0,
            "delta": piece,
        }
        for piece in _chunks(answer, v.split_secrets)
    ]
    out += [
        {
            "type": "response.output_text.done",
            "output_index": 2,
            "item_id": "msg_fz",
            "content_index": 0,
            "text": answer,
        },
        {"type": "response.output_item.done", "output_index": 2, "item": message},
        {
            "type": "response.completed",
            "response": {
                **response,
                "status": "completed",
                "output": [listed, failed, message],
                "usage": {"input_tokens": v.number or 10, "output_tokens": 5, "total_tokens": 15},
            },
        },
    ]
    for n, event in enumerate(out):
        event["sequence_number"] = n if not v.number or n != 3 else v.number
    if v.extra is not None:
        out[4]["extra"] = "DEEP" if v.extra == "DEEP" else v.extra
    return out


def _dumps(value: Any) -> str:
    return json.dumps(value).replace('"DEEP"', _deep())


def jsonl(v: Variant) -> bytes:
    return settle("\n".join(_dumps(e) for e in events(v)) + "\n")


def recording(v: Variant) -> bytes:
    header = {
        "mcptui": "recording",
        "format": 1,
        "mcptui_version": "0.1.0",
        "created": "2026-01-01T00:00:00+00:00",
        "source": {"kind": "run"},
        "request": request(v.text),
        "endpoint": ENDPOINT,
        "http": {
            "status": 200,
            "headers": {"x-request-id": f"req_{v.text}", "x-api-key": HEADER_VALUE},
        },
    }
    lines = [_dumps(header)] + [
        _dumps({"t": round(0.1 * n, 1), "event": e}) for n, e in enumerate(events(v))
    ]
    return settle("\n".join(lines) + "\n")


def sse_text(v: Variant, crlf: bool = True) -> str:
    nl = "\r\n" if crlf else "\n"
    parts = [f": keep-alive{nl}", f"retry: 1000{nl}{nl}"]
    for n, e in enumerate(events(v)):
        body = _dumps(e)
        if n == 2:  # multi-line data, joined by the reader with \n
            data = "".join(f"data: {line}{nl}" for line in json.dumps(e, indent=1).splitlines())
        else:
            data = f"data: {body}{nl}"
        parts.append(f"event: {e['type']}{nl}id: {n}{nl}{data}{nl}")
    parts.append(f"data: [DONE]{nl}{nl}")
    return "".join(parts)


def sse(v: Variant) -> bytes:
    return settle(sse_text(v))


def array(v: Variant) -> bytes:
    return settle("[" + ",\n".join(_dumps(e) for e in events(v)) + "]")


def paste(v: Variant) -> bytes:
    evs = [_dumps(e) for e in events(v)]
    logged = [
        f"2026-01-01 12:00:0{n % 10},123 INFO openai: {line}" for n, line in enumerate(evs[:4])
    ]
    text = (
        f"Hi all{v.text}, my stream fails (key {KEY}):\n\n"
        + "\n".join(logged)
        + "\n\n```json\n"
        + ",\n".join(evs[4:])
        + "\n```\n\nAny idea? curl "
        f"{ENDPOINT} -H 'Authorization: Bearer {KEY}' -d '{json.dumps(request(v.text))}'\n"
    )
    return settle(text)


def _pyliteral(value: Any) -> str:
    return repr(value).replace("'DEEP'", _deep())


def pydict(v: Variant) -> bytes:
    """Python-literal dict pastes, with keys no JSON has: tuples, bytes, frozensets, numbers."""
    evs = events(v)
    evs[0] = {
        **evs[0],
        ("tuple", 1): b"bytes\x1b",
        b"bkey": {1, 2},
        1.5: None,
        None: True,
        frozenset({1}): (1, 2),
    }
    lines = [_pyliteral(e) for e in evs]
    lines.insert(3, "{[1, 2]: 'list key', 'delta': b'abc'}")
    lines.insert(5, "{'delta': b'\\xff\\x1b[31m', 'type': 'response.output_text.delta'}")
    return settle("\n".join(lines) + "\n")


def _camel(kind: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[._]", kind.removeprefix("response.")))


def sdk(value: Any) -> str:
    """The openai SDK's repr of an event: Name(field=value, …) for each typed object."""
    if isinstance(value, dict) and isinstance(value.get("type"), str):
        kind = value["type"]
        name = "Response" + _camel(kind) + "Event" if kind.startswith("response.") else _camel(kind)
        args = ", ".join(
            f"{k}={sdk(val)}" for k, val in value.items() if isinstance(k, str) and k.isidentifier()
        )
        return f"{name}({args})"
    if isinstance(value, dict) and value.get("object") == "response":
        return "Response(" + ", ".join(f"{k}={sdk(val)}" for k, val in value.items()) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{sdk(k)}: {sdk(val)}" for k, val in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(sdk(x) for x in value) + "]"
    if value == "DEEP":
        return _deep()
    return repr(value)


def sdkrepr(v: Variant) -> bytes:
    evs = events(v)
    evs[1] = {**evs[1], "odd": {("t", 1): b"\x9bbytes", b"k": [b"v"]}}
    lines = [sdk(e) for e in evs]
    lines.insert(
        2,
        "ResponseTextDeltaEvent(delta=b'\\x1b]0;x\\x07', type='response.output_text"
        ".delta', logprobs=[Logprob(token='a', bytes=[255, 0])], x="
        + "Deep(" * 3000
        + ")" * 3000
        + ")",
    )
    return settle("\n".join(lines) + "\n")


def response_body(v: Variant) -> bytes:
    return settle(_dumps(events(v)[-1]["response"]))


def error_body(v: Variant) -> bytes:
    return settle(
        _dumps(
            {
                "error": {
                    "message": f"bad{v.text} {KEY} at {SERVER_URL}",
                    "type": f"invalid_request_error{v.text}",
                    "code": v.number or v.text,
                    "param": v.extra,
                }
            }
        )
    )


def _archive_parts(v: Variant) -> tuple[str, str]:
    return _dumps(request(v.text)), sse_text(v)


def har(v: Variant, *, body: dict[str, Any] | None = None, url: str = ENDPOINT) -> bytes:
    req, stream = _archive_parts(v)
    content = body or {"mimeType": "text/event-stream", "size": len(stream), "text": stream}
    entries = [
        {
            "startedDateTime": "2026-01-01T00:00:00.000Z",
            "time": 120.5,
            "request": {
                "method": "POST",
                "url": url,
                "httpVersion": "HTTP/1.1",
                "headers": [
                    {"name": "authorization", "value": f"Bearer {KEY}"},
                    {"name": "x-api-key", "value": HEADER_VALUE},
                ],
                "postData": {"mimeType": "application/json", "text": req},
            },
            "response": {
                "status": 200,
                "statusText": f"OK{v.text}",
                "headers": [
                    {"name": "content-type", "value": "text/event-stream"},
                    {
                        "name": "content-encoding",
                        "value": body.get("_encoding", "") if body else "",
                    },
                ],
                "content": content,
            },
            "timings": {"send": 0, "wait": 100, "receive": 20.5},
        },
        {
            "startedDateTime": "2026-01-01T00:00:01.000Z",
            "time": 3,
            "request": {
                "method": "POST",
                "url": SERVER_URL,
                "headers": [{"name": "X-Api-Key", "value": HEADER_VALUE}],
                "postData": {"mimeType": "application/json", "text": '{"jsonrpc":"2.0"}'},
            },
            "response": {"status": 401, "headers": [], "content": {"text": f"no {HEADER_VALUE}"}},
        },
    ]
    for entry in entries:
        entry["response"]["headers"] = [h for h in entry["response"]["headers"] if h["value"]]
    return settle(
        _dumps({"log": {"version": "1.2", "creator": {"name": f"fz{v.text}"}, "entries": entries}})
    )


def _yaml(value: Any) -> str:
    """YAML, with long strings written as JSON strings (a YAML double-quoted scalar): PyYAML's
    own emitter takes seconds per MB."""
    long: list[str] = []

    def swap(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: swap(x) for k, x in node.items()}
        if isinstance(node, list):
            return [swap(x) for x in node]
        if isinstance(node, str) and len(node) > 10_000:
            long.append(node)
            return f"@@LONG{len(long) - 1}@@"
        return node

    text = yaml.safe_dump(swap(value), width=10**9, allow_unicode=False, sort_keys=False)
    for n, node in enumerate(long):
        text = text.replace(f"'@@LONG{n}@@'", json.dumps(node))
    return text


def vcr_value(v: Variant, body: Any = None, encoding: str = "") -> dict[str, Any]:
    req, stream = _archive_parts(v)
    headers: dict[str, list[str]] = {"Content-Type": ["text/event-stream"]}
    if encoding:
        headers["Content-Encoding"] = [encoding]
    return {
        "interactions": [
            {
                "request": {
                    "body": req,
                    "headers": {"authorization": [f"Bearer {KEY}"], "x-api-key": [HEADER_VALUE]},
                    "method": "POST",
                    "uri": ENDPOINT,
                },
                "response": {
                    "body": {"string": stream} if body is None else body,
                    "headers": headers,
                    "status": {"code": 200, "message": f"OK{v.text}"},
                },
                "recorded_at": "2026-01-01T00:00:00",
            },
        ],
        "version": 1,
    }


def vcr(v: Variant) -> bytes:
    return settle(_yaml(vcr_value(v)).replace("'DEEP'", _deep()))


def testproxy(v: Variant) -> bytes:
    req, stream = _archive_parts(v)
    entry = {
        "RequestUri": ENDPOINT,
        "RequestMethod": "POST",
        "RequestHeaders": {"authorization": f"Bearer {KEY}", "x-api-key": HEADER_VALUE},
        "RequestBody": json.loads(req.replace(_deep(), '"DEEP"')) if "DEEP" not in req else req,
        "StatusCode": 200,
        "ResponseHeaders": {"content-type": "text/event-stream"},
        "ResponseBody": stream.split("\r\n"),
    }
    return settle(_dumps({"Entries": [entry], "Variables": {"k": KEY}}))


FORMATS: dict[str, Callable[[Variant], bytes]] = {
    "recording": recording,
    "jsonl": jsonl,
    "sse": sse,
    "array": array,
    "paste": paste,
    "pydict": pydict,
    "sdkrepr": sdkrepr,
    "response": response_body,
    "error": error_body,
    "har": har,
    "vcr": vcr,
    "testproxy": testproxy,
}


# ---- inputs that are not one stream in one format ------------------------------------------


def _billion_laughs() -> str:
    lines = ["a0: &a0 [lol]"]
    for n in range(1, 10):
        lines.append(f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 10) + "]")
    return "\n".join(lines) + "\ninteractions:\n- request: *a9\n  response: *a9\n"


def yaml_cases() -> Iterator[tuple[str, bytes]]:
    """Cassettes whose YAML is the attack: tags, anchors, timestamps, odd scalars."""
    good = _yaml(vcr_value(VARIANT["controls"]))
    for name, old, new in [
        ("python-object", "version: 1", "version: !!python/object/apply:os.system ['echo x']"),
        ("int-abc", "version: 1", "version: !!int abc"),
        ("bad-date", "recorded_at: '2026-01-01T00:00:00'", "recorded_at: 2001-13-45"),
        (
            "bad-offset",
            "recorded_at: '2026-01-01T00:00:00'",
            "recorded_at: 2001-01-01 00:00:00 +99:99",
        ),
        (
            "timestamp-tag",
            "recorded_at: '2026-01-01T00:00:00'",
            "recorded_at: !!timestamp 9999-99-99",
        ),
        ("big-code", "code: 200", f"code: {BIG_DIGITS}"),
        ("inf-code", "code: 200", "code: .inf"),
        ("binary-bad", "method: POST", "method: !!binary '!!!not base64'"),
        ("set-tag", "method: POST", "method: !!set {a, b}"),
    ]:
        yield name, good.replace(old, new, 1).encode()
    yield (
        "self-anchor",
        (
            good.replace("interactions:\n", "interactions: &loop\n", 1).replace(
                "version: 1", "version: *loop"
            )
            + "extra: &me [*me]\n"
        ).encode(),
    )
    yield (
        "self-anchor-body",
        (
            "interactions:\n- request: &r {body: *r, uri: "
            f"'{ENDPOINT}', method: POST}}\n  response: *r\n"
        ).encode(),
    )
    yield "billion-laughs", _billion_laughs().encode()
    yield (
        "merge-keys",
        (
            f"base: &b {{uri: '{ENDPOINT}', method: POST, body: '{{}}'}}\n"
            "interactions:\n- request: {<<: *b, <<: *b}\n  response: {<<: *b, status: {code: "
            "200}}\n"
        ).encode(),
    )
    yield "deep-flow", ("interactions: " + "[" * DEEP + "]" * DEEP + "\n").encode()
    yield "tab-and-bom", b"\xef\xbb\xbfinteractions:\n\t- request: {}\n"
    yield "many-docs", (good + "---\n" + good + "...\n--- !!str x\n").encode()


def _bomb(size: int) -> bytes:
    """`size` zero bytes gzipped (a few hundred KB for hundreds of MB): built once."""
    if size not in _BOMBS:  # gzip members one after another inflate as one body
        member = gzip.compress(b"\0" * (1 << 20), 9)
        _BOMBS[size] = member * (size >> 20)
    return _BOMBS[size]


_BOMBS: dict[int, bytes] = {}
BOMB = 600 << 20
"""Over the default --max-bytes (256 MiB) once inflated."""


def _deflated(stream: bytes) -> bytes:
    raw = zlib.compressobj(6, zlib.DEFLATED, -15)
    return raw.compress(stream) + raw.flush()


BODIES: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "gzip": (gzip.compress, "gzip"),
    "deflate-raw": (_deflated, "deflate"),
    "deflate-zlib": (zlib.compress, "deflate"),
    "br": (lambda _: b"\x8b\x02\x80hello\x03", "br"),
    "zstd": (lambda _: b"(\xb5/\xfd\x00", "zstd"),
    "gzip-truncated": (lambda s: gzip.compress(s)[:-20], "gzip"),
    "gzip-bomb": (lambda _: _bomb(BOMB), "gzip"),
}
"""Compressed bodies: gzip, deflate (raw and zlib), br and zstd, a broken one, and a bomb."""


def compressed(kind: str, name: str) -> bytes:
    """A cassette (`kind` vcr) or HAR holding the stream as a `name` body (see BODIES)."""
    v = VARIANT["controls"]
    make, encoding = BODIES[name]
    body = make(sse_text(v).encode("utf-8", "surrogatepass"))
    if kind == "vcr":
        return settle(_yaml(vcr_value(v, {"string": body}, encoding)))
    return har(
        v,
        body={
            "mimeType": "text/event-stream",
            "encoding": "base64",
            "text": base64.b64encode(body).decode(),
            "_encoding": encoding,
        },
    )


def har_cases() -> Iterator[tuple[str, bytes]]:
    v = VARIANT["controls"]
    yield "bad-ipv6-url", har(v, url="http://[::1/v1/responses")
    yield "port-99999", har(v, url="http://127.0.0.1:99999/v1/responses?api_key=" + KEY)
    yield (
        "bad-base64",
        har(v, body={"mimeType": "text/event-stream", "encoding": "base64", "text": "!!!\x1b"}),
    )
    good = json.loads(har(v).decode())
    odd = [
        ("entries-dict", lambda d: d["log"].__setitem__("entries", {"a": 1})),
        (
            "bad-times",
            lambda d: d["log"]["entries"][0].update(
                startedDateTime="2001-13-45T99:99:99Z", time=BIG, timings={"wait": INF}
            ),
        ),
        (
            "headers-dict",
            lambda d: d["log"]["entries"][0]["request"].__setitem__(
                "headers", {"authorization": KEY}
            ),
        ),
        ("status-odd", lambda d: d["log"]["entries"][0]["response"].__setitem__("status", NAN)),
        (
            "post-not-json",
            lambda d: d["log"]["entries"][0]["request"]["postData"].__setitem__(
                "text", f"model=gpt&key={KEY}{HOSTILE}"
            ),
        ),
    ]
    for name, edit in odd:
        data = json.loads(json.dumps(good))
        edit(data)
        yield name, settle(json.dumps(data))


def header_cases() -> Iterator[tuple[str, bytes]]:
    """mcptui recordings whose header is odd."""
    body = recording(VARIANT["controls"]).split(b"\n", 1)[1]
    base = {"mcptui": "recording", "format": 1, "request": request(), "endpoint": ENDPOINT}
    for name, edit in [
        ("format-99", {"format": 99}),
        ("format-str", {"format": f"1{HOSTILE}"}),
        ("request-list", {"request": [request()]}),
        ("tools-dict", {"request": {**request(), "tools": {"a": SERVER_URL}}}),
        (
            "server-url-int",
            {"request": {**request(), "tools": [{"type": "mcp", "server_url": BIG}]}},
        ),
        (
            "headers-list",
            {
                "request": {
                    **request(),
                    "tools": [{"type": "mcp", "server_url": SERVER_URL, "headers": [KEY]}],
                }
            },
        ),
        ("http-odd", {"http": {"status": INF, "headers": [HEADER_VALUE]}}),
        ("created-bad", {"created": "2001-13-45T99:00:00+99:99"}),
        ("deep-request", {"request": "DEEP"}),
        ("endpoint-hostile", {"endpoint": f"http://[::1/{PATH_TOKEN}{HOSTILE}"}),
    ]:
        yield name, settle(_dumps({**base, **edit})) + b"\n" + body
    header = settle(_dumps(base))
    yield "header-only", header + b"\n"
    yield "header-twice", header + b"\n" + header + b"\n" + body
    yield "bom-crlf", b"\xef\xbb\xbf" + (header + b"\n" + body).replace(b"\n", b"\r\n")


def raw_cases() -> Iterator[tuple[str, bytes]]:
    """Inputs that are barely a format at all."""
    yield "empty", b""
    yield "nuls", b"\x00" * 4096
    yield "brackets", b"[" * DEEP
    yield "braces-closed", (b'{"a":' * DEEP) + b"1" + b"}" * DEEP
    yield "inf", b"1e999999"
    yield (
        "nan-event",
        b'{"type": "response.created", "sequence_number": NaN, "response": {"id": Infinity}}',
    )
    yield "bigint", BIG_DIGITS.encode()
    yield "bom-only", b"\xef\xbb\xbf"
    yield "one-long-line", b"a" * 4_000_000
    yield "sse-deep", b"data: " + b"[" * DEEP + b"\n\n"
    yield (
        "sse-long-data",
        b'data: {"type": "response.output_text.delta", "delta": "' + b"x" * 4_000_000 + b'"}\n\n',
    )
    yield "binary", random.Random(35).randbytes(65536)
    yield "surrogate-only", b'"\\ud800"'
    yield "escapes-only", HOSTILE.encode() * 100


ODD_NAMES = [
    b"fz\x1b[31m\x07\xc2\x9b\xe2\x80\xaename.jsonl",
    b"fz\xff\xfe-not-utf8.jsonl",
    b"fz\nnew\rline.jsonl",
    b"fz-\xe2\x80\xae-lnosj.jsonl",
]


@dataclass
class Case:
    """One hostile input: its bytes (built when first asked for: a sample builds only its own),
    and how it is given (a file, maybe oddly named, or a FIFO)."""

    name: str
    fmt: str
    make: Callable[[], bytes]
    filename: bytes = b"input"
    fifo: str = ""
    """"" for a file; "writer": a FIFO a writer fills with `data`; "silent": one with no writer."""
    unknowable: tuple[str, ...] = ()
    """Planted secrets the input never names as secrets, so no reader can know to hide them:
    an MCP header value in a dump with no request (the API echoes `headers: null`), a URL
    token only ever seen inside an error's prose."""
    _data: bytes | None = None

    @property
    def secrets(self) -> tuple[str, ...]:
        """The planted secrets no output may hold."""
        return tuple(secret for secret in SECRETS if secret not in self.unknowable)

    @property
    def data(self) -> bytes:
        if self._data is None:
            self._data = self.make()
        return self._data


UNKNOWABLE: dict[str, tuple[str, ...]] = {
    **{fmt: (HEADER_VALUE,) for fmt in ("jsonl", "sse", "array", "pydict", "sdkrepr", "response")},
    "error": (HEADER_VALUE, PATH_TOKEN),
    "header-headers-list": (HEADER_VALUE,),
}
"""By format (or case name): what its input never names as a secret (`Case.unknowable`).
Inputs with no request, no headers: the header value is only ever echoed (the API's echo of
a tool says `headers: null`); an error body names the server's URL only in its prose; a
header whose tool `headers` is a list holds the key, not the header value."""


def generate() -> list[Case]:
    """The full hostile set, in a fixed order (no randomness beyond fixed seeds)."""

    def const(data: bytes) -> Callable[[], bytes]:
        return lambda: data

    p = functools.partial
    cases = [
        Case(f"{fmt}-{v.name}", fmt, p(build, v), unknowable=UNKNOWABLE.get(fmt, ()))
        for fmt, build in FORMATS.items()
        for v in VARIANTS
    ]
    for fmt, found in (
        ("yaml", yaml_cases()),
        ("har-odd", har_cases()),
        ("header", header_cases()),
        ("raw", raw_cases()),
    ):
        cases += [
            Case(f"{fmt}-{name}", fmt, const(data), unknowable=UNKNOWABLE.get(f"{fmt}-{name}", ()))
            for name, data in found
        ]
    cases += [
        Case(f"compressed-{kind}-{name}", "compressed", p(compressed, kind, name))
        for name in BODIES
        for kind in ("vcr", "har")
    ]
    plain = p(recording, VARIANT["controls"])
    cases += [
        Case(f"filename-{n}", "filename", plain, filename=name) for n, name in enumerate(ODD_NAMES)
    ]
    cases += [
        Case("fifo-writer", "fifo", plain, fifo="writer"),
        Case(
            "fifo-writer-sse",
            "fifo",
            p(sse, VARIANT["controls"]),
            fifo="writer",
            unknowable=UNKNOWABLE["sse"],
        ),
        Case("fifo-silent", "fifo", const(b""), fifo="silent"),
    ]
    return cases


def good_recording() -> bytes:
    """A clean recording (no secrets, no hostiles): `diff`'s other side."""
    v = Variant("good", text="")
    header = {
        "mcptui": "recording",
        "format": 1,
        "request": {"model": "gpt-5", "input": "hi"},
        "endpoint": ENDPOINT,
    }
    lines = [json.dumps(header)] + [
        json.dumps({"t": 0.1 * n, "event": e}) for n, e in enumerate(events(v))
    ]
    return (
        ("\n".join(lines) + "\n")
        .encode()
        .replace(PATH_TOKEN.encode(), b"plainpath")
        .replace(KEY.encode(), b"nokey")
        .replace(HEADER_VALUE.encode(), b"noheader")
    )


# ---- running the commands -------------------------------------------------------------------

BIG_RSS_KB = 1 << 20
"""1 GiB: no input here is over 12 MB, so a run past it has run away (issue 35's table)."""

COMMANDS: dict[str, list[str]] = {
    "inspect": ["inspect", "{IN}"],
    "inspect-json": ["inspect", "--json", "{IN}"],
    "inspect-strict": ["inspect", "--strict", "{IN}"],
    "report-md": ["report", "{IN}", "-o", "{OUT}.md"],
    "report-html": ["report", "{IN}", "--format", "html", "-o", "{OUT}.html"],
    "diff": ["diff", "{GOOD}", "{IN}", "--no-tui"],
    "export-curl": ["export", "{IN}", "--format", "curl", "-o", "{OUT}.sh"],
    "export-python": ["export", "{IN}", "--format", "python", "-o", "{OUT}.py"],
    "export-request": ["export", "{IN}", "--format", "request", "-o", "{OUT}.json"],
    "screenshot": ["replay", "{IN}", "--screenshot", "{OUT}.svg"],
}


@dataclass
class Result:
    case: str
    fmt: str
    command: str
    code: int
    seconds: float
    max_rss_kb: int
    timed_out: bool
    problems: list[str] = field(default_factory=list)


def _limits(memory: int) -> Callable[[], None]:
    def apply() -> None:
        os.setsid()
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def _feed_fifo(path: bytes, data: bytes) -> None:
    """A writer as `cat file > fifo`: open (blocking until a reader opens), send, close."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, data)
    except OSError:  # the reader went away: as `cat` would, stop
        pass
    finally:
        os.close(fd)


def _release(path: bytes, feeder: threading.Thread) -> None:
    """A writer still waiting for a reader (the command never opened the FIFO) gets one."""
    if feeder.is_alive():
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        feeder.join(5)
        os.close(fd)


def _wait(proc: subprocess.Popen[bytes], timeout: float) -> tuple[int, int, bool]:
    """(exit code, peak RSS in KiB of the process and its reaped children, timed out)."""
    deadline = time.monotonic() + timeout
    timed_out = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            timed_out = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.02)
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code
    # what the command left running (a reading helper) goes with it
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    return code, usage.ru_maxrss, timed_out


def _files(root: Path, skip: set[Path]) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_fifo() and path not in skip:
            yield path


def check(name: str, data: bytes, secrets: tuple[str, ...] = SECRETS) -> list[str]:
    """What is wrong with one output: a traceback, a control character, a planted secret."""
    text = data.decode("utf-8", "surrogateescape")
    found = []
    if "Traceback (most recent call last)" in text:
        found.append(f"traceback in {name}")
    hit = UNSAFE.search(text)
    if hit:
        found.append(f"escape {hit.group()!r} in {name}")
    for secret in secrets:
        if secret in text:
            found.append(f"secret {secret[:8]}… in {name}")
    return found


@dataclass
class Ran:
    """What one command did: its exit code, peak RSS (KiB), whether it was killed past the
    timeout, and its standard output and error."""

    code: int
    max_rss_kb: int
    timed_out: bool
    stdout: bytes
    stderr: bytes


Launch = Callable[[list[bytes], Path, dict[str, str], float, int], Ran]
"""Runs `mcptui ARGS` (bytes) in a folder with exactly an environment, under a timeout and a
cap of address space; `process(mcptui)` is the real process."""


def process(mcptui: str) -> Launch:
    """`mcptui` (a path to the console script) as a process of its own, in a session of its own
    (what it leaves running is killed with it), RLIMIT_AS `memory`, no core dump."""

    def launch(
        args: list[bytes], work: Path, env: dict[str, str], timeout: float, memory: int
    ) -> Ran:
        with open(work / ".stdout", "wb") as so, open(work / ".stderr", "wb") as se:
            proc = subprocess.Popen(
                [os.fsencode(mcptui), *args],
                stdin=subprocess.DEVNULL,
                stdout=so,
                stderr=se,
                cwd=work,
                env=env,
                preexec_fn=_limits(memory),
            )
            code, rss, timed_out = _wait(proc, timeout)
        stdout, stderr = (work / ".stdout").read_bytes(), (work / ".stderr").read_bytes()
        return Ran(code, rss, timed_out, stdout, stderr)

    return launch


def run(
    case: Case,
    command: str,
    work: Path,
    mcptui: str,
    *,
    timeout: float = 60.0,
    memory: int = 4 << 30,
    launch: Launch | None = None,
) -> Result:
    """Run one command on one case in `work` (a fresh folder) and judge what it left. The
    command runs as `launch` runs it, by default `process(mcptui)`."""
    work.mkdir(parents=True, exist_ok=True)
    good = work / "good.jsonl"
    good.write_bytes(good_recording())
    stem = case.filename.rsplit(b".", 1)[0] or b"input"
    path = os.fsencode(work) + b"/" + case.filename
    out = os.fsencode(work) + b"/out-" + stem
    feeder = None
    if case.fifo:
        os.mkfifo(path)
        if case.fifo == "writer":
            feeder = threading.Thread(target=_feed_fifo, args=(path, case.data), daemon=True)
            feeder.start()
    else:
        with open(path, "wb") as handle:
            handle.write(case.data)
    args: list[bytes] = []
    for part in COMMANDS[command]:
        args.append(
            part.replace("{IN}", "").encode() + path
            if "{IN}" in part
            else out + part.removeprefix("{OUT}").encode()
            if "{OUT}" in part
            else os.fsencode(good)
            if part == "{GOOD}"
            else part.encode()
        )
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TERM", "COLUMNS")}
    env.update(NO_COLOR="1", COLUMNS="120", HOME=str(work), PYTHONFAULTHANDLER="")
    started = time.monotonic()
    ran = (launch or process(mcptui))(args, work, env, timeout, memory)
    code, rss, timed_out = ran.code, ran.max_rss_kb, ran.timed_out
    seconds = time.monotonic() - started
    if feeder:
        _release(path, feeder)
    result = Result(case.name, case.fmt, command, code, seconds, rss, timed_out)
    if timed_out:
        result.problems.append(f"timed out after {timeout:.0f} s")
    stderr = ran.stderr
    if code not in (0, 1, 2) and not timed_out:
        said = stderr.decode("utf-8", "backslashreplace").strip().splitlines()[-1:]
        result.problems.append(f"exit {code}: {said[0][:300] if said else ''}")
    if b"MemoryError" in stderr:
        result.problems.append("MemoryError")
    if rss > BIG_RSS_KB:
        result.problems.append(f"peak RSS {rss >> 10} MB")
    result.problems += check("stdout", ran.stdout, case.secrets)
    result.problems += check("stderr", stderr, case.secrets)
    skip = {Path(os.fsdecode(path)), good}
    for written in _files(work, skip):
        if written.name in (".stdout", ".stderr"):
            continue
        result.problems += check(
            os.fsdecode(written.relative_to(work))
            .encode("utf-8", "backslashreplace")
            .decode("ascii", "backslashreplace"),
            written.read_bytes(),
            case.secrets,
        )
    return result
