"""Redaction: the one function every writer and exporter passes data through.

Requests carry API keys and MCP credentials (`tools[].headers`, `tools[].authorization`), and
recordings, reports, logs and screenshots get shared in forum posts. Names and structure stay so
a reader can still see *that* a header was sent; values become `<redacted>`.

URLs carry secrets too: MCP servers are often reached at `…/mcp?api_key=…` or at a path with a
token in it (`/s/<token>/mcp`). In every URL (any string holding `://`) the values of
secret-named query parameters and a password in the user part become `<redacted>`. A server's
own URL (`server_url`, an endpoint, and the URLs in mcptui's notes) is redacted strictly: also
every path segment and query value that mixes letters and digits like a token. Content URLs
(web search results, citations) keep their paths: an article id is not a secret. The parts
redacted from a request's server URLs are then hidden wherever else they appear
(`Scrubber`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from itertools import pairwise
from typing import Any

from mcptui.model.events import Event
from mcptui.model.jsonsafe import dumps, loads

REDACTED = "<redacted>"

CREDENTIAL_KEYS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "api_key",
        "apikey",
        "openai-api-key",
        "cookie",
        "set-cookie",
        "x-auth-token",
        "access_token",
        "refresh_token",
        "client_secret",
        "password",
        "secret",
    }
)
"""Keys whose values are credentials wherever they appear (compared case-insensitively)."""

SECRET_QUERY_NAME = re.compile(
    r"key|token|secret|passw|pwd|auth|sig|credential|session|code|jwt|access|private", re.IGNORECASE
)
"""Query parameter names whose values are credentials (`api_key`, `token`, `sig`, `code`…)."""
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s\"'<>`]*[^\s\"'<>`.,:;!?)\]}]")
"""What a URL is in free text. Documents `url_spans`, which finds the same matches in linear
time: searched as a regex, each letter of a long `a.a.a.…` run is a start that reads to the
end of the run, so 400 KB took two minutes."""
_SCHEME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+.-")
_SCHEME_START = re.compile(r"\b[A-Za-z]")
_URL_REST = re.compile(r"[^\s\"'<>`]*[^\s\"'<>`.,:;!?)\]}]")
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_\-.~%+=]+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-fA-F]{24,}")
_SEPARATORS = re.compile(r"[-_.~%+=]")
_VERSION = re.compile(
    r"v?\d+(\.\d+)*[a-z]?\d*"  # v1, 2, 1.2.3, 3b2
    r"|v?\d+(\.\d+)+-(alpha|beta|rc|preview|dev)(\.?\d+)?"  # 1.2.0-beta.1
    r"|(19|20)\d\d-\d\d-\d\d(-(preview|alpha|beta|rc|ga)(\.?\d+)?)?",  # 2025-04-01-preview
    re.IGNORECASE,
)
"""A version or a version date (Azure's `api-version=2025-04-01-preview`): never a secret."""
_VERSION_NAME = re.compile(r"version$", re.IGNORECASE)
"""A query parameter naming a version (`api-version`, `x-ms-version`, `keyVersion`): its value
is kept when it reads as a version, even if the name also says `key`."""

_API_KEY = re.compile(r"(?<![A-Za-z0-9_\-])sk-[A-Za-z0-9_\-]{10,}")
# "Bearer"/"Basic" as headers spell them take any token; lower-case "bearer" only a token with
# a digit in it ("bearer instruments" is prose).
_BEARER = re.compile(
    r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=\-]{12,}"
    r"|\b(bearer)\s+(?=[A-Za-z._~+/=\-]*\d)[A-Za-z0-9._~+/=\-]{12,}"
)


_QUOTED_KEYS = re.compile(
    '"(?:' + "|".join(re.escape(key) for key in ("headers", *sorted(CREDENTIAL_KEYS))) + ')"',
    re.IGNORECASE,
)
_QUOTED_KEY_BYTES = re.compile(_QUOTED_KEYS.pattern.encode(), re.IGNORECASE)
"""JSON keys whose values `redact` hides, as they appear in serialized JSON, in any case: one
search that stops only at quotes (on a 10 KB text: 6 µs, against 45 for a search a key)."""


