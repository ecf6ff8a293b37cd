"""Known secrets (issue 35, "Secrets"): learnt from the request, its headers, URLs and flags,
hidden wherever they appear, also when a stream splits one across deltas.

The end-to-end proof (every command, every file) is tests/e2e/test_secrets_everywhere.py;
these pin each rule where it is made, with the same planted values.
"""

from __future__ import annotations

import json
import random
import sys
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from mcptui.io.crash_log import log_crash
from mcptui.io.formats import load_text
from mcptui.io.recording import make_header
from mcptui.io.scrub import DeltaScrubber
from mcptui.model.conformance import check_stream
from mcptui.model.events import Event
from mcptui.model.redaction import (
    REDACTED,
    argv_secrets,
    hide_known,
    redact_target,
    redact_text,
    request_secrets,
)
from mcptui.model.timeline import Timeline

KEY = "sk-proj-LIVEk3y9Qw7Zx2Vb5Nm"
HEADER = "xak7Hq2Lm9Pz4Wd6"
COOKIE = "ckS3ss10nV4lu3Qz"
BARE = "brT0k3nN0Pr3f1x8"
PATH = "pthT0k3nA1b2C3d4"
QUERY = "qryT0k3nE5f6G7h8"
PASSWORD = "pwdS3cr3tI9j0K1l"
ALL = (KEY, HEADER, COOKIE, BARE, PATH, QUERY, PASSWORD)

TOOL = {
    "type": "mcp",
    "server_label": "demo",
    "server_url": f"https://user:{PASSWORD}@mcp.example.com/s/{PATH}/mcp?token={QUERY}",
    "headers": {"X-Api-Key": HEADER, "Cookie": f"sid={COOKIE}", "X-Flag": "yes"},
    "authorization": BARE,
}
REQUEST = {"model": "gpt-5-mini", "input": "echo " + " ".join(ALL), "tools": [TOOL]}


def pieces_of(text: str) -> list[str]:
    return [s[at : at + 8] for s in ALL for at in range(len(s) - 7) if s[at : at + 8] in text]


# -- what is known ------------------------------------------------------------------------------


def test_a_request_names_its_header_values_url_tokens_and_password():
    known = request_secrets(REQUEST)
    for secret in (HEADER, COOKIE, BARE, PATH, QUERY, PASSWORD):
        assert secret in known
    assert "yes" not in known  # too short to hide everywhere


def test_the_recording_header_hides_them_in_the_input_too():
    header = make_header("live", request=REQUEST, secrets=[KEY])
    assert pieces_of(json.dumps(header)) == []
    assert header["request"]["input"].count(REDACTED) == len(ALL)


def test_a_proxied_target_keeps_its_path_and_hides_its_api_key():
    assert (
        redact_target(f"/v1/responses?api_key={QUERY}&stream=true")
        == "/v1/responses?api_key=<redacted>&stream=true"
    )
    assert (
        redact_target("/v1/responses?api-version=2025-04-01")
        == "/v1/responses?api-version=2025-04-01"
    )


def test_an_azure_api_version_is_kept():
    url = "https://x.openai.azure.com/openai/v1/responses?api-version=2025-04-01"
    assert redact_text(url, strict_urls=True) == url


# -- split across deltas ------------------------------------------------------------------------


def split_stream(text: str, cuts: list[int]) -> list[dict[str, Any]]:
    bounds = [0, *cuts, len(text)]
    deltas = [text[a:b] for a, b in pairwise(bounds) if b > a]
    item = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    events = [
        {
            "type": "response.created",
            "response": {"id": "resp_1", "status": "in_progress", "output": []},
        },
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**item, "status": "in_progress", "content": []},
        },
        {
            "type": "response.content_part.added",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
    ]
    events += [
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "delta": d,
        }
        for d in deltas
    ]
    events += [
        {
            "type": "response.output_text.done",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "text": text,
        },
        {
            "type": "response.content_part.done",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "part": item["content"][0],
        },
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {
            "type": "response.completed",
            "response": {"id": "resp_1", "status": "completed", "output": [item]},
        },
    ]
    return [{**e, "sequence_number": n} for n, e in enumerate(events)]


def test_a_file_with_a_key_split_across_deltas_shows_it_nowhere_and_stays_consistent():
    text = f"the key is {KEY} and the token {PATH}."
    at = text.index(KEY)
    events = split_stream(text, [at + 5, at + 14, text.index(PATH) + 3])
    header = {"mcptui": "recording", "format": 1, "request": REQUEST}
    lines = [json.dumps(header)] + [json.dumps({"t": 0.0, "event": e}) for e in events]
    loaded = load_text("\n".join(lines) + "\n")
    deltas = [e.raw["delta"] for e in loaded.events if e.kind == "response.output_text.delta"]
    assert pieces_of(" | ".join(deltas)) == []
    assert "".join(deltas) == f"the key is {REDACTED} and the token {REDACTED}."
    timeline = Timeline()
    for event in loaded.events:
        timeline.append(event)
    problems = [
        f for f in check_stream(timeline.events, timeline.state) if f.code == "delta_mismatch"
    ]
    assert problems == []


