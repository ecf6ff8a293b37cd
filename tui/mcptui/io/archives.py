"""HTTP archives of an app's traffic read as timelines: HAR 1.2, VCR cassettes, test-proxy records.

Users keep their app's traffic in the archive their tools write: browser DevTools, mitmproxy,
Charles and Proxyman save HAR; vcrpy and pytest-recording save YAML cassettes (pydantic-ai,
langchain and many test suites); the Azure SDK test proxy (the OpenAI .NET SDK's tests) saves
JSON session records. Each format is read into `Exchange`s, one per request and its answer.

The Responses API's own calls (create, retrieve, resume, cancel) become the timeline, in archive
order, recorded the way a live run records them (mcptui/sources/live.py): the first call's request
opens the header, each later call is a `request` note; a streamed answer is its SSE events; a
Response object is a note carrying the snapshot (the reducer files it under its id); an HTTP
error is an `http_error` note with its body. Each create's entries are a stream of their own
(`Event.stream`), so every create is a root, a refused one too, and a retrieve, resume or cancel
joins the response it names. Everything else is skipped and counted in one problem. Request
headers are never kept (they carry the API key), except the client's user-agent.

Bodies are decoded only for the calls kept, so a large archive of other traffic costs one pass
over its entries. Nothing raises on bad input: each entry's trouble is a problem naming it.
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache, partial
from typing import TYPE_CHECKING, Any

from mcptui.io.answers import Call, http_error_note, kept_headers, responses_call, stream_entries
from mcptui.io.paste import is_error_body
from mcptui.io.reading import MAX_BYTES, InputError, size_text
from mcptui.io.recording import Loaded, Problem, Problems, json_error_reason, make_header
from mcptui.io.sniff import ARCHIVE_SNIFF, JSON_ARCHIVE, is_response_object, may_be_archive
from mcptui.model.events import Event, note
from mcptui.model.jsonsafe import MAX_DEPTH, loads, text_without_surrogates
from mcptui.model.redaction import (
    header_secrets,
    merge_secrets,
    redact,
    redact_headers,
    redact_url,
    request_secrets,
    text_url_secrets,
)
from mcptui.model.reducer import ERROR_NOTE_LEVEL
from mcptui.model.state import SessionState
from mcptui.model.status import request_purpose
from mcptui.model.textsafe import one_line
from mcptui.model.urlsafe import split_url

if TYPE_CHECKING:
    import yaml

ARCHIVE_FORMATS = (
    "a HAR archive (browser DevTools, mitmproxy, Charles, Proxyman)",
    "a VCR cassette (vcrpy, pytest-recording)",
    "a test-proxy session record (Azure SDK test proxy, the OpenAI .NET SDK's tests)",
)
"""What `inspect` accepts of archives, in the words of its help."""

_SSE_LINE = re.compile(r"^(data|event|id|retry):", re.MULTILINE)
_ERROR_TEXT_LIMIT = 2000
"""An error body that is not JSON is kept up to this many characters (as live runs keep it)."""
_SHOWN_KINDS = 10
"""Skipped requests are named by method and path, up to this many kinds."""


@cache
def _cassette_loader() -> Any:
    """PyYAML's safe loader (its C version when built: never builds Python objects from a
    file), with timestamps kept as the text they are (`recorded_at: 2001-13-45` or a UTC
    offset of +25:00 would raise ValueError; JSON has no date anyway). Made on first use:
    importing PyYAML costs ~15 ms of every start otherwise."""
    import yaml

    safe: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class CassetteLoader(safe):
        pass

    CassetteLoader.add_constructor(
        "tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node)
    )
    return CassetteLoader


class BodyError(ValueError):
    """A body that cannot be read; the message says why, for the entry's problem."""


class Inflated:
    """What the compressed bodies of one archive may decompress to, all together: the input's
    own limit (`--max-bytes`). A 7.7 MB gzip body of zeros decompressed to gigabytes and the
    reader died of MemoryError; past the limit the archive is refused like a file too big."""

    def __init__(self, limit: int = MAX_BYTES) -> None:
        self.limit = limit
        self.left = limit

    def refuse(self, what: str) -> InputError:
        return InputError(
            f"{what} decompresses to more than --max-bytes {self.limit:,} "
            f"({size_text(self.limit)}) (a compression bomb?): pass a larger "
            "--max-bytes to read it"
        )


