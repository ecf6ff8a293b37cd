"""The scrubber's plain path (tui/mcptui/io/scrub.py `passes_plainly`) changes nothing it writes:
random streams of deltas built from the pieces every pattern is made of (`sk-` keys, URLs with
secret query values, `Bearer` and `Basic` words, known secrets and their first letters, `s`
and `k` ends, blanks, quotes) are scrubbed with it and without it (every delta through
`safe_cut`), and each delta written, each one held and the order they come out in agree."""

from __future__ import annotations

import random
from typing import Any

import pytest
from mcptui.io import scrub
from mcptui.io.scrub import DeltaScrubber
from mcptui.model.events import Event

KNOWN = ["tk9Qx7Lm2Vb8Zr4", "hunter2secretvalue"]
PIECES = [
    "the ",
    "word",
    "s",
    "k",
    " s",
    "sk",
    "sk-",
    "sk-proj-",
    "abc",
    "DEF",
    "123",
    "_",
    "-",
    ":",
    "//",
    "https",
    "://",
    "mcp.example.com",
    "/path",
    "?token=",
    "&key=",
    "=",
    "#",
    "Bearer",
    "Bea",
    "rer ",
    "bearer ",
    "Basic ",
    "Ba",
    "sic",
    " ",
    "  ",
    "\n",
    '"',
    "'",
    "it\u2019s",
    "<",
    ">",
    "`",
    "tk9",
    "Qx7Lm",
    "2Vb8Zr4",
    "hunter",
    "2secret",
    "value",
    "t",
    "h",
    "user:pa",
    "@host",
    "é",
    "",
]


def stream(rng: random.Random) -> list[Event]:
    events = []
    for n in range(rng.randint(1, 60)):
        if rng.random() < 0.08:
            events.append(Event({"type": "response.output_item.done", "n": n}))
            continue
        item = rng.choice(["msg_a", "msg_b"]) if rng.random() < 0.2 else "msg_a"
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 4)))
        kind = rng.choice(["response.output_text.delta", "response.mcp_call_arguments.delta"])
        events.append(Event({"type": kind, "item_id": item, "delta": text}))
    return events


def scrubbed(events: list[Event], known: list[str]) -> list[tuple[int, Any]]:
    """(position in the input, the event as written) in the order the scrubber passes them."""
    scrubber = DeltaScrubber()
    where = {id(event): n for n, event in enumerate(events)}
    out = []
    for event in events:
        out += [(where[id(e)], e.raw.get("delta")) for e in scrubber.push(event, known)]
    out += [(where[id(e)], e.raw.get("delta")) for e in scrubber.release(known)]
    return out


@pytest.mark.parametrize("known", [[], KNOWN], ids=["no secrets known", "secrets known"])
def test_the_plain_path_writes_what_the_full_test_writes(
    monkeypatch: pytest.MonkeyPatch, known: list[str]
):
    rng = random.Random(37)
    real = scrub.passes_plainly
    calls: list[bool] = []

    def never(*args: Any) -> bool:
        calls.append(real(*args))  # counted: how often the plain path would have been taken
        return False

    for _ in range(1500):
        seed = rng.random()
        fast = scrubbed(stream(random.Random(seed)), known)
        with monkeypatch.context() as patch:
            patch.setattr(scrub, "passes_plainly", never)
            full = scrubbed(stream(random.Random(seed)), known)
        assert fast == full, seed
    assert sum(calls) > 5000, "the plain path was hardly ever taken: nothing was compared"