def _prefix_tree(words: list[str]) -> str:
    """A regex alternation of `words` grouped by their first letters, level by level
    (`a(?:pi(?:-key|_key|key)|…)`): the regex engine tries each branch in turn at every
    quote of the text, so a flat list of 16 keys tried 16; grouped, it tries at most 8."""
    if "" in words:
        rest = [word for word in words if word]
        return f"(?:{_prefix_tree(rest)})?" if rest else ""
    groups: dict[str, list[str]] = {}
    for word in words:
        groups.setdefault(word[0], []).append(word[1:])
    branches = [re.escape(first) + _prefix_tree(tails) for first, tails in sorted(groups.items())]
    return branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"


_LOWER_QUOTED_KEYS = re.compile(f'"{_prefix_tree(["headers", *sorted(CREDENTIAL_KEYS)])}"')
_LOWER_QUOTED_KEY_BYTES = re.compile(_LOWER_QUOTED_KEYS.pattern.encode())
"""The same keys, searched in lower-cased text, case-sensitively, as a prefix tree: a tenth of
the time of the case-blind search (bench/live.py's text deltas: 0.9 µs a line, against 2.2
case-sensitive and flat, and 7.7 case-blind), and the same answer on a text without
`ASCII_FOLDS` (see `_quoted_key_in`)."""
ASCII_FOLDS = ("\u0130", "\u0131", "\u017f", "\u212a")
"""The only characters besides ASCII letters that a case-blind regex matches to an ASCII
letter, or that lower-case to one (`İ ı ſ K`: i, i, s, k; tests/unit/test_redaction_fast.py
finds them among all of Unicode)."""
_ASCII_FOLD_BYTES = tuple(fold.encode() for fold in ASCII_FOLDS)


def redact(value: Any) -> Any:
    """A copy of `value` with every credential replaced by `<redacted>`.

    Covers credential-named keys at any depth, every value under an MCP tool's `headers`, the
    tool's `authorization`, and API-key-like or bearer strings anywhere.
    """
    return _redact(value, in_headers=False)


STRICT_URL_KEYS = frozenset({"server_url", "base_url", "endpoint"})
"""Keys whose values are a server's own URL: redacted strictly (`redact_url(strict=True)`)."""


def looks_random(part: str) -> bool:
    """A path segment or query value that reads like a token, not a name: a UUID, a long hex
    string, or a long unbroken run of letters and digits mixed the way generated ids are
    (`Zx9k2LmQ8vR4tY7w`), unlike `favicon-32x32.png`, `my-server-2024` or `search_files`."""
    if len(part) < 16 or not _TOKEN_CHARS.fullmatch(part):
        return False
    if _UUID.fullmatch(part) or _HEX.fullmatch(part):
        return True
    for run in _SEPARATORS.split(part):
        if len(run) < 16:
            continue
        classes = ["d" if c.isdigit() else "u" if c.isupper() else "l" for c in run]
        switches = sum(1 for a, b in pairwise(classes) if a != b)
        if switches >= 5 and "d" in classes:
            return True
    return False


def looks_secret(part: str) -> bool:
    """Strict: a part of a server's own URL that may be a credential: random-looking, or
    eight characters or more mixing letters and digits (`PATHSECRET3`, `k8Xw2pQz`)."""
    if looks_random(part):
        return True
    return (
        len(part) >= 8
        and any(c.isdigit() for c in part)
        and any(c.isalpha() for c in part)
        and not _VERSION.fullmatch(part)
    )


def url_secrets(url: str, *, strict: bool = True) -> list[str]:
    """The parts of a server's URL that strict redaction hides, as written in it (with
    `strict` False: those any URL's redaction hides, a password and secret query values)."""
    redacted = redact_url(url, strict=strict)
    if redacted == url:
        return []
    kept = set(re.split(r"[/?&=#:@]", redacted))
    return [
        part
        for part in re.split(r"[/?&=#:@]", url)
        if part and part not in kept and len(part) >= 4 and REDACTED not in part
    ]