@dataclass(frozen=True, slots=True)
class Kind:
    """One archive format, as messages name it."""

    name: str
    """`HAR archive`: the format's name in `Loaded.format` and problems."""
    short: str
    """`HAR`: the `format` of the recording header's source."""
    entry: str
    """What the format calls one exchange: `entry`, `interaction`."""
    entries: str
    """The same, plural."""


HAR = Kind("HAR archive", "HAR", "entry", "entries")
VCR = Kind("VCR cassette", "VCR", "interaction", "interactions")
TEST_PROXY = Kind("test-proxy record", "test-proxy", "entry", "entries")


@dataclass(slots=True)
class Exchange:
    """One HTTP request and its answer, as any of the archives holds it."""

    number: int
    """The entry's position in the archive, from 1."""
    method: str
    url: str
    status: int | None
    """None when the request got no answer (HAR's status 0)."""
    headers: dict[str, str]
    """The answer's headers: names lower-cased, the first value of each."""
    request_body: Callable[[], Any]
    """Decodes the request body to text, an already parsed JSON value, or None."""
    response_body: Callable[[], Any]
    """Decodes the answer's body the same way; raises `BodyError`."""
    user_agent: str | None = None
    start: float | None = None
    """Seconds from the archive's first request (HAR only; None: no times)."""
    first_byte: float | None = None
    """Seconds from `start` to the answer's first byte."""
    end: float | None = None
    """Seconds from `start` to the answer's last byte."""
    failure: str | None = None
    """Why no answer came, where the archive says (HAR's `_error`)."""
    secrets: list[str] = field(default_factory=list, repr=False)
    """The request's credentials (its `Authorization`, an `?api_key=` in its URL): hidden
    wherever the archive's stream echoes them."""


# -- sniffing -----------------------------------------------------------------------------------


def read_archive(text: str, source: str = "", max_bytes: int = MAX_BYTES) -> Loaded | None:
    """`text` read as an HTTP archive, or None when it is none.

    Sniffed cheaply: a JSON object that opens with an archive's key (`{"log": {…`,
    `{"Entries": [`, `{"interactions": [`), or YAML with a top-level `interactions:` list
    of requests and responses. Anything else costs a regex over its first 64 KiB.
    Compressed bodies decompress to at most `max_bytes` in all, or the archive is refused with
    a problem that says so.
    """
    if not may_be_archive(text):
        return None
    head = text[:ARCHIVE_SNIFF].lstrip()
    if head.startswith("{"):
        try:
            whole = loads(text)
        except ValueError as exc:
            kind, mark = _json_kind(head)
            if mark not in head:
                return None  # not an archive after all: a log of `{"log": {…}}` lines, say
            line = getattr(exc, "lineno", 1)
            where = f" of line {line}" if line > 1 else ""
            return _failed(
                source,
                f"{kind.name} that is not valid JSON "
                f"({json_error_reason(exc)}{where}): is it cut off?",
            )
        return read_parsed(whole, source, max_bytes)
    return read_vcr_yaml(text, source, max_bytes)


def read_parsed(whole: Any, source: str = "", max_bytes: int = MAX_BYTES) -> Loaded | None:
    """An already parsed JSON archive, or None when `whole` is none."""
    if is_har(whole):
        return read_exchanges(HAR, har_exchanges(whole), source)
    if is_test_proxy(whole):
        return read_exchanges(TEST_PROXY, proxy_exchanges(whole), source)
    if is_cassette(whole):
        return _read_bounded(VCR, vcr_exchanges(whole, Inflated(max_bytes)), source)
    return None


def _read_bounded(kind: Kind, found: Iterable[Exchange | Problem], source: str) -> Loaded:
    """`read_exchanges`, or the one problem of an archive whose bodies inflate past the
    limit."""
    try:
        return read_exchanges(kind, found, source)
    except InputError as exc:
        return _failed(source, str(exc))


def is_har(obj: Any) -> bool:
    log = obj.get("log") if isinstance(obj, dict) else None
    return isinstance(log, dict) and isinstance(log.get("entries"), list)


def is_test_proxy(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("Entries"), list)


def is_cassette(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("interactions"), list)


