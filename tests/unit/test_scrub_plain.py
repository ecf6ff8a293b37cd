"""The scrubber's plain path (tui/mcptui/io/scrub.py `passes_plainly`) changes nothing it writes:
random streams of deltas built from the pieces every pattern is made of (`sk-` keys, URLs with
secret query values, `Bearer` and `Basic` words, known secrets and their first letters, `s`
and `k` ends, blanks, quotes) are scrubbed with it and without it (every delta through
`safe_cut`), and each delta written, each one held and the order they come out in agree."""

from __future__ import annotations

import json
import random
from itertools import pairwise
from typing import Any

import pytest
from mcptui.io import scrub
from mcptui.io.scrub import DeltaScrubber
from mcptui.model.events import Event
from mcptui.model.fast_read import TEXT_DELTA, Delta

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


def lite_stream(rng: random.Random) -> list[Event]:
    """`stream`, its text deltas read fast (`lite`, their JSON as bytes) as readers make them."""
    events = []
    for n, event in enumerate(stream(rng)):
        raw = event.raw
        if raw["type"] == TEXT_DELTA and rng.random() < 0.9:
            raw = {**raw, "sequence_number": n}
            lite = Delta(sequence_number=n, item_id=raw["item_id"], delta=raw["delta"])
            event = Event(
                None, n, None, None, False, None, json.dumps(raw).encode(), TEXT_DELTA, lite
            )
        events.append(event)
    return events


@pytest.mark.parametrize("known", [[], KNOWN], ids=["no secrets known", "secrets known"])
def test_runs_pushed_at_once_are_written_as_pushed_one_by_one(known: list[str]):
    rng = random.Random(38)
    runs = 0
    for _ in range(1500):
        seed = rng.random()
        one_by_one = scrubbed(lite_stream(random.Random(seed)), known)
        events = lite_stream(random.Random(seed))
        scrubber = DeltaScrubber()
        cuts = sorted(rng.sample(range(len(events) + 1), min(3, len(events) + 1)))
        ready = []
        for start, end in pairwise([0, *cuts, len(events)]):  # a reader's pieces
            ready += scrubber.push_all(events[start:end], known)
        ready += scrubber.release(known)
        where = {id(event): n for n, event in enumerate(events)}
        at_once = [(where[id(event)], event.raw.get("delta")) for event in ready]
        assert at_once == one_by_one, seed  # the same deltas, ready in the same order
        runs += sum(1 for a, b in pairwise(events) if a.lite and b.lite)
    assert runs > 5000, "hardly any run of fast-read deltas: nothing was compared"


def test_a_run_reads_a_secrets_start_after_the_delta_before_it_in_the_run():
    # "t" may start KNOWN[0]: held after a blank ("word |t"), not after a letter ("x|t").
    texts = ["x", "word ", "t", "k9Qx7Lm2Vb8Zr4 done"]
    events = [
        Event(None, n, None, None, False, None, b"{}", TEXT_DELTA, Delta(n, "msg_a", text))
        for n, text in enumerate(texts)
    ]
    scrubber = DeltaScrubber()
    for run in (events[:1], events[1:3], events[3:]):  # as a reader's pieces may cut them
        scrubber.push_all(run, KNOWN)
    scrubber.release(KNOWN)
    written = [
        event.raw.get("delta") if event.lite is None else event.lite.delta for event in events
    ]
    assert written == ["x", "word ", "", f"{scrub.REDACTED} done"], written