def redact_url(url: str, *, strict: bool = False) -> str:
    """`https://user:<redacted>@host/s/<redacted>/mcp?api_key=<redacted>&q=x`: credentials
    and (with `strict`, for a server's own URL) token-like parts of one URL hidden, the rest
    kept as written."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    rest, hash_sign, fragment = rest.partition("#")
    rest, question, query = rest.partition("?")
    authority, slash, path = rest.partition("/")
    if "@" in authority:
        user, _, host = authority.rpartition("@")
        name, colon, _password = user.partition(":")
        authority = f"{name}{colon}{REDACTED if colon else ''}@{host}"
    if path and strict:
        path = "/".join(REDACTED if looks_secret(part) else part for part in path.split("/"))
    if query:
        query = "&".join(_redact_parameter(pair, strict) for pair in query.split("&"))
    if fragment and "=" in fragment:
        fragment = "&".join(_redact_parameter(pair, strict) for pair in fragment.split("&"))
    return f"{scheme}{sep}{authority}{slash}{path}{question}{query}{hash_sign}{fragment}"


_HEADER_FLAGS = frozenset({"--header", "-H"})
_SECRET_FLAG = re.compile(
    r"^--?[\w-]*(key|token|secret|passw|auth|cookie|credential)[\w-]*$", re.IGNORECASE
)


def argv_secrets(argv: Sequence[str]) -> list[str]:
    """The secrets a command line holds: values of `--header NAME=VALUE` (`-H`), of flags
    named like a credential (`--api-key`, `--token`), and the secret parts of its URLs."""
    found: list[str] = []
    expects = ""
    for arg in argv:
        flag, equals, inline = arg.partition("=") if arg.startswith("-") else ("", "", "")
        if expects in _HEADER_FLAGS or (equals and flag in _HEADER_FLAGS):
            value = inline if equals and flag in _HEADER_FLAGS else arg
            name, _, header_value = value.partition("=")
            found += value_secrets(header_value) or ([header_value] if header_value else [])
            found += value_secrets(name.partition(":")[2])
        elif _SECRET_FLAG.match(expects) or (equals and _SECRET_FLAG.match(flag)):
            found += value_secrets(inline if equals else arg) or [inline if equals else arg]
        found += url_secrets(arg) if "://" in arg else []
        found += _credential_pair_secrets(arg)
        expects = arg if arg.startswith("-") and not equals else ""
    return merge_secrets(found)


def _credential_pair_secrets(arg: str) -> list[str]:
    """`X-Api-Key=VALUE` or `Cookie: VALUE` anywhere on a command line (after a mistyped
    `--hedaer`, say): the value is a credential whatever flag it follows."""
    cut = min((at for at in (arg.find("="), arg.find(":")) if at >= 0), default=-1)
    name, sep, value = (arg[:cut], arg[cut], arg[cut + 1 :]) if cut >= 0 else (arg, "", "")
    value = value.strip()
    if not sep or not value or name.strip().lower() not in CREDENTIAL_KEYS:
        return []
    return value_secrets(value) or [value]


def redact_argv(argv: Sequence[str]) -> str:
    """A command line as it may be logged: its secrets (`argv_secrets`) hidden."""
    return hide_known(redact_text(" ".join(argv), strict_urls=True), argv_secrets(argv))


def redact_target(target: str) -> str:
    """An HTTP request target (`/v1/responses?api_key=…`) with its secret query values
    hidden, for a line that names the request."""
    if "?" not in target and "#" not in target:
        return target
    return redact_url("http://-" + target).removeprefix("http://-")


def _redact_parameter(pair: str, strict: bool) -> str:
    name, equals, value = pair.partition("=")
    if _VERSION_NAME.search(name) and _VERSION.fullmatch(value):
        return pair
    if equals and value and (SECRET_QUERY_NAME.search(name) or (strict and looks_secret(value))):
        return f"{name}={REDACTED}"
    return pair


def url_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where `_URL.finditer(text)` finds its matches, found in time linear in `text`: from
    each `://` back over its scheme's characters (none of them a `:`, so each character is
    read back at most once) to the first place the scheme may start, then forward over the
    rest (a run that cannot end a URL holds no `/`, so no other `://` either)."""
    floor = 0  # where the last match ended: the next one starts here or later
    at = text.find("://")
    while at >= 0:
        first = at
        while first > floor and text[first - 1] in _SCHEME_CHARS:
            first -= 1
        start = _SCHEME_START.search(text, first, at)
        rest = _URL_REST.match(text, at + 3) if start else None
        if start and rest:
            yield start.start(), rest.end()
            floor = rest.end()
            at = text.find("://", floor)
        else:
            at = text.find("://", at + 1)


