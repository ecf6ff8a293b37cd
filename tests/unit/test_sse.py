"""mcptui.model.sse: the live decoder gives the same messages however the bytes are chunked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _support import APPROVAL_2, MCP_TOOL, read_chunks, to_sse
from mcptui.model.sse import SSEDecoder, SSEMessage, parse_sse


def decode_in_chunks(data: bytes, size: int) -> list[SSEMessage]:
    decoder = SSEDecoder()
    out: list[SSEMessage] = []
    for start in range(0, len(data), size):
        out.extend(decoder.feed(data[start : start + size]))
    out.extend(decoder.finish())
    return out


def sample(upstream_dir: Path, newline: str) -> str:
    raws = read_chunks(upstream_dir / APPROVAL_2)[:30]  # "wasn’t": multi-byte UTF-8
    raws.append({"type": "x.emoji", "text": "snowman ☃ and face 😀 and é"})
    return to_sse(raws, newline=newline, comments=True, ids=True, split_data=True)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
@pytest.mark.parametrize("size", [1, 2, 3, 7, 64])
def test_chunked_bytes_give_the_same_messages_as_whole_text(
    upstream_dir: Path, newline: str, size: int
):
    text = sample(upstream_dir, newline)
    data = text.encode("utf-8")
    assert any(b >= 0x80 for b in data)

    whole = parse_sse(text)
    chunked = decode_in_chunks(data, size)

    assert chunked == whole
    assert len(whole) == 31
    assert json.loads(whole[-1].data)["text"] == "snowman ☃ and face 😀 and é"
    assert all("\ufffd" not in m.data for m in chunked)


def test_line_ends_do_not_change_messages(upstream_dir: Path):
    lf = parse_sse(sample(upstream_dir, "\n"))
    crlf = parse_sse(sample(upstream_dir, "\r\n"))
    cr = parse_sse(sample(upstream_dir, "\r"))
    assert lf == crlf == cr


def test_fixture_round_trips_through_sse(upstream_dir: Path):
    raws = read_chunks(upstream_dir / MCP_TOOL)
    messages = decode_in_chunks(to_sse(raws, newline="\r\n").encode(), 1)
    assert [json.loads(m.data) for m in messages] == raws
    assert [m.event for m in messages] == [r["type"] for r in raws]


def test_crlf_split_across_chunks_is_one_line_end():
    decoder = SSEDecoder()
    out = decoder.feed(b"data: a\r")
    out += decoder.feed(b"\ndata: b\r")
    out += decoder.feed(b"\n\r")
    out += decoder.feed(b"\n")
    assert out == [SSEMessage("a\nb", line=1)]
    assert decoder.finish() == []


def test_multibyte_character_split_across_chunks():
    encoded = "data: é😀\n\n".encode()
    decoder = SSEDecoder()
    out = []
    for byte in encoded:
        out += decoder.feed(bytes([byte]))
    assert out == [SSEMessage("é😀", line=1)]


def test_fields_comments_and_multiline_data():
    text = (
        ": comment first\n"
        "event: response.created\n"
        "id: 7\n"
        "retry: 1000\n"
        'data:{"a":\n'
        "data:  1}\n"
        "\n"
        "data: second\n"
    )  # no blank line at the end: still a message
    assert parse_sse(text) == [
        SSEMessage('{"a":\n 1}', event="response.created", id="7", line=2),
        SSEMessage("second", line=8),
    ]


def test_event_fields_without_data_are_not_a_message():
    assert parse_sse("event: ping\nid: 3\n\n: keepalive\n\n") == []


def test_a_blank_line_split_across_chunks_ends_the_block():
    """`\\n` at the end of one chunk and `\\n` at the start of the next is a blank line."""
    decoder = SSEDecoder()
    assert decoder.feed(b'data: {"a": 1}\n') == []
    assert [m.data for m in decoder.feed(b'\ndata: {"b": 2}\n')] == ['{"a": 1}']
    assert [m.data for m in decoder.feed(b"\n")] == ['{"b": 2}']


def test_a_long_line_in_many_chunks_is_one_message():
    line = b'data: {"delta": "' + b"x" * 300_000 + b'"}\n\n'
    decoder = SSEDecoder()
    out = []
    for offset in range(0, len(line), 1000):
        out += decoder.feed(line[offset : offset + 1000])
    assert [len(m.data) for m in out + decoder.finish()] == [len(line) - 8]


def test_a_block_past_the_limit_is_dropped_and_said_and_the_next_one_kept():
    """A stream with no blank line must not grow forever: past `max_block` the block goes,
    once, with a message, and the stream goes on after its end."""
    decoder = SSEDecoder(max_block=1000)
    out = decoder.feed(b'data: {"type": "a"}\n\ndata: {"big": "')
    for _ in range(20):
        out += decoder.feed(b"x" * 100)
    out += decoder.feed(b'"}\n')
    out += decoder.feed(b'\ndata: {"type": "b"}\n\n')
    out += decoder.finish()

    assert [m.data for m in out if m.error is None] == ['{"type": "a"}', '{"type": "b"}']
    (dropped,) = [m for m in out if m.error is not None]
    assert "larger than 1,000 characters" in dropped.error