def _json_kind(head: str) -> tuple[Kind, str]:
    """The archive a JSON text opens as, and a key its first entry must hold."""
    match = JSON_ARCHIVE.match(head)
    key = match.group(1) if match else "log"
    return {"log": (HAR, '"entries"'), "Entries": (TEST_PROXY, '"RequestUri"')}.get(
        key, (VCR, '"uri"')
    )


def read_vcr_yaml(text: str, source: str = "", max_bytes: int = MAX_BYTES) -> Loaded | None:
    """A YAML cassette, loaded with the safe loader only: a cassette that needs another
    (`!!python/object` tags) is a problem, never code run from a file."""
    import yaml

    try:
        cassette = yaml.load(text, Loader=_cassette_loader())  # the safe loader, see above
    except yaml.YAMLError as exc:
        return _failed(source, f"VCR cassette that does not load: {_yaml_reason(exc)}")
    except RecursionError:
        return _failed(source, "VCR cassette nested too deep to load")
    except (ValueError, OverflowError) as exc:  # `!!int abc`, an int of 5000 digits
        return _failed(
            source,
            f"VCR cassette that does not load: a value YAML cannot build "
            f"({one_line(str(exc), 200)})",
        )
    if not is_cassette(cassette):
        return None
    try:
        cassette = _plain(cassette, _Budget(len(text)))
    except ValueError as exc:
        return _failed(source, f"VCR cassette that cannot be read: {exc}")
    return _read_bounded(VCR, vcr_exchanges(cassette, Inflated(max_bytes)), source)


class _Budget:
    """How much more `_plain` may build: a cassette's nodes and text, at most about its own
    size. Without aliases nothing can exceed it; nine nested aliases (`&a9 [*a8, *a8, …]`,
    a "billion laughs") expand a 1 KB file to 10^9 nodes, which every later step would walk."""

    def __init__(self, text_size: int) -> None:
        self.left = 2 * text_size + 10_000

    def spend(self, amount: int) -> None:
        self.left -= amount
        if self.left < 0:
            raise ValueError("its YAML aliases expand it far beyond its size (an alias bomb)")


def _plain(value: Any, budget: _Budget, depth: int = 1, path: frozenset[int] = frozenset()) -> Any:
    """A loaded cassette as JSON data and bytes: keys are strings, sets and tuples lists. An
    anchor used inside itself (`&a [*a]`, a value that contains itself), nesting deeper than
    `MAX_DEPTH` or aliases that expand past the budget are refused (ValueError): every later
    step walks the value."""
    budget.spend(1 + (len(value) if isinstance(value, str | bytes) else 0))
    if isinstance(value, str):
        return text_without_surrogates(value)
    if isinstance(value, bytes | bool | int | float) or value is None:
        return value
    if id(value) in path:
        raise ValueError("a YAML anchor is used inside itself (the value contains itself)")
    if depth > MAX_DEPTH:
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep")
    inner = path | {id(value)}
    if isinstance(value, dict):
        return {
            text_without_surrogates(key if isinstance(key, str) else str(key)): _plain(
                item, budget, depth + 1, inner
            )
            for key, item in value.items()
        }
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(item, budget, depth + 1, inner) for item in value]
    return str(value)


def _yaml_reason(exc: yaml.YAMLError) -> str:
    import yaml

    mark = getattr(exc, "problem_mark", None)
    where = f" (line {mark.line + 1})" if mark is not None else ""
    problem = str(getattr(exc, "problem", "") or exc).strip()
    if isinstance(exc, yaml.constructor.ConstructorError):
        return (
            f"{problem}{where}; mcptui reads cassettes with YAML's safe loader, which "
            "never builds Python objects from a file: re-record the cassette with "
            "vcrpy's default serializer"
        )
    return problem + where


def _failed(source: str, message: str) -> Loaded:
    return Loaded(problems=Problems([Problem(None, message)]), source=source)


# -- the three formats ------------------------------------------------------------------------