def redact_text(text: str, *, strict_urls: bool = False) -> str:
    """Redact key-like and bearer strings, and the secrets in URLs, in free text (log lines,
    error messages); `strict_urls` for text about a server's own URL (mcptui's notes)."""
    if "://" in text:
        pieces: list[str] = []
        done = 0
        for start, end in url_spans(text):
            pieces += (text[done:start], redact_url(text[start:end], strict=strict_urls))
            done = end
        if pieces:
            pieces.append(text[done:])
            text = "".join(pieces)
    if "sk-" in text:
        text = _API_KEY.sub(REDACTED, text)
    if "earer" in text or "Basic" in text:
        text = _BEARER.sub(lambda m: f"{m.group(1) or m.group(2)} {REDACTED}", text)
    return text


def _credential_json(text: str) -> Any:
    """The JSON document held in `text` when it names a credential key, else None."""
    lowered = text.lower()
    if not any(f'"{key}"' in lowered for key in CREDENTIAL_KEYS):
        return None
    try:
        return loads(text)
    except ValueError:
        return None


def redact_json_text(text: str) -> str:
    """A JSON document held in a string (a tool call's `arguments`) with credential-named
    keys redacted inside it, re-serialized only when something was hidden: `redact` sees
    such a string as text, and `{"api_key": "…"}` in it as no credential."""
    value = _credential_json(text)
    if value is None:
        return text
    hidden = redact(value)
    return text if hidden == value else dumps(hidden)


def json_text_secrets(text: str) -> list[str]:
    """The values under credential-named keys of a JSON document held in a string: to hide
    them also where the document arrived in pieces (argument deltas)."""
    value = _credential_json(text)
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, item in node.items():
                if str(key).lower() in CREDENTIAL_KEYS and isinstance(item, str) and len(item) >= 4:
                    found.append(item)
                else:
                    walk(item)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(value)
    return found


def redact_headers(headers: Any) -> dict[str, str]:
    """HTTP headers with credential values hidden, e.g. for a recording's response headers."""
    return {
        str(k): (REDACTED if str(k).lower() in CREDENTIAL_KEYS else redact_text(str(v)))
        for k, v in dict(headers).items()
    }


def needs_redaction(serialized: str) -> bool:
    """Cheap pre-check on serialized JSON: could `redact` change anything?

    Lets a writer skip the deep copy on the hot path: most stream events hold no credentials,
    and most URLs (`https://example.com/docs/1`) none either (`url_may_hide`).
    """
    if "sk-" in serialized or "earer" in serialized or "Basic" in serialized:
        return True
    lowered = serialized.lower()
    if "basic " in lowered or _quoted_key_in(serialized, lowered):
        return True
    if any(key in lowered for key in _STRICT_QUOTED_KEYS):
        return True  # a server's own URL: its path is redacted strictly
    return "://" in serialized and ("\\u" in serialized or url_may_hide(serialized))


_URL_STOP = re.compile(r'[" @?#]')
_URL_STOP_BYTES = re.compile(rb'[" @?#]')
_STRICT_QUOTED_KEYS = tuple(f'"{key}"' for key in sorted(STRICT_URL_KEYS))
_STRICT_QUOTED_KEY_BYTES = tuple(key.encode() for key in _STRICT_QUOTED_KEYS)


def url_may_hide(text: str) -> bool:
    """Could redacting the URLs in JSON text `text` change one, when none is a server's own
    (under a `STRICT_URL_KEYS` key: its path is redacted strictly, so the callers look for
    those keys first)? Only where one has a password (`user:pw@host`), a query or a fragment
    (`?`, `#`): `redact_url` keeps the rest as written. A URL in the decoded value ends at a
    quote or a space, and within it nothing these look for is escaped in JSON, so the run
    after each `://` up to the first quote or space holds all of its URL (an escape such as
    `\\u0040` aside, which the callers send the thorough way).

    Results of a search tool are full of plain links: through the tap, one `tools/call` of the
    demo server's `search` (three links) cost the recorder 0.30 ms of CPU, 0.13 ms of it in
    redacting (twice: as the note was made and as it was written) what had nothing to hide."""
    return _place_after_scheme(text, "://", _URL_STOP, '" ')


