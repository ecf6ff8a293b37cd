"""Plain links need no redaction: the pre-checks (`needs_redaction` and its byte forms) pass
a URL without a password, a query or a fragment, and never pass one that `redact` changes."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from mcptui.model import redaction
from mcptui.model.jsonsafe import dumps
from mcptui.model.redaction import (
    SharedTexts,
    needs_redaction,
    redact,
    utf8_needs_redaction,
    written_needs_redaction,
)

LINKS = {
    "title": "bench — result 1",
    "url": "https://example.com/bench/1",
    "text": 'see "https://docs.example.org/a/b-c/d.html" and\nhttp://x.io/p, then https://y.io.',
}


def checks(value: Any) -> dict[str, bool]:
    text = dumps(value)
    return {
        "needs_redaction": needs_redaction(text),
        "utf8_needs_redaction": utf8_needs_redaction(text.encode()),
        "written_needs_redaction": written_needs_redaction(text.encode()),
        "SharedTexts": SharedTexts().needs_redaction(text.encode(), ()),
    }


def test_plain_links_need_no_redaction() -> None:
    assert redact(LINKS) == LINKS
    assert checks(LINKS) == dict.fromkeys(checks(LINKS), False)


@pytest.mark.parametrize(
    "url",
    [
        "https://user:pw@host.io/x",
        "https://host.io/x?token=abcdef123456",
        "https://host.io/x#access_token=abcdef123456",
    ],
)
def test_a_link_with_a_password_or_a_secret_parameter_is_redacted(url: str) -> None:
    value = {"text": f"go to {url} now"}
    assert redact(value) != value
    assert all(checks(value).values()), checks(value)


def test_a_servers_own_url_is_checked_whatever_its_shape() -> None:
    """Under `server_url` a path is redacted strictly: the key alone sends it the thorough
    way, also when its URL starts past what `SharedTexts` reads around a long text."""
    for value in (
        {"server_url": "https://mcp.example.com/s/PATHSECRET3/mcp"},
        {"Server_URL": "x" * 3000 + " https://mcp.example.com/s/PATHSECRET3/mcp"},
    ):
        assert redact(value) != value
        assert all(checks(value).values()), checks(value)


PIECES = [
    "https://",
    "http://",
    "://",
    "host.io",
    "user:pw@",
    "@",
    "/",
    "p",
    "PATHSECRET3",
    "?",
    "token=abcdef123456",
    "q=1",
    "&",
    "#",
    "=",
    " ",
    "\n",
    '"',
    "\\",
    "\u00a0",
    "\u2003",
    "é",
    "'",
    "<",
    ".",
    ",",
    "x" * 40,
]
KEYS = ["text", "url", "server_url", "BASE_URL", "Endpoint", "note", "href"]


def random_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth < 3 and roll < 0.3:
        return {rng.choice(KEYS): random_value(rng, depth + 1) for _ in range(rng.randint(1, 3))}
    if depth < 3 and roll < 0.4:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(1, 3))]
    text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 12)))
    if rng.random() < 0.05:  # a long text: `SharedTexts` reads around it
        text = "y" * 2100 + text
    return text


def test_no_pre_check_passes_what_redact_would_change() -> None:
    """Sound on random mixes of links, passwords, queries, fragments, escapes and the keys of
    a server's own URL; and not a check that says yes to every link."""
    rng = random.Random(37)
    passed = changed = 0
    for _ in range(6000):
        value = random_value(rng)
        hidden = redact(value) != value
        said = checks(value)
        changed += hidden
        if hidden:
            assert all(said.values()), (value, said)
        elif "://" in dumps(value) and not any(said.values()):
            passed += 1
    assert changed > 200 and passed > 500, (changed, passed)


def test_links_are_looked_at_in_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: each `://` is read on to the first quote, space, `@`, `?` or `#`
    once, so `://://…` costs its length (a search from each `://` to the end of its run was
    quadratic)."""
    scanned = 0
    stop = redaction._URL_STOP

    class Counted:
        def search(self, text: str, pos: int) -> re.Match[str] | None:
            nonlocal scanned
            found = stop.search(text, pos)
            scanned += (found.end() if found else len(text)) - pos
            return found

    monkeypatch.setattr(redaction, "_URL_STOP", Counted())
    for text in ("://" * 100_000, '"a://b' * 50_000, "x://y/" * 60_000 + "@"):
        scanned = 0
        assert needs_redaction(text) is text.endswith("@")
        assert 0 < scanned <= len(text), (text[:12], scanned)