def har_exchanges(har: dict[str, Any]) -> Iterator[Exchange | Problem]:
    """HAR 1.2 entries. Bodies are text (decoded by the tool that saved them), or base64 with
    `content.encoding`; times come from `startedDateTime`, `time` and `timings`."""
    entries = har["log"]["entries"]
    starts = [_started(entry) for entry in entries]
    zero = min((s for s in starts if s is not None), default=None)
    for number, (entry, started) in enumerate(zip(entries, starts, strict=True), 1):
        if not isinstance(entry, dict):
            yield Problem(None, f"entry {number} is not an object")
            continue
        request, response = _dict(entry.get("request")), _dict(entry.get("response"))
        content = _dict(response.get("content"))
        headers = _named_headers(response.get("headers"))
        if "content-type" not in headers and isinstance(content.get("mimeType"), str):
            headers["content-type"] = content["mimeType"]
        first_byte, end = _har_times(entry)
        failure = response.get("_error") or entry.get("_error")
        yield Exchange(
            number,
            str(request.get("method") or ""),
            str(request.get("url") or ""),
            _status(response.get("status")),
            headers,
            request_body=partial(_har_post_data, request),
            response_body=partial(_har_content, content),
            user_agent=_named_headers(request.get("headers")).get("user-agent"),
            start=None if started is None or zero is None else started - zero,
            first_byte=first_byte,
            end=end,
            failure=failure if isinstance(failure, str) and failure else None,
            secrets=_request_secrets(request.get("url"), _named_headers(request.get("headers"))),
        )


def vcr_exchanges(
    cassette: dict[str, Any], inflated: Inflated | None = None
) -> Iterator[Exchange | Problem]:
    """vcrpy interactions: `body.string` as text or bytes (compressed as `Content-Encoding`
    says, decompressed within `inflated`), or an already parsed `parsed_body` (pydantic-ai's
    serializer). No times."""
    inflated = inflated or Inflated()
    for number, interaction in enumerate(cassette["interactions"], 1):
        if not isinstance(interaction, dict):
            yield Problem(None, f"interaction {number} is not a mapping")
            continue
        request, response = _dict(interaction.get("request")), _dict(interaction.get("response"))
        request_headers = _listed_headers(request.get("headers"))
        headers = _listed_headers(response.get("headers"))
        status = response.get("status")
        yield Exchange(
            number,
            str(request.get("method") or ""),
            str(request.get("uri") or ""),
            _status(status.get("code") if isinstance(status, dict) else status),
            headers,
            request_body=partial(
                _vcr_body,
                request,
                request_headers,
                inflated,
                f"the request body of interaction {number}",
            ),
            response_body=partial(
                _vcr_body, response, headers, inflated, f"the response body of interaction {number}"
            ),
            user_agent=request_headers.get("user-agent"),
            secrets=_request_secrets(request.get("uri"), request_headers),
        )


def proxy_exchanges(record: dict[str, Any]) -> Iterator[Exchange | Problem]:
    """Azure SDK test-proxy entries: a body is a JSON value, text, or (streamed) a list of
    SSE lines. No times."""
    for number, entry in enumerate(record["Entries"], 1):
        if not isinstance(entry, dict):
            yield Problem(None, f"entry {number} is not an object")
            continue
        headers = _listed_headers(entry.get("ResponseHeaders"))
        yield Exchange(
            number,
            str(entry.get("RequestMethod") or ""),
            str(entry.get("RequestUri") or ""),
            _status(entry.get("StatusCode")),
            headers,
            request_body=partial(_proxy_body, entry.get("RequestBody"), {}),
            response_body=partial(_proxy_body, entry.get("ResponseBody"), headers),
            user_agent=_listed_headers(entry.get("RequestHeaders")).get("user-agent"),
            secrets=_request_secrets(
                entry.get("RequestUri"), _listed_headers(entry.get("RequestHeaders"))
            ),
        )


def _request_secrets(url: Any, headers: dict[str, str]) -> list[str]:
    """An archived request's credentials: its credential headers and its URL's secrets."""
    return merge_secrets(
        header_secrets(headers), text_url_secrets(url) if isinstance(url, str) else []
    )


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _status(value: Any) -> int | None:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return value if type(value) is int and value > 0 else None


def _named_headers(value: Any) -> dict[str, str]:
    """HAR's `[{"name", "value"}]`: lower-cased names, the first value of each."""
    headers: dict[str, str] = {}
    for header in value if isinstance(value, list) else []:
        if isinstance(header, dict) and isinstance(header.get("name"), str):
            headers.setdefault(header["name"].lower(), str(header.get("value", "")))
    return headers