def url_bytes_may_hide(line: bytes) -> bool:
    """`url_may_hide` on UTF-8 JSON (what it looks for is ASCII, spelled the same)."""
    return _place_after_scheme(line, b"://", _URL_STOP_BYTES, b'" ')


def _place_after_scheme(text: Any, sep: Any, stop: re.Pattern[Any], ends: Any) -> bool:
    """Whether the run after some `sep` (`://`) reaches a `@`, `?` or `#` before a quote or a
    space (`ends`). Linear in `text`: a `://` inside a run already read ends where that run
    ends, so the next is looked for past it (a regex search from each `://` re-read the run
    for each: quadratic on `://://…`)."""
    at = text.find(sep)
    while at >= 0:
        found = stop.search(text, at + len(sep))
        if found is None:
            return False
        if found.group() not in ends:
            return True
        at = text.find(sep, found.end())
    return False


def _quoted_key_in(serialized: str, lowered: str) -> bool:
    """`_QUOTED_KEYS.search(serialized)`, searched case-sensitively in `lowered` when it can
    be: lower-casing maps ASCII to ASCII and, but for `ASCII_FOLDS`, nothing else to ASCII,
    so a key (all ASCII) is in one where it is in the other."""
    if not serialized.isascii() and any(fold in serialized for fold in ASCII_FOLDS):
        return _QUOTED_KEYS.search(serialized) is not None
    return _LOWER_QUOTED_KEYS.search(lowered) is not None


def utf8_needs_redaction(text: bytes) -> bool:
    """`needs_redaction(text.decode())` for UTF-8 `text`, asked of the bytes (ASCII is
    spelled the same in UTF-8, and `bytes.lower` lower-cases only it). A recording writer
    asks it once of a batch of lines joined by newlines, which nothing it looks for holds:
    a batch with nothing to hide has nothing in any line (bench/live.py's text deltas, on a
    loaded 2-core machine: 2.1 µs a line in batches, joining included; `needs_redaction` line
    by line 2.4 µs, and 8.1 µs before its keys were searched in lower-cased text). What is
    left is scanning bytes: seven passes over each line."""
    if b"sk-" in text or b"earer" in text or b"Basic" in text:
        return True
    if not text.isascii() and any(fold in text for fold in _ASCII_FOLD_BYTES):
        return needs_redaction(text.decode("utf-8", "replace"))
    lowered = text.lower()
    if b"basic " in lowered or _LOWER_QUOTED_KEY_BYTES.search(lowered) is not None:
        return True
    return _links_may_hide(text, lowered)


def written_needs_redaction(line: bytes, known: Sequence[str] = ()) -> bool:
    """`needs_redaction` (and a look for `known` secrets) on JSON as it was written, e.g. a
    recording's line, so that an event with nothing to hide is not serialised again to find
    out. Searched as UTF-8 bytes (what is looked for is ASCII, which UTF-8 spells the same
    way, and no str is built): a 10 KB `text.done` line costs 40 µs, not 190. What could spell
    it otherwise sends the line the thorough way (`redact_event` on the decoded value): an
    escape (`\\u…`, `\\/`), or a Kelvin sign (which lower-cases to an ASCII `k`)."""
    # Each needle is at most `NEEDLE_REACH` bytes long, and a link's run (`url_bytes_may_hide`)
    # lies between two quotes (`SharedTexts` relies on both).
    if b"\\u" in line or b"\\/" in line or b"\xe2\x84\xaa" in line:
        return True
    if b"sk-" in line or b"earer" in line or b"Basic" in line:
        return True
    lowered = line.lower()
    return (
        b"basic " in lowered
        or _QUOTED_KEY_BYTES.search(line) is not None
        or any(secret.encode() in line for secret in known)
        or _links_may_hide(line, lowered)
    )