@pytest.mark.parametrize("seed", range(4))
def test_whatever_the_cuts_the_deltas_join_into_the_redacted_text_with_no_piece(seed: int):
    rng = random.Random(seed)
    words = [
        "hello",
        "the",
        "tools",
        "sk",
        "Bea",
        "Bearer",
        KEY,
        HEADER,
        PATH,
        '"q":',
        "x:y",
        f"https://u:{PASSWORD}@h/s/{PATH}/mcp?token={QUERY}",
        "Bearer abcdefghijkl12345",
    ]
    known = request_secrets(REQUEST)
    for _ in range(400):
        text = "".join(
            rng.choice(words) + rng.choice([" ", '"', ", ", "\n"])
            for _ in range(rng.randint(1, 12))
        )
        cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(0, 10))))
        bounds = [0, *cuts, len(text)]
        deltas = [text[a:b] for a, b in pairwise(bounds) if b > a]
        scrubber = DeltaScrubber()
        out: list[Event] = []
        for delta in deltas:
            out += scrubber.push(
                Event(
                    {
                        "type": "response.mcp_call_arguments.delta",
                        "item_id": "mcp_1",
                        "delta": delta,
                    }
                ),
                known,
            )
        out += scrubber.release(known)
        written = [e.raw["delta"] for e in out]
        assert len(written) == len(deltas)  # one written for each received, in order
        assert "".join(written) == hide_known(redact_text(text), known), deltas
        assert pieces_of(" | ".join(written)) == [], deltas
        assert "abcdefghijkl" not in " | ".join(written)


def test_an_ordinary_stream_is_passed_on_untouched():
    scrubber = DeltaScrubber()
    events = [
        Event({"type": "response.output_text.delta", "item_id": "m", "delta": d})
        for d in ("Hello", " world", ", these", " tools", " work")
    ]
    out = [e for event in events for e in scrubber.push(event, [PATH])]
    assert out == events and [e.raw["delta"] for e in out] == [
        "Hello",
        " world",
        ", these",
        " tools",
        " work",
    ]


# -- the command line ---------------------------------------------------------------------------


def test_the_crash_log_hides_header_values_and_url_tokens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    argv = [
        "mcptui",
        "probe",
        TOOL["server_url"],
        "--header",
        f"X-Api-Key={HEADER}",
        "-H",
        f"Cookie=sid={COOKIE}",
        "--header=Authorization=" + BARE,
        "--api-key",
        KEY,
    ]
    monkeypatch.setattr(sys, "argv", argv)
    log = log_crash(RuntimeError(f"boom with {HEADER}"), tmp_path / "error.log")
    assert log is not None
    text = log.read_text()
    assert "mcptui probe https://user:" in text and "--header X-Api-Key=<redacted>" in text
    assert pieces_of(text) == []
    assert set(argv_secrets(argv)) >= {HEADER, COOKIE, BARE, KEY, PATH, QUERY, PASSWORD}


def test_a_recording_read_a_piece_at_a_time_hides_split_and_early_echoed_secrets(tmp_path: Path):
    """The app's reader (and `inspect`'s, for a recording): a key split across deltas, and
    a token echoed before the `request` note that names it (S7), are hidden from the first
    piece on, and the deltas still join into the `.done` text."""
    from mcptui.sources.replay import open_session

    text = f"the key is {KEY} and the late token {PATH}."
    at = text.index(KEY)
    events = split_stream(text, [at + 5, at + 14, text.index(PATH) + 3])
    late = {
        "kind": "request",
        "level": "info",
        "message": "POST /responses: HTTP 200",
        "request": {
            "tools": [
                {
                    "type": "mcp",
                    "server_label": "x",
                    "server_url": f"https://mcp.example.com/s/{PATH}/mcp",
                }
            ]
        },
    }
    lines = [{"mcptui": "recording", "format": 1, "request": {"model": "m", "input": "q"}}]
    lines += [{"t": 0.01 * n, "event": e} for n, e in enumerate(events)]
    lines.append({"t": 1.0, "note": late})
    path = tmp_path / "late.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    session = open_session(str(path), whole=True)
    deltas = [
        e.raw["delta"] for e in session.timeline.events if e.kind == "response.output_text.delta"
    ]
    assert pieces_of(" | ".join(deltas)) == []
    assert "".join(deltas) == f"the key is {REDACTED} and the late token {REDACTED}."
    assert [
        f
        for f in check_stream(session.timeline.events, session.timeline.state)
        if f.code == "delta_mismatch"
    ] == []