def _listed_headers(value: Any) -> dict[str, str]:
    """`{name: [values]}` (vcrpy) or `{name: value}` (the test proxy, sometimes): lower-cased
    names, the first value of each."""
    headers: dict[str, str] = {}
    for name, values in _dict(value).items():
        first = values[0] if isinstance(values, list) and values else values
        if isinstance(name, str) and first is not None and not isinstance(first, list):
            headers.setdefault(name.lower(), str(first))
    return headers


def _started(entry: Any) -> float | None:
    """An entry's `startedDateTime` as a POSIX timestamp (ISO 8601, `Z` or an offset)."""
    value = entry.get("startedDateTime") if isinstance(entry, dict) else None
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value).timestamp()
    except (ValueError, OverflowError, OSError):
        return None


def _milliseconds(value: Any) -> float | None:
    """A HAR time in seconds; None for -1 (not applicable) and anything not a number."""
    if type(value) not in (int, float) or not value >= 0:
        return None
    return float(value) / 1000


def _har_times(entry: dict[str, Any]) -> tuple[float | None, float | None]:
    """Seconds from the start to the first and to the last byte of the answer.

    The first byte comes after blocked + dns + connect + send + wait (each -1 when not
    applicable). `ssl` is left out: HAR 1.2 counts it inside `connect` already.
    """
    end = _milliseconds(entry.get("time"))
    timings = _dict(entry.get("timings"))
    parts = [
        _milliseconds(timings.get(name)) for name in ("blocked", "dns", "connect", "send", "wait")
    ]
    known = [part for part in parts if part is not None]
    first_byte = sum(known) if known else None
    if first_byte is not None and end is not None:
        first_byte = min(first_byte, end)
    return first_byte, end


def _har_post_data(request: dict[str, Any]) -> Any:
    text = _dict(request.get("postData")).get("text")
    return text if isinstance(text, str) else None


def _har_content(content: dict[str, Any]) -> str | None:
    text = content.get("text")
    if text is None:
        return None
    if not isinstance(text, str):
        raise BodyError("response body (content.text) is not text")
    if content.get("encoding") != "base64":
        return text
    try:
        data = base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise BodyError("response body is base64 but does not decode") from None
    return data.decode("utf-8", errors="replace")


def _vcr_body(part: dict[str, Any], headers: dict[str, str], inflated: Inflated, what: str) -> Any:
    """A cassette's request or response body (`what`, for a refusal); `parsed_body` (beside
    `body`, or in it) is already parsed JSON."""
    if "parsed_body" in part:
        return part["parsed_body"]
    body = part.get("body")
    if isinstance(body, dict):
        if "parsed_body" in body:
            return body["parsed_body"]
        body = body.get("string")
    if isinstance(body, bytes):
        return decompressed(body, headers.get("content-encoding"), inflated, what)
    return body


def decompressed(
    raw: bytes, encoding: str | None, inflated: Inflated | None = None, what: str = "a body"
) -> str:
    """Body bytes as text, decompressed as `Content-Encoding` says (gzip also when only its
    magic number does), to no more than `inflated` has left (InputError past it). brotli and
    zstd need packages the standard library lacks."""
    inflated = inflated or Inflated()
    coding = (encoding or "").strip().lower()
    data: bytes | bytearray = raw
    if coding in ("gzip", "x-gzip") or raw[:2] == b"\x1f\x8b":
        try:
            data = _inflate(raw, 16 + zlib.MAX_WBITS, inflated, f"{what} (gzip)")
        except (EOFError, zlib.error):
            raise BodyError("gzip body does not decompress") from None
    elif coding == "deflate":
        try:
            data = _inflate(raw, zlib.MAX_WBITS, inflated, f"{what} (deflate)")
        except (EOFError, zlib.error):
            try:  # raw deflate, as some send it
                data = _inflate(raw, -zlib.MAX_WBITS, inflated, f"{what} (deflate)")
            except (EOFError, zlib.error):
                raise BodyError("deflate body does not decompress") from None
    elif coding in ("br", "zstd"):
        name = "brotli" if coding == "br" else "zstd"
        raise BodyError(
            f"body is {name}-compressed (Content-Encoding: {coding}), which mcptui "
            "cannot decompress: record with decode_compressed_response=True, or "
            "send Accept-Encoding: gzip"
        )
    elif coding not in ("", "identity"):
        raise BodyError(f"body has Content-Encoding {coding!r}, which mcptui cannot decode")
    return data.decode("utf-8", errors="replace")