def _links_may_hide(text: bytes, lowered: bytes) -> bool:
    """What the byte checks ask of links: a server's own URL (strictly redacted) anywhere, or
    a link redaction could change (`url_bytes_may_hide`; an escape may spell one)."""
    if any(key in lowered for key in _STRICT_QUOTED_KEY_BYTES):
        return True
    return b"://" in text and (b"\\u" in text or url_bytes_may_hide(text))


NEEDLE_REACH = max(
    len(b"basic "),
    len(b"earer"),
    len(b"\xe2\x84\xaa"),
    *(len(key) + 2 for key in ("headers", *CREDENTIAL_KEYS, *STRICT_URL_KEYS)),
)
"""The longest thing `written_needs_redaction` looks for (a `known` secret aside), in bytes."""
SHARED_TEXT = 2048
"""Bytes a text between two quotes has before `SharedTexts` remembers its verdict."""
SHARED_KEPT = 64
"""Verdicts `SharedTexts` keeps (an item's text is read back a few times, one after another)."""


class SharedTexts:
    """`written_needs_redaction` for lines that repeat a long text, each text searched once.

    A message's text comes whole in its `output_text.done`, `content_part.done` and
    `output_item.done`: 10 KB read back and searched for secrets three times (about 65 µs each,
    five times the cost of decoding it). Here a line's longest run between two quotes is
    searched once and its verdict kept; the rest of the line is searched every time. Sound:
    whatever is looked for is at most `reach` bytes long or (a link's run) holds no quote, so
    each occurrence lies wholly in the run or in one of the two ends, each taken `reach` bytes
    into the run."""

    def __init__(self) -> None:
        self._verdicts: dict[bytes, bool] = {}
        self._known: tuple[str, ...] = ()
        self._reach = NEEDLE_REACH

    def needs_redaction(self, line: bytes, known: Sequence[str] = ()) -> bool:
        if len(line) < SHARED_TEXT:
            return written_needs_redaction(line, known)
        if tuple(known) != self._known:  # a secret learnt: verdicts and reach are stale
            self._known = tuple(known)
            self._reach = max([NEEDLE_REACH, *(len(secret.encode()) for secret in known)])
            self._verdicts.clear()
        reach = self._reach
        lengths = list(map(len, line.split(b'"')))
        longest = max(lengths)
        if longest < SHARED_TEXT or longest < 4 * reach:
            return written_needs_redaction(line, known)
        at = lengths.index(longest)
        start = sum(lengths[:at]) + at  # each run before it, and the quote after each
        end = start + longest
        if written_needs_redaction(line[: start + reach], known) or written_needs_redaction(
            line[end - reach :], known
        ):
            return True
        run = line[start:end]
        verdict = self._verdicts.get(run)
        if verdict is None:
            if len(self._verdicts) >= SHARED_KEPT:
                self._verdicts.clear()  # a bound, not a cache policy
            verdict = self._verdicts[run] = written_needs_redaction(run, known)
        return verdict


def text_needs_redaction(text: str) -> bool:
    """Could `redact_text` change `text`? (What it looks for, checked without a regex; the
    same test is inlined in `redact_event`, in mcptui/model/fast_read.py `plain_delta` (and its
    copies in tui/mcptui/model/ingest.py's payload loop and tui/mcptui/io/indexed.py's
    `RecordingReader._rows`) and, on bytes, in `written_needs_redaction`.)"""
    return "sk-" in text or "://" in text or "earer" in text or "Basic" in text


def _redact(value: Any, *, in_headers: bool) -> Any:
    if isinstance(value, dict):
        # An MCP tool's headers are all credentials as far as we can know; other `headers`
        # (HTTP response headers) keep their harmless values such as x-request-id.
        is_tool = value.get("type") == "mcp" or "server_url" in value
        out: dict[str, Any] = {}
        for key, item in value.items():
            lowered = key.lower() if isinstance(key, str) else key
            if in_headers:
                out[key] = (
                    _redact(item, in_headers=True)
                    if isinstance(item, dict | list)
                    else (None if item is None else REDACTED)
                )
            elif lowered in CREDENTIAL_KEYS:
                out[key] = _redact_leaf(item)
            elif lowered == "headers" and is_tool:
                out[key] = _redact(item, in_headers=True)
            elif lowered in STRICT_URL_KEYS and isinstance(item, str):
                out[key] = redact_text(item, strict_urls=True)
            else:
                out[key] = _redact(item, in_headers=False)
        return out
    if isinstance(value, list):
        return [_redact(item, in_headers=in_headers) for item in value]
    if isinstance(value, str):
        return REDACTED if in_headers else redact_text(value)
    return value


