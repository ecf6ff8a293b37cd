"""Secrets split across deltas: hidden on the text joined so far, never written in pieces.

A model that echoes an API key in a tool's arguments streams it as `"sk-pr"` | `"oj-LIVE…"` |
`"…"}`: no delta holds the whole key, so redacting each delta on its own hides nothing, and
redacting only the `.done` text makes the deltas disagree with it (a false `delta_mismatch`).

Here each item's text (`output_text.delta`, `*arguments.delta`…) is redacted as it joins: a
delta's tail that could be the start of a secret (a prefix of a known secret, an open `sk-…`
run, a URL still going on, the token after `Bearer`) is held back and written with the next
delta of that item, or with the last one when its `.done` (or anything else) comes. The deltas
written then join into exactly the redacted `.done` text, and none holds a piece of a secret.

Only a delta that holds something back is delayed (until the next event): an ordinary delta
is passed on as it came, so a stream with nothing to hide costs a few string tests a delta.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from operator import attrgetter
from typing import Any

from mcptui.model.events import Event
from mcptui.model.fast_read import TEXT_DELTA
from mcptui.model.redaction import REDACTED, SECRET_QUERY_NAME, hide_known, redact_text

_LITE_DELTA = attrgetter("lite.delta")
MAX_HELD = 8192
"""Characters of an item's text held back at most (a URL longer than this is cut)."""
CONTEXT = 64
"""Characters of an item's text already written, read before a piece to judge where a
pattern starts (`https` written, `://…` in the next delta)."""
GLUED = 3
"""A text ending in fewer characters than this that begin a known secret, right after a
letter, digit, `_` or `-`, is not held: every OpenAI key begins `sk-`, so with the API key
known each delta ending `…s` (`hit|s`) was held and the recording re-cut where the wire
was not. A secret glued to the word before it and split right after its first character or
two is the price: its rest is hidden only where its patterns (`sk-…`) find it."""
_SPACE = frozenset(" \t\r\n\"'<>`")
_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_SCHEMES = ("Bearer", "Basic", "bearer")
_APOSTROPHES = ("'", "\u2019")
_BLANK = " \t\r\n\f\v"


def delta_text(event: Event) -> tuple[Any, str] | None:
    """(item key, delta text) of an item's text delta; None for any other entry. The key is
    the same for a delta read fast (`lite`) as for one read whole: a stream mixes them (a
    delta with `sk-` in it is never read fast)."""
    if event.is_note:
        return None
    lite = event.lite
    if lite is not None:
        return (TEXT_DELTA, lite.item_id), lite.delta
    kind = event.kind
    if kind is None or not kind.endswith(".delta"):
        return None
    raw = event.raw
    delta = raw.get("delta")
    if type(delta) is not str:
        return None
    return (kind, raw.get("item_id")), delta


def redact_piece(context: str, piece: str, known: Sequence[str]) -> str:
    """`piece` redacted as it reads after `context` (text already written, as it was
    written): what a pattern begun in `context` (`Bearer `, `https`) hides of it."""
    whole = hide_known(redact_text(context + piece), known)
    before = hide_known(redact_text(context), known) if context else ""
    if whole.startswith(before):
        return whole[len(before) :]
    return hide_known(redact_text(piece), known)


def _secret_prefix(text: str, known: Sequence[str]) -> int:
    """Length of the longest end of `text` that starts a known secret (0: none)."""
    longest = 0
    if not text:
        return 0
    last = text[-1]
    for secret in known:
        end = min(len(secret) - 1, len(text))
        while end > longest:
            at = secret.rfind(last, 0, end)
            if at < 0 or at + 1 <= longest:
                break
            if text.endswith(secret[: at + 1]):
                longest = at + 1
                break
            end = at
    return longest


