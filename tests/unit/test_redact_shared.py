"""A long text repeated across lines (an item's `.done` events) is searched for secrets once:
the verdict on every line must be the one a full search gives (tui/mcptui/model/redaction.py
`SharedTexts`), whatever sits at the edges of the remembered text."""

from __future__ import annotations

import random

from mcptui.model.redaction import (
    CREDENTIAL_KEYS,
    SHARED_TEXT,
    SharedTexts,
    written_needs_redaction,
)

KNOWN = [
    "hunter2-long-known-secret-value-of-forty-bytes",
    '"quote-led-known-secret-the-longest-thing-looked-for',
]
"""Secrets a request named. The second, the longest of all that is looked for, opens with a
quote, so it can cross the edge of a run between quotes by all but one byte (nothing else
looked for can cross it)."""
NEEDLES = [
    b"sk-",
    b"://",
    b"earer",
    b"Basic",
    b"basic ",
    b"BASIC ",
    b"\\u00e9",
    b"\\/",
    "\u212a".encode(),
    b'"HEADERS"',
    *(f'"{key.upper()}"'.encode() for key in sorted(CREDENTIAL_KEYS)),
    *(secret.encode() for secret in KNOWN),
]
PLAIN = [b"a", b"b", b"e", b"k", b"r", b"s", b" ", b".", b"\\n", b"\xc3\xa9"]
"""What a text is made of: letters of the needles, a JSON escape, UTF-8 (no needle)."""


def filler(rng: random.Random, size: int) -> bytes:
    return b"".join(rng.choice(PLAIN) for _ in range(size))


def line_around(text: bytes, prefix: bytes, suffix: bytes) -> bytes:
    """An event line whose longest run between quotes is `text`."""
    return (
        b'{"t":1.0,"event":{"type":"response.output_text.done","note":"'
        + prefix
        + b'","text":"'
        + text
        + b'","tail":"'
        + suffix
        + b'"}}'
    )


def with_needle(rng: random.Random, line: bytes, around: int) -> bytes:
    """`line` with a needle put somewhere near byte `around` (across an edge, often)."""
    needle = rng.choice(NEEDLES)
    at = max(0, min(len(line), around + rng.randint(-len(needle) - 3, 3)))
    return line[:at] + needle + line[at:]


def test_every_verdict_is_the_full_searchs_with_needles_at_the_edges():
    rng = random.Random(7)
    shared = SharedTexts()
    texts = [filler(rng, SHARED_TEXT + rng.randint(0, 3000)) for _ in range(5)]
    checked = 0
    for round_ in range(1500):
        text = rng.choice(texts)
        if rng.random() < 0.2:  # a needle inside the text, near its start or end, or anywhere
            at = rng.choice(
                [rng.randint(0, 30), len(text) - rng.randint(0, 30), rng.randrange(len(text))]
            )
            text = text[:at] + rng.choice(NEEDLES) + text[at:]
        line = line_around(text, filler(rng, rng.randint(0, 40)), filler(rng, rng.randint(0, 40)))
        if rng.random() < 0.5:  # a needle where the text starts or ends in the line
            start = line.index(b'"text":"') + 8
            edge = rng.choice([start, start + len(text)])
            line = with_needle(rng, line, edge)
        known = KNOWN if round_ % 3 else []
        assert shared.needs_redaction(line, known) == written_needs_redaction(line, known), (
            line[:120],
            known,
        )
        checked += written_needs_redaction(line, known)
    assert 150 < checked < 1350  # both verdicts came up often


def test_a_remembered_text_is_searched_again_for_a_secret_learnt_since():
    shared = SharedTexts()
    text = b"x" * SHARED_TEXT + b" token-abcdefgh " + b"y" * 100
    line = line_around(text, b"", b"")
    assert not shared.needs_redaction(line)
    assert shared.needs_redaction(line, ["token-abcdefgh"])


def test_a_short_line_or_one_without_a_long_text_is_searched_whole():
    shared = SharedTexts()
    short = line_around(b"sk-" + b"a" * 30, b"", b"")
    quoted = b'{"a":"' + b'","b":"sk-'.join([b"x" * 100] * 40) + b'"}'
    assert shared.needs_redaction(short) and shared.needs_redaction(quoted)
    assert not shared.needs_redaction(quoted.replace(b"sk-", b"sk "))