def _redact_leaf(value: Any) -> Any:
    """Hide a credential's value (None stays None: nothing was sent).

    A structured value under a credential-like name (an input schema's `api_key` property,
    say) is not itself a credential: it is searched like any other value.
    """
    if value is None:
        return None
    if isinstance(value, dict | list):
        return _redact(value, in_headers=False)
    return REDACTED


MIN_SECRET = 6
"""Characters a value needs to be hidden wherever it appears: a header valued `1` or `yes`
would otherwise hide every `1` and `yes` of a stream."""
_AUTH_SCHEME = re.compile(r"^\s*(?:Bearer|Basic|Token|Digest|ApiKey)\s+(\S+)\s*$", re.IGNORECASE)


def value_secrets(value: Any) -> list[str]:
    """A credential's value as it may be echoed: whole, the token after an auth scheme
    (`Bearer abc…` → `abc…`), and each value of a cookie (`sid=abc…; lang=en` → `abc…`).
    Values already hidden, and those too short to be told from ordinary text, are none."""
    if not isinstance(value, str):
        return []
    text = value.strip()
    if len(text) < MIN_SECRET or REDACTED in text:
        return []
    found = [text]
    scheme = _AUTH_SCHEME.match(text)
    if scheme is not None:
        found.append(scheme.group(1))
    if "=" in text:
        for pair in re.split(r"[;,&]", text):
            found.append(pair.partition("=")[2].strip())
    return [part for part in found if len(part) >= MIN_SECRET]


def header_secrets(headers: Any) -> list[str]:
    """The values of credential-named HTTP headers (`Authorization`, `X-Api-Key`, `Cookie`…),
    to hide wherever they are echoed."""
    found: list[str] = []
    items = headers.items() if hasattr(headers, "items") else headers or ()
    for name, value in items:
        if str(name).lower() in CREDENTIAL_KEYS:
            found += value_secrets(value)
    return found


def text_url_secrets(text: str) -> list[str]:
    """What redaction hides in the URLs of a free text (a password, a secret query value)."""
    found: list[str] = []
    if "://" in text:
        for start, end in url_spans(text):
            found += url_secrets(text[start:end], strict=False)
    return found


def request_secrets(request: Any) -> list[str]:
    """Every secret a request names, to hide wherever it is echoed (an error message, a
    tool's arguments or output, the request's own `input`): the secret parts of its MCP
    server URLs (`url_secrets`), its MCP tools' header values and `authorization`, values
    under credential-named keys anywhere, and passwords and secret query values of any URL.
    Longest first, so that a secret holding another is hidden whole."""
    found: list[str] = []

    def walk(node: Any, in_headers: bool) -> None:
        if isinstance(node, dict):
            is_tool = node.get("type") == "mcp" or "server_url" in node
            for key, item in node.items():
                lowered = key.lower() if isinstance(key, str) else key
                if isinstance(item, str):
                    if in_headers or lowered in CREDENTIAL_KEYS:
                        found.extend(value_secrets(item))
                    elif lowered in STRICT_URL_KEYS:
                        found.extend(url_secrets(item))
                    else:
                        found.extend(text_url_secrets(item))
                else:
                    walk(item, in_headers or (lowered == "headers" and is_tool))
        elif isinstance(node, list):
            for item in node:
                if isinstance(item, str):
                    found.extend(value_secrets(item) if in_headers else text_url_secrets(item))
                else:
                    walk(item, in_headers)

    walk(request, False)
    return sorted(set(found), key=len, reverse=True)