def _risky_run(text: str, context: str, lead: str = "") -> int:
    """Where the end of `text` that a pattern may still grow from starts (len: none): the
    last word when it is a URL (`://` in it), an API key run (`sk-…`, or `s`/`sk` that may
    start one), or the word after `Bearer`/`Basic`. (A word already written before these
    is read back from `context`: `https` then `://…`, `Bea` then `rer abc…`.)"""
    end = len(text)
    start = end
    floor = max(0, end - MAX_HELD)
    while start > floor and text[start - 1] not in _SPACE:
        start -= 1
    run = text[start:]
    if not run:  # `Bearer ` at the end: its blank is held (redaction makes it one space)
        word = len(text.rstrip(_BLANK))
        return word if (context + text[:word]).endswith(_SCHEMES) else end
    if (":" in run or (start == 0 and "://" in lead)) and _open_url(
        (lead if start == 0 else "") + run
    ):
        return start
    before = text[start - 1] if start > 0 else (context[-1] if context else "")
    key = run.rfind("sk-")
    while key >= 0:
        ahead = run[key - 1] if key > 0 else before
        if ahead not in _KEY_CHARS and all(c in _KEY_CHARS for c in run[key + 3 :]):
            return start + key
        key = run.rfind("sk-", 0, key)
    for tail in ("sk", "s"):
        if run.endswith(tail):
            at = len(run) - len(tail)
            ahead = run[at - 1] if at > 0 else before
            # (a lone `s` after an apostrophe is English, `it’s`, and everywhere)
            if ahead not in _KEY_CHARS and (tail == "sk" or ahead not in _APOSTROPHES):
                return end - len(tail)
            break
    if before in _BLANK:
        word = len(text[:start].rstrip(_BLANK))
        if (context + text[:word]).endswith(_SCHEMES):
            return word
    return end


def _open_url(word: str) -> bool:
    """A word that is a URL still going on whose end redaction may yet change: the value of
    a secret-named query parameter (`?token=ab…`), or an authority not ended yet that holds a
    user part (`user:pa…`). A path, or another parameter, is passed on as it comes: what
    follows it is redacted with it in view (`redact_piece`), and a name is never changed."""
    at = word.find("://")
    if at < 0:
        return False
    rest = word[at + 3 :]
    authority_ends = min(
        (i for i in (rest.find("/"), rest.find("?"), rest.find("#")) if i >= 0), default=-1
    )
    if authority_ends < 0:
        return ":" in rest or "@" in rest
    query = max(rest.rfind("?"), rest.rfind("#"))
    if query < 0:
        return False
    name, equals, _value = rest[query + 1 :].rpartition("&")[2].partition("=")
    return bool(equals) and SECRET_QUERY_NAME.search(name) is not None


def _secret_start_held(text: str, known: Sequence[str], context: str) -> int:
    """How much of the end of `text` is held as the start of a known secret."""
    held = _secret_prefix(text, known)
    if 0 < held < GLUED:
        ahead = text[-held - 1] if held < len(text) else context[-1:]
        if ahead and ahead in _KEY_CHARS:
            held = 0  # `hit|s`: a word's end, not a secret's start (see GLUED)
    return held


def passes_plainly(text: str, known: Sequence[str], context: str, lead: str) -> bool:
    """Whether a delta (with nothing held before it) has nothing in it or at its end that a
    pattern may grow from, so `DeltaScrubber.push` passes it on as it came: what `safe_cut`
    and the redaction test after it would find, in a few string tests (`_risky_run` and
    `safe_cut` were 45% of `inspect --json` on a 200k-event dump). Each test stands for a
    case of `_risky_run`: no URL begun (`://` in the word before, or, with the five characters
    before it, in it: `_needs`), no `sk-` or scheme word (`_needs`), no `s` or `sk` last that
    may begin a key (`_plain_end`), and no end that starts a known secret.
    tests/unit/test_scrub_plain.py compares what is written with and without it."""
    return (
        bool(text)
        and _plain_end(text)
        and "://" not in lead
        and not _needs(context[-5:] + text, known)
        and not (known and _secret_start_held(text, known, context) > 0)
    )


def _plain_end(text: str) -> bool:
    """Whether a text's end is no `s`, `sk` that may begin an API key (`_risky_run`): its
    last letter is neither, or, read within the text, it ends a word (`tools`, `ask`, `it's`).
    On a 200k-event stream 16.9k deltas went the long way before this test, 11.2k after."""
    last = text[-1]
    if last not in "sk":
        return True
    if len(text) < 3:
        return False  # what comes before it is in the text written before: the long way
    before = text[-2]
    if last == "s":
        return before in _KEY_CHARS or before in _APOSTROPHES
    return before != "s" or text[-3] in _KEY_CHARS