def _inflate(data: bytes, wbits: int, inflated: Inflated, what: str) -> bytearray:
    """`data` decompressed (every gzip member, as `gzip.decompress` reads them), never more
    than `inflated.left` bytes of it: each step asks zlib for at most one byte past that.
    EOFError when the data ends before its end marker, zlib.error when it is not valid."""
    out = bytearray()  # grown in place: no list of chunks joined into a second copy
    left = inflated.left
    while data:
        inflater = zlib.decompressobj(wbits)
        pending = data
        while True:
            chunk = inflater.decompress(pending, left + 1)
            left -= len(chunk)
            if left < 0:
                raise inflated.refuse(what)
            out += chunk
            pending = inflater.unconsumed_tail
            if inflater.eof:
                break
            if not pending and not chunk:
                raise EOFError("compressed data ends before its end marker")
        data = inflater.unused_data.lstrip(b"\0") if wbits > 16 else b""
    inflated.left = left
    return out


def _proxy_body(body: Any, headers: dict[str, str]) -> Any:
    """A list of strings is a streamed body's SSE lines; anything else is the body itself."""
    if (
        isinstance(body, list)
        and body
        and all(isinstance(line, str) for line in body)
        and (
            "event-stream" in headers.get("content-type", "")
            or any(_SSE_LINE.match(line) for line in body[:20])
        )
    ):
        return "\n".join(body) + "\n"
    return body


# -- Responses API calls ------------------------------------------------------------------------


def skipped_label(exchange: Exchange) -> str:
    """`GET /v1/models`: method and path, token-like path parts redacted (an MCP server's
    `/s/<token>/mcp`)."""
    path = split_url(redact_url(exchange.url, strict=True)).path or "/"
    return f"{exchange.method.upper() or '?'} {path}"


# -- the timeline -------------------------------------------------------------------------------


def read_exchanges(kind: Kind, found: Iterable[Exchange | Problem], source: str = "") -> Loaded:
    """The Responses API calls among `found`, as a timeline; the rest counted in a problem."""
    loaded = Loaded(source=source)
    reader = _CallReader(kind, loaded)
    skipped: Counter[str] = Counter()
    entries = 0
    for item in found:
        entries += 1
        if isinstance(item, Problem):
            loaded.problems.append(item)
        elif (call := responses_call(item.method, item.url)) is None:
            skipped[skipped_label(item)] += 1
        else:
            reader.add(item, call)
    calls = reader.calls
    loaded.format = (
        f"{kind.name} ({_count(calls, 'Responses call')} of "
        f"{_count(entries, kind.entry, kind.entries)})"
    )
    if calls == 0:
        loaded.problems.append(Problem(None, _no_calls(kind, entries, skipped)))
    elif skipped:
        total = sum(skipped.values())
        loaded.problems.append(
            Problem(
                None,
                (
                    f"{_count(total, kind.entry, kind.entries)} skipped (not Responses API calls): "
                    f"{_kinds(skipped)}"
                ),
            )
        )
    return loaded


def _no_calls(kind: Kind, entries: int, skipped: Counter[str]) -> str:
    """Why an archive gave nothing: what it holds instead."""
    if not entries:
        return f"{kind.name} with no {kind.entries}"
    seen = f"; seen: {_kinds(skipped)}" if skipped else ""
    return (
        f"{kind.name} with {_count(entries, kind.entry, kind.entries)}, none a Responses "
        f"API call (POST …/responses or GET …/responses/{{id}}){seen}"
    )


def _count(number: int, noun: str, plural: str | None = None) -> str:
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def _kinds(skipped: Counter[str]) -> str:
    """`GET /v1/models ×2, POST /v1/chat/completions ×2`, the most frequent first."""
    shown = [f"{label} ×{count}" for label, count in skipped.most_common(_SHOWN_KINDS)]
    if len(skipped) > _SHOWN_KINDS:
        shown.append(f"and {len(skipped) - _SHOWN_KINDS} more kinds")
    return ", ".join(shown)


