"""mcptui.model.redaction: credential values go, names and structure stay, everything else is
untouched."""

from __future__ import annotations

import copy
import random
import re
from typing import Any

import pytest
from mcptui.io.recording import event_line
from mcptui.model import redaction
from mcptui.model.events import Event
from mcptui.model.redaction import (
    REDACTED,
    needs_redaction,
    redact,
    redact_event,
    redact_headers,
    redact_text,
    redact_url,
    request_secrets,
    url_secrets,
)


def test_mcp_tool_headers_and_authorization_are_hidden_names_kept():
    request = {
        "model": "gpt-5",
        "tools": [
            {
                "type": "mcp",
                "server_label": "gh",
                "server_url": "https://mcp.example/mcp",
                "headers": {
                    "X-Token-Of-Sorts": "abc",
                    "Cookie": "sid=1",
                    "X-Nested": {"inner": "zzz"},
                },
                "authorization": "oauth-abcdef",
                "allowed_tools": ["search"],
                "require_approval": "never",
            },
        ],
    }
    original = copy.deepcopy(request)

    out = redact(request)

    assert out == {
        "model": "gpt-5",
        "tools": [
            {
                "type": "mcp",
                "server_label": "gh",
                "server_url": "https://mcp.example/mcp",
                "headers": {
                    "X-Token-Of-Sorts": REDACTED,
                    "Cookie": REDACTED,
                    "X-Nested": {"inner": REDACTED},
                },
                "authorization": REDACTED,
                "allowed_tools": ["search"],
                "require_approval": "never",
            },
        ],
    }
    assert request == original  # a copy: the input is not changed


def test_credential_keys_at_any_depth_any_case():
    value = {
        "a": [
            {
                "b": {
                    "API_KEY": "k1",
                    "Authorization": "Basic dXNlcjpwYXNz",
                    "client_secret": "s",
                    "Password": "p",
                    "count": 3,
                }
            }
        ]
    }
    assert redact(value) == {
        "a": [
            {
                "b": {
                    "API_KEY": REDACTED,
                    "Authorization": REDACTED,
                    "client_secret": REDACTED,
                    "Password": REDACTED,
                    "count": 3,
                }
            }
        ]
    }


def test_absent_credentials_stay_absent():
    # None means nothing was sent; showing <redacted> would claim otherwise.
    assert redact({"headers": None, "authorization": None}) == {
        "headers": None,
        "authorization": None,
    }
    assert redact({"headers": {"X-A": None}}) == {"headers": {"X-A": None}}


def test_key_like_and_bearer_strings_anywhere():
    value = {
        "message": "Incorrect API key provided: sk-proj-abcdEFGH1234_-xy.",
        "log": ["sent Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def"],
    }
    assert redact(value) == {
        "message": f"Incorrect API key provided: {REDACTED}.",
        "log": [f"sent Authorization: Bearer {REDACTED}"],
    }


def test_redact_text():
    assert redact_text("key sk-abcdefgh12345678 end") == f"key {REDACTED} end"
    assert redact_text("bearer abcdefgh1234") == f"bearer {REDACTED}"
    assert redact_text("nothing to see") == "nothing to see"
    assert redact_text("sk-short") == "sk-short"  # too short to be a key


def test_non_credentials_are_untouched():
    value = {
        "type": "response.output_text.delta",
        "sequence_number": 4,
        "delta": "Hello",
        "usage": {"input_tokens": 10, "output_tokens": 2},
        "flag": True,
        "x": None,
        "list": [1, 2.5, "three"],
    }
    assert redact(value) == value


def test_redact_headers():
    headers = {
        "Authorization": "Bearer sk-abcdefghijkl",
        "X-API-Key": "k",
        "set-cookie": "a=b",
        "content-type": "text/event-stream",
        "x-note": "retry with Bearer abcdefghijkl",
    }
    assert redact_headers(headers) == {
        "Authorization": REDACTED,
        "X-API-Key": REDACTED,
        "set-cookie": REDACTED,
        "content-type": "text/event-stream",
        "x-note": f"retry with Bearer {REDACTED}",
    }


def test_needs_redaction_precheck_agrees_with_redact():
    plain = '{"type":"response.output_text.delta","delta":"Hello"}'
    assert not needs_redaction(plain)
    for serialized in (
        '{"m":"sk-abcdefghijkl"}',
        '{"headers":{}}',
        '{"Authorization":"x"}',
        '{"m":"Bearer abcdefghijkl"}',
    ):
        assert needs_redaction(serialized), serialized