def safe_cut(text: str, known: Sequence[str], context: str = "", lead: str = "") -> int:
    """How much of an item's text so far may be written now: the rest may still turn into a
    secret with what comes next. `context`: the end of the text written before it; `lead`:
    the last word of it (a URL begun before). Not asked of a delta that `passes_plainly`."""
    held = _secret_start_held(text, known, context)
    cut = min(len(text) - held, _risky_run(text, context, lead))
    moved = True
    while moved:  # a known secret whole in `text` across the cut: cut before it
        moved = False
        for secret in known:
            at = text.find(secret, max(0, cut - len(secret) + 1))
            if 0 <= at < cut < at + len(secret):
                cut = at
                moved = True
    return cut


class _Held:
    __slots__ = ("context", "event", "key", "text", "written")

    def __init__(self, key: Any, event: Event, written: str, text: str, context: str) -> None:
        self.key = key
        self.event = event
        self.written = written
        """The redacted text this event is written with so far."""
        self.text = text
        """Raw text held back."""
        self.context = context


class DeltaScrubber:
    """Passes a stream's entries on in order, each item's deltas redacted on their joined
    text (see the module's docstring). `push` an entry, get the entries ready to write;
    `release` at the end of the stream."""

    def __init__(self) -> None:
        self._held: _Held | None = None
        self._key: Any = None
        self._context = ""
        """The end of the current item's text already passed on (raw)."""
        self._lead = ""
        """The last word of it, however long (up to `MAX_HELD`): a URL begun before."""

    def _passed(self, text: str) -> None:
        """`text` of the current item is passed on: what the next piece reads after."""
        if not text:
            return
        self._context = (self._context + text)[-CONTEXT:]
        start = len(text)
        while start > 0 and text[start - 1] not in _SPACE:
            start -= 1
        self._lead = (
            text[start:] if start > 0 or text[0] in _SPACE else (self._lead + text)[-MAX_HELD:]
        )

    def _before(self) -> str:
        """What a piece is redacted after: the longer of the two ends kept."""
        return self._lead if len(self._lead) > len(self._context) else self._context

    def _reset(self) -> None:
        self._context = self._lead = ""

    def push(self, event: Event, known: Sequence[str]) -> list[Event]:
        found = delta_text(event)
        held = self._held
        if found is None:
            ready = self.release(known)
            self._key = None
            self._reset()
            ready.append(event)
            return ready
        key, delta = found
        ready = []
        pending = ""
        joined: _Held | None = None  # the delta held back, its tail joined to this one's
        if held is not None and held.key == key:
            pending, joined = held.text, held
            ready.append(held.event)
            self._held = None
        elif held is not None or key != self._key:
            ready = self.release(known)
            self._reset()
        self._key = key
        text = pending + delta
        context, lead = self._context, self._lead
        if not pending and passes_plainly(text, known, context, lead):
            self._passed(text)
            ready.append(event)
            return ready
        cut = safe_cut(text, known, context, lead)
        if cut == len(text):
            if pending or _needs(context[-5:] + text, known) or "://" in lead:
                redacted = redact_piece(self._before(), text, known)
                if joined is None or redacted != text or not _as_it_came(joined):
                    _write_held(joined)
                    _set_delta(event, redacted)
                # else nothing was hidden: both deltas are written as they came (held
                # `…the s` then `ession…` was written `…the ` then `session…`, a re-cut
                # that every check then read as a changed event)
            self._passed(text)
            ready.append(event)
            return ready
        piece = text[:cut]
        written = piece  # as a whole text is passed on above: redacted only when it may change
        if piece and (pending or _needs(context[-5:] + piece, known) or "://" in lead):
            written = redact_piece(self._before(), piece, known)
        if joined is not None and written == piece and cut >= len(pending) and _as_it_came(joined):
            written = piece[len(pending) :]  # the held delta as it came; this one's own part
        else:
            _write_held(joined)
        self._passed(piece)
        self._held = _Held(key, event, written, text[cut:], self._before())
        return ready

    def push_all(self, events: Sequence[Event], known: Sequence[str]) -> list[Event]:
        """`push` each of `events`: the entries ready to write, in order, as `push` returns
        them one call after another.

        A run of one item's deltas read fast (`lite`) is taken as one: when nothing that
        a pattern grows from is in the run's joined text, each delta that `passes_plainly`
        alone is passed with one test for the run, and the others are `push`ed. The
        deltas are written exactly as `push` writes them, one by one
        (tests/unit/test_scrub_plain.py compares them); `push` was 30% of the CPU of
        `inspect --json` on a 200k-event dump, at 2-4 µs a delta."""
        push = self.push
        ready: list[Event] = []
        count, at = len(events), 0
        while at < count:
            event = events[at]
            lite = event.lite
            if lite is None or event.is_note or self._held is not None:
                ready += push(event, known)
                at += 1
                continue
            item = lite.item_id
            end = at + 1
            while end < count:
                following = events[end].lite
                if following is None or following.item_id != item or events[end].is_note:
                    break
                end += 1
            self._push_run(events, at, end, known, ready)
            at = end
        return ready

    def _push_run(
        self,
        events: Sequence[Event],
        start: int,
        end: int,
        known: Sequence[str],
        ready: list[Event],
    ) -> None:
        """`push` events[start:end], one item's deltas read fast, with nothing held before;
        what is ready goes to `ready`."""
        key = (TEXT_DELTA, events[start].lite.item_id)
        if key != self._key:
            self._reset()
            self._key = key
        texts = list(map(_LITE_DELTA, islice(events, start, end)))
        if "://" in self._lead or _needs(self._context[-5:] + "".join(texts), known):
            for event in events[start:end]:
                ready += self.push(event, known)
            return
        # The deltas that are not plain, found in one pass; the rest are passed as slices.
        others = [
            n
            for n, text in enumerate(texts)
            if not text or (text[-1] in "sk" and not _plain_end(text))
        ]
        if known:  # and those ending in a known secret's start (read after the text before)
            before = self._context[-1:]
            starts = []
            for n, text in enumerate(texts):
                if text and _secret_start_held(text, known, before):
                    starts.append(n)
                before = text[-1:] or before
            others = sorted({*others, *starts})
        first = 0
        for stop in [*others, len(texts)]:
            while first < stop and self._held is not None:  # joins the tail held back
                ready += self.push(events[start + first], known)
                first += 1
            if first < stop:
                self._passed("".join(texts[first:stop]))
                ready += events[start + first : start + stop]
            if stop < len(texts):
                ready += self.push(events[start + stop], known)
            first = stop + 1

    def release(self, known: Sequence[str]) -> list[Event]:
        """The delta held back, with all its text: nothing more of its item will come."""
        held = self._held
        if held is None:
            return []
        self._held = None
        _set_delta(held.event, held.written + redact_piece(held.context, held.text, known))
        self._passed(held.text)
        return [held.event]


def _needs(text: str, known: Sequence[str]) -> bool:
    return (
        "sk-" in text
        or "://" in text
        or "earer" in text
        or "Basic" in text
        or any(secret in text for secret in known)
    )


def _as_it_came(held: _Held) -> bool:
    """Whether the held delta's text so far is its own, unredacted."""
    found = delta_text(held.event)
    return found is not None and found[1] == held.written + held.text


def _write_held(held: _Held | None) -> None:
    if held is not None:
        _set_delta(held.event, held.written)


def _set_delta(event: Event, text: str) -> None:
    lite = event.lite
    if lite is not None and lite.delta == text:
        return  # as it came: not decoded to find out
    raw = event.raw
    if raw.get("delta") != text:
        event.raw = {**raw, "delta": text}


def scrub_events(events: Sequence[Event], known: Sequence[str]) -> None:
    """A whole stream's deltas redacted on their joined text, in place (a file read whole:
    what is shown and reported of it is what a recording of it would hold)."""
    scrubber = DeltaScrubber()
    scrubber.push_all(events, known)
    scrubber.release(known)


__all__ = ["REDACTED", "DeltaScrubber", "redact_piece", "safe_cut", "scrub_events"]