def response_echo_secrets(event: dict[str, Any]) -> list[str]:
    """The secrets of the MCP server URLs that an event's Response object echoes (its `tools`):
    those of a `response.*` event that is not a delta; none of any other."""
    kind = event.get("type")
    if isinstance(kind, str) and kind.startswith("response.") and not kind.endswith(".delta"):
        return request_secrets(event.get("response"))
    return []


def merge_secrets(*groups: Sequence[str]) -> list[str]:
    """Known secrets from several places, each once, longest first (`hide_known` order)."""
    return sorted(
        {s for group in groups for s in group if len(s) >= 4 and REDACTED not in s},
        key=len,
        reverse=True,
    )


def redact_event(raw: dict[str, Any], known: Sequence[str] = ()) -> dict[str, Any]:
    """An event or note as it may be kept, shown, copied and written: `raw` itself when it
    holds nothing to hide (the common case, checked without serialising a delta). `known`
    secrets (`request_secrets`) are hidden wherever they appear."""
    # Runs once per event of every file and live stream: the delta test is inlined.
    delta = raw.get("delta")
    kind = raw.get("type")
    if type(delta) is str and len(raw) <= 8 and type(kind) is str and kind.endswith(".delta"):
        if not ("sk-" in delta or "://" in delta or "earer" in delta or "Basic" in delta) and not (
            known and any(secret in delta for secret in known)
        ):
            return raw
        return _hidden(raw, delta, known)
    return _checked(raw, known)[0]


def redacted_json(raw: dict[str, Any], known: Sequence[str] = ()) -> tuple[dict[str, Any], str]:
    """`redact_event` of an entry that is no text delta, with the JSON of what it gives: an
    entry built to be recorded (a tap's note) is serialised once to be checked, and that text
    is its recording's line (mcptui/io/recording.py `redacted_line`)."""
    out, text = _checked(raw, known)
    return out, text if out is raw else dumps(out)


def _checked(raw: dict[str, Any], known: Sequence[str]) -> tuple[dict[str, Any], str]:
    """`raw` as it may be kept (itself when it holds nothing to hide), and `raw`'s JSON."""
    text = dumps(raw)
    if not needs_redaction(text) and not (known and any(s in text for s in known)):
        return raw, text
    return _hidden(raw, text, known), text


def _hidden(raw: dict[str, Any], text: str, known: Sequence[str]) -> dict[str, Any]:
    """`raw` (serialised as `text`) with its credentials and the `known` secrets in it hidden."""
    out = redact(raw)
    if known and any(secret in text for secret in known):
        out = hide_known(out, known)
    return out


def redact_entry(event: Event, known: Sequence[str] = ()) -> None:
    """`redact_event` on a timeline entry, in place. An event read fast from a stream keeps
    its payload (no dict) unless there is something to hide in it: a delta it folds passed
    `text_needs_redaction` as it was read (mcptui/model/fast_read.py `classified`), so only a
    `known` secret is looked for; another payload is checked as written
    (`written_needs_redaction`)."""
    payload = event.payload
    if payload is not None:
        if event.lite is not None:
            if not any(secret.encode() in payload for secret in known):
                return
        elif not written_needs_redaction(payload, known):
            return
    event.raw = redact_event(event.raw, known)


def redact_entries(events: Sequence[Event], known: Sequence[str] = ()) -> None:
    """`redact_entry` on each of entries that arrived together. A text delta read fast (most
    of a stream) needs only a look for `known` secrets (see `redact_entry`): taken once on
    their payloads joined, and each is looked at alone only when the batch holds one."""
    payloads = [event.payload if event.lite is not None else None for event in events]
    joined = b"\n".join([payload for payload in payloads if payload is not None])
    plain = not any(secret.encode() in joined for secret in known)
    for event, payload in zip(events, payloads, strict=True):
        if payload is None or not plain:
            redact_entry(event, known)


def hide_known(value: Any, known: Sequence[str]) -> Any:
    """`value` (a string, or JSON-like data, keys too) with each `known` secret replaced by
    `<redacted>`: for secrets that only the request says are secrets."""
    if isinstance(value, str):
        for secret in known:
            value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, dict):
        return {hide_known(k, known): hide_known(v, known) for k, v in value.items()}
    if isinstance(value, list):
        return [hide_known(item, known) for item in value]
    return value