def test_event_line_redacts_only_when_needed():
    clean = Event({"type": "response.output_text.delta", "delta": "Hi ünïcode"}, t=1.5)
    assert (
        event_line(clean)
        == '{"t":1.5,"event":{"type":"response.output_text.delta","delta":"Hi ünïcode"}}'
    )
    dirty = Event({"type": "error", "message": "bad key sk-abcdefghijkl"})
    assert event_line(dirty) == '{"t":null,"event":{"type":"error","message":"bad key <redacted>"}}'


def test_words_containing_sk_dash_are_not_keys():
    text = "a task-oriented design for risk-adjusted returns"
    assert redact_text(text) == text


def test_ordinary_words_after_basic_or_bearer_are_kept():
    text = "This needs a basic understanding of bearer instruments."
    assert redact_text(text) == text


def test_tool_input_schema_with_a_password_property_is_kept():
    listing = {
        "type": "mcp_list_tools",
        "tools": [
            {
                "name": "create_short_url",
                "input_schema": {
                    "type": "object",
                    "properties": {
                        "password": {"type": "string", "description": "Protects the link"}
                    },
                },
            }
        ],
    }
    assert redact(listing) == listing


# -- URLs ------------------------------------------------------------------------------------

SECRET_URL = "https://mcp.example.com/s/PATHSECRET3/mcp?api_key=URLSECRET1&token=URLSECRET2&q=hi"


def test_a_server_url_loses_its_query_secrets_and_token_like_path_segments():
    request = {"tools": [{"type": "mcp", "server_label": "x", "server_url": SECRET_URL}]}

    (tool,) = redact(request)["tools"]

    assert tool["server_url"] == (
        "https://mcp.example.com/s/<redacted>/mcp?api_key=<redacted>&token=<redacted>&q=hi"
    )


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8765/mcp",
        "https://mcp.example.com/v1/2025-06-18/sse",
        "https://docs.example.com/my-server/search_files?limit=10&q=retry",
    ],
)
def test_a_server_url_without_secrets_is_kept_as_written(url: str):
    assert redact({"server_url": url}) == {"server_url": url}


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://user:hunter2@host.io/mcp", "https://user:<redacted>@host.io/mcp"),
        (
            "https://host.io/3f2a9c1e-8b7d-4c2a-9e1f-0a1b2c3d4e5f/mcp",
            "https://host.io/<redacted>/mcp",
        ),
        ("https://host.io/mcp/Zx9k2LmQ8vR4tY7wPq3N", "https://host.io/mcp/<redacted>"),
        (
            "https://host.io/mcp?sig=abc&session=1&v=2",
            "https://host.io/mcp?sig=<redacted>&session=<redacted>&v=2",
        ),
    ],
)
def test_strict_url_redaction(url: str, shown: str):
    assert redact_url(url, strict=True) == shown


AZURE = "https://r.openai.azure.com/openai/responses"


@pytest.mark.parametrize(
    "query",
    [
        "api-version=2025-04-01",
        "api-version=2025-04-01-preview",
        "api-version=2024-10-21",
        "version=2024-05-01-preview",
        "x-ms-version=2023-11-03",
        "keyVersion=2",
        "api-version=v1",
        "version=1.2.0-beta.1",
    ],
)
def test_versions_in_a_query_are_no_secrets(query: str):
    """Azure's `api-version` (and version dates anywhere) is kept, even for a server's own
    URL, and is no secret to hide elsewhere."""
    url = f"{AZURE}?{query}"
    assert redact_url(url, strict=True) == url
    assert redact_url(url) == url
    assert redact({"endpoint": url, "base_url": url, "server_url": url}) == {
        "endpoint": url,
        "base_url": url,
        "server_url": url,
    }
    assert url_secrets(url) == []


def test_beside_a_version_tokens_keys_and_signatures_still_go():
    url = (
        f"{AZURE}?api-version=2025-04-01-preview&api-key=k1&sig=2025-04-01"
        "&token=Zx9k2LmQ8vR4tY7wPq3N&keyVersion=Zx9k2LmQ8vR4tY7wPq3N&session=abc"
    )
    shown = (
        f"{AZURE}?api-version=2025-04-01-preview&api-key=<redacted>&sig=<redacted>"
        "&token=<redacted>&keyVersion=<redacted>&session=<redacted>"
    )
    assert redact_url(url, strict=True) == shown
    assert redact_text(f"calling {url} now") == f"calling {shown} now"


def test_content_urls_keep_their_paths_but_not_named_secrets():
    """A web search result's article id is not a secret; an `api_key=` in any URL is."""
    text = (
        "see https://apnews.com/article/ecf774eea5cdc7cbf88adf3887102d9b and "
        "https://cdn.example/favicon-32x32.png?token=abc123, then stop."
    )

    assert redact_text(text) == (
        "see https://apnews.com/article/ecf774eea5cdc7cbf88adf3887102d9b and "
        "https://cdn.example/favicon-32x32.png?token=<redacted>, then stop."
    )