def echoed_tools_stream(text: str) -> list[dict[str, Any]]:
    """A stream with no request: only `response.created` names the MCP server's URL (with a
    path token), as every API dump does; a text delta then echoes the token."""
    created = {
        "type": "response.created",
        "response": {
            "id": "resp_1",
            "status": "in_progress",
            "output": [],
            "tools": [
                {
                    "type": "mcp",
                    "server_label": "x",
                    "headers": None,
                    "server_url": f"https://mcp.example.com/s/{PATH}/mcp",
                }
            ],
        },
    }
    return [created, *split_stream(text, [text.index(PATH) + 3])[1:]]


def test_a_dump_with_no_request_hides_the_token_its_response_echo_names():
    """`response.created` echoes the request's tools: their URLs' tokens are known before
    any event is shown, in a whole-file load (a JSONL dump)."""
    text = f"served from {PATH} today."
    loaded = load_text("\n".join(json.dumps(e) for e in echoed_tools_stream(text)) + "\n")
    deltas = [e.raw["delta"] for e in loaded.events if e.kind == "response.output_text.delta"]
    assert "".join(deltas) == f"served from {REDACTED} today."
    assert PATH not in json.dumps([e.raw for e in loaded.events])


def test_a_recording_with_no_request_hides_the_token_its_response_echo_names(tmp_path: Path):
    """The same through the piece-by-piece reader of a recording whose header has no
    request (the token is learnt from the `response.created` line before any event)."""
    from mcptui.sources.replay import open_session

    text = f"served from {PATH} today."
    lines = [{"mcptui": "recording", "format": 1}]
    lines += [{"t": 0.01 * n, "event": e} for n, e in enumerate(echoed_tools_stream(text))]
    path = tmp_path / "echo.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    session = open_session(str(path), whole=True)
    shown = json.dumps([e.raw for e in session.timeline.events])
    assert PATH not in shown and REDACTED in shown


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "req.json", "--hedaer", f"X-Api-Key={HEADER}"],
        ["run", "req.json", "--hedaer", f"Cookie: sid={COOKIE}"],
        ["inspect", "--max-bytes", f"https://mcp.example.com/s/{PATH}/mcp", "x.jsonl"],
    ],
)
def test_a_usage_error_hides_the_command_lines_secrets(
    argv: list[str], capsys: pytest.CaptureFixture[str]
):
    """argparse repeats what was typed (`unrecognized arguments: …`, `invalid int value`):
    a mistyped flag's header value or a URL token is hidden there too (exit 2)."""
    from mcptui.cli.main import main

    with pytest.raises(SystemExit) as stopped:
        main(argv)
    said = capsys.readouterr().err
    assert stopped.value.code == 2 and "error:" in said
    assert not any(secret in said for secret in (HEADER, COOKIE, PATH)), said
    assert REDACTED in said


def test_with_the_api_key_known_a_word_ending_in_s_is_not_re_cut():
    """Every OpenAI key begins `sk-`: a delta ending `…s` after a letter is a word's end,
    passed on as it came (the recording keeps the wire's deltas); one ending in a space and
    `s` may start the key and is held, and the key split there is still hidden whole."""
    text = f"hits and misses then s{KEY[1:]} end"
    cut = [text.index(" and"), text.index(" then") + 7]
    events = [Event(e) for e in split_stream(text, [4, cut[0] + 10, cut[1]])]
    scrubber = DeltaScrubber()
    out = [e for event in events for e in scrubber.push(event, [KEY])]
    out += scrubber.release([KEY])
    deltas = [e.raw["delta"] for e in out if e.kind == "response.output_text.delta"]
    assert deltas[0] == "hits"  # not "hit" with its `s` held back
    assert "".join(deltas) == f"hits and misses then {REDACTED} end"
    assert pieces_of(" | ".join(deltas)) == []


def test_a_tail_held_back_that_hid_nothing_leaves_both_deltas_as_they_came():
    """`…the s` may start a key and is held; `ession…` shows it did not: the recording keeps
    the wire's cut, not `…the ` then `session…`."""
    text = f"open the session now and then s{KEY[1:]} end"
    cuts = [len("open the s"), len("open the session now and then s")]
    events = [Event(e) for e in split_stream(text, cuts)]
    scrubber = DeltaScrubber()
    out = [e for event in events for e in scrubber.push(event, [KEY])]
    out += scrubber.release([KEY])
    deltas = [e.raw["delta"] for e in out if e.kind == "response.output_text.delta"]
    assert deltas[:2] == ["open the s", "ession now and then "]
    assert "".join(deltas) == f"open the session now and then {REDACTED} end"
    assert pieces_of(" | ".join(deltas)) == []