def spread(count: int, first: float | None, last: float | None) -> list[float | None]:
    """Times for the `count` events of one answer, first byte to last.

    An archive holds no per-event times: the first event is placed at the first byte and the
    last at the answer's end, and the ones in between are an even spread, not measurements.
    """
    if first is None or last is None or count == 0:
        return [None] * count
    if count == 1:
        return [first]
    step = (last - first) / (count - 1)
    return [first + step * position for position in range(count)]


class _CallReader:
    """Turns Responses API exchanges into timeline entries, as `LiveRun` records them."""

    def __init__(self, kind: Kind, loaded: Loaded) -> None:
        self.kind = kind
        self.loaded = loaded
        self.calls = 0
        self.last_sequence: dict[str, int] = {}
        """The highest sequence number read per response id, so a resumed stream that
        repeats events adds each once (as a live run's resume does)."""
        self.streams: dict[str, int] = {}
        """The `Event.stream` of each response id seen: a retrieve, resume or cancel joins
        the response it names; each create opens a root of its own (a refused one too)."""

    def problem(self, exchange: Exchange, message: str) -> None:
        self.loaded.problems.append(
            Problem(None, f"{self.kind.entry} {exchange.number}: {message}")
        )

    def add(self, exchange: Exchange, call: Call) -> None:
        """The exchange's entries, on the stream of the response it belongs to."""
        first_new = len(self.loaded.events)
        stream = self.streams.get(call.response_id or "", exchange.number)
        self.read(exchange, call)
        for event in self.loaded.events[first_new:]:
            event.stream = stream
            response = event.raw.get("response")
            if isinstance(response, dict) and isinstance(response.get("id"), str):
                self.streams.setdefault(response["id"], stream)

    def read(self, exchange: Exchange, call: Call) -> None:
        self.calls += 1
        start, first, last = _span(exchange)
        request = self.request_of(exchange) if call.creates else None
        self.loaded.secrets = merge_secrets(
            self.loaded.secrets, exchange.secrets, request_secrets(request)
        )
        headers = kept_headers(exchange.headers)
        self.opened(exchange, call, request, headers, start)
        status = exchange.status
        try:
            body = exchange.response_body()
        except BodyError as exc:
            self.problem(exchange, str(exc))
            if status is None or status < 400:
                return
            body = None  # the refusal still counts, without its body
        if status is not None and status >= 400:
            self.loaded.events.append(
                http_error_note(
                    _error_body(body),
                    what=call.what,
                    status=status,
                    request_id=headers.get("x-request-id"),
                    t=last,
                )
            )
            return
        if body is not None and body != "":
            self.answer(exchange, call, body, first, last)
        elif status is not None:
            self.problem(
                exchange,
                f"{call.what} (HTTP {status}): the archive holds no body for "
                "this answer (some tools leave streamed bodies out)",
            )
        if status is None:
            reason = exchange.failure or "HTTP status 0"
            self.loaded.events.append(
                note(
                    "connection_error",
                    f"{call.what}: the archive holds no answer ({reason})",
                    last,
                    level=ERROR_NOTE_LEVEL,
                )
            )

    def request_of(self, exchange: Exchange) -> dict[str, Any] | None:
        """The request body as JSON, or None (a problem says why when there was one)."""
        try:
            body = exchange.request_body()
        except BodyError as exc:
            self.problem(exchange, f"request {exc}")
            return None
        if isinstance(body, str):
            if not body.strip():
                return None
            try:
                body = loads(body)
            except ValueError as exc:
                self.problem(exchange, f"request body is not JSON ({json_error_reason(exc)})")
                return None
        if body is not None and not isinstance(body, dict):
            self.problem(exchange, "request body is not a JSON object")
            return None
        return body

    def opened(
        self,
        exchange: Exchange,
        call: Call,
        request: dict[str, Any] | None,
        headers: dict[str, str],
        t: float | None,
    ) -> None:
        """The first call opens the header; a later one is a `request` note."""
        status = exchange.status
        if self.calls == 1:
            source: dict[str, Any] = {"format": self.kind.short}
            if exchange.user_agent:
                source["user_agent"] = exchange.user_agent
            self.loaded.header = make_header(
                "archive",
                request=request,
                endpoint=call.endpoint,
                http_status=status,
                http_headers=headers,
                **source,
            )
            return
        if status is None:
            return  # as live: a request that got no answer is only its connection note
        details: dict[str, Any] = {"http_status": status, "http_headers": redact_headers(headers)}
        purpose = ""
        if request is not None:
            details["request"] = redact(request)
            purpose = request_purpose(request, SessionState())
        self.loaded.events.append(
            note(
                "request",
                f"{call.what}: HTTP {status}" + (f" · {purpose}" if purpose else ""),
                t,
                **details,
            )
        )

    def answer(
        self, exchange: Exchange, call: Call, body: Any, first: float | None, last: float | None
    ) -> None:
        """A successful answer: a stream's events, or a Response object's snapshot note."""
        if isinstance(body, str):
            if _is_stream(exchange.headers, body):
                self.stream(exchange, call, body, first, last)
                return
            try:
                body = loads(body)
            except ValueError as exc:
                self.problem(
                    exchange,
                    f"{call.what}: the response body is neither an event "
                    f"stream nor JSON ({json_error_reason(exc)})",
                )
                return
        if isinstance(body, dict) and is_response_object(body):
            message = _answered(call, body)
            self.loaded.events.append(
                note("cancel" if call.cancels else "response", message, last, response=body)
            )
        elif isinstance(body, dict) and is_error_body(body):
            self.loaded.events.append(
                http_error_note(
                    body,
                    what=call.what,
                    status=exchange.status,
                    request_id=exchange.headers.get("x-request-id"),
                    t=last,
                )
            )
        else:
            self.problem(exchange, f"{call.what}: the JSON body is no Response object")

    def stream(
        self, exchange: Exchange, call: Call, text: str, first: float | None, last: float | None
    ) -> None:
        """A streamed answer's events, each once: a resumed stream's repeats are left out."""
        current = call.response_id
        repeated_up_to = self.last_sequence.get(current) if call.resumes and current else None
        events: list[Event] = []
        repeated = 0
        for line, obj, problem in stream_entries(text):
            if problem is not None:
                self.problem(exchange, f"body line {line}: {problem}")
            if obj is None:
                continue
            response = obj.get("response")
            if isinstance(response, dict) and isinstance(response.get("id"), str):
                current = response["id"]
            seq = obj.get("sequence_number")
            if type(seq) is int:
                if repeated_up_to is not None and seq <= repeated_up_to:
                    repeated += 1
                    continue
                if current is not None:
                    self.last_sequence[current] = max(seq, self.last_sequence.get(current, seq))
            events.append(Event(obj))
        for event, t in zip(events, spread(len(events), first, last), strict=True):
            event.t = t
        self.loaded.events.extend(events)
        if repeated:
            self.problem(
                exchange,
                f"{_count(repeated, 'event')} read in an earlier "
                f"{self.kind.entry} already (sequence numbers up to "
                f"{repeated_up_to}) left out",
            )