def test_notes_about_a_server_redact_its_url_strictly():
    message = f"POST /mcp: could not reach {SECRET_URL}: connection refused"
    shown = redact_text(message, strict_urls=True)
    assert not any(s in shown for s in ("PATHSECRET3", "URLSECRET1", "URLSECRET2"))
    assert shown.endswith(": connection refused")


def test_secrets_of_a_requests_urls_are_hidden_wherever_they_are_echoed():
    request = {"tools": [{"type": "mcp", "server_label": "x", "server_url": SECRET_URL}]}
    known = request_secrets(request)
    assert set(known) == {"PATHSECRET3", "URLSECRET1", "URLSECRET2"}
    echoed = {
        "type": "response.mcp_call.failed",
        "item_id": "mcp_1",
        "error": {"message": "MCP server at mcp.example.com/s/PATHSECRET3 said 404"},
    }
    delta = {"type": "response.output_text.delta", "item_id": "m", "delta": "URLSECRET1!"}

    assert (
        redact_event(echoed, known)["error"]["message"]
        == "MCP server at mcp.example.com/s/<redacted> said 404"
    )
    assert redact_event(delta, known)["delta"] == "<redacted>!"
    plain = {"type": "response.output_text.delta", "item_id": "m", "delta": "hello"}
    assert redact_event(plain, known) is plain  # nothing to hide: not even copied


# -- finding URLs in linear time ------------------------------------------------------------

URL_SHAPES = [
    "see https://host.io/a?b=c, then",
    "x://y",
    "1a.b://c",
    "_a.b://c",
    "é.b://c",
    "://x",
    "a://",
    "a://.",
    "a://.,)",
    "a:// b",
    "http://a://b",
    "a.://x",
    "-a://x",
    ":://x:://y",
    "(https://host.io/p)",
    "<http://h/>",
    "'a://b'",
    "a://b\u2003c://d",
    "ab1+.-://z/",
    "https://x/y.",
    "f://a b://c d://e",
    "a.a.a.a ://x",
    "http://a?x=1&y=2#z",
]


@pytest.mark.parametrize("text", URL_SHAPES)
def test_urls_are_found_where_the_url_regex_finds_them(text: str):
    assert list(redaction.url_spans(text)) == [m.span() for m in redaction._URL.finditer(text)]


def test_urls_found_as_the_regex_finds_them_in_mixed_text():
    pieces = ["://", "http", "a", "1", ".", "_", "é", " ", "/", "?", "x=1", "&", ")", "'", ":"]
    rng = random.Random(5)
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        assert list(redaction.url_spans(text)) == [m.span() for m in redaction._URL.finditer(text)]


class _Counted(frozenset[str]):
    reads = 0

    def __contains__(self, item: object) -> bool:
        _Counted.reads += 1
        return super().__contains__(item)


@pytest.mark.parametrize(
    "text",
    [
        "a." * 200_000 + " ://x",  # redacted in 127 s by the regex (the 400 KB file)
        "a." * 200_000 + "://x",
        ":://" * 100_000,
        "a://." * 80_000,
        "http://x " * 50_000,
    ],
    ids=["a.a.a ://x", "a.a.a://x", ":://", "a://.", "http://x"],
)
def test_finding_urls_reads_each_character_a_bounded_number_of_times(
    text: str, monkeypatch: pytest.MonkeyPatch
):
    """Linear by construction, not by a clock: the `_URL` regex itself is never run (each
    letter of `a.a.a.…` was a start reading to the end of the run), and the characters
    `url_spans` reads back and forward add up to a few times the text's length."""
    forward = re.compile(r"[^\s\"'<>`]*")
    scanned = {"back": 0, "start": 0, "rest": 0}

    class Start:
        def search(self, string: str, pos: int, endpos: int) -> re.Match[str] | None:
            scanned["start"] += endpos - pos
            return start.search(string, pos, endpos)

    class Rest:
        def match(self, string: str, pos: int) -> re.Match[str] | None:
            run = forward.match(string, pos)
            scanned["rest"] += run.end() - pos + 1 if run else 1
            return rest.match(string, pos)

    class Unused:
        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"the _URL regex was run ({name})")

    monkeypatch.setattr(redaction, "_URL", Unused())
    start, rest = redaction._SCHEME_START, redaction._URL_REST
    monkeypatch.setattr(redaction, "_SCHEME_START", Start())
    monkeypatch.setattr(redaction, "_URL_REST", Rest())
    _Counted.reads = 0
    monkeypatch.setattr(redaction, "_SCHEME_CHARS", _Counted(redaction._SCHEME_CHARS))

    redaction.redact_text(text)

    scanned["back"] = _Counted.reads
    assert sum(scanned.values()) <= 3 * len(text), scanned