def _answered(call: Call, response: dict[str, Any]) -> str:
    """A snapshot note's message: `POST /v1/responses: resp_1 is completed`, `GET
    /v1/responses/resp_1: completed`, `cancel requested: resp_1 is cancelled`."""
    response_id, status = response.get("id"), response.get("status")
    if call.cancels:
        return f"cancel requested: {response_id} is {status}"
    if response_id == call.response_id:
        return f"{call.what}: {status}"
    return f"{call.what}: {response_id} is {status}"


def _span(exchange: Exchange) -> tuple[float | None, float | None, float | None]:
    """Start, first byte and last byte of an exchange on the archive's clock (None: no
    times)."""
    if exchange.start is None:
        return None, None, None
    first = exchange.start + (exchange.first_byte or 0.0)
    last = exchange.start + exchange.end if exchange.end is not None else first
    return exchange.start, min(first, last), last


def _is_stream(headers: dict[str, str], text: str) -> bool:
    if "text/event-stream" in headers.get("content-type", ""):
        return True
    return not text.lstrip().startswith(("{", "[")) and _SSE_LINE.search(text, 0, 4096) is not None


def _error_body(body: Any) -> Any:
    """An error answer's body: JSON when it parses, else its text (cut as live runs cut it)."""
    if isinstance(body, str):
        try:
            return loads(body)
        except ValueError:
            return body[:_ERROR_TEXT_LIMIT]
    return body
