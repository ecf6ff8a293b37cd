"""Helpers shared by the unit tests: reading fixtures without the importer, re-shaping them
into other dump formats, building edited streams, and dumping reducer state for comparison."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

from mcptui.model.events import Event
from mcptui.model.state import ItemState, SessionState
from mcptui.model.timeline import Timeline

# Event counts ("Lines") from shared/fixtures/upstream/SOURCE.md.
EXPECTED_COUNTS: dict[str, int] = {
    "openai-mcp-tool.1.chunks.txt": 373,
    "openai-mcp-tool-approval.1.chunks.txt": 11,
    "openai-mcp-tool-approval.2.chunks.txt": 123,
    "openai-error.1.chunks.txt": 4,
    "openai-response-failed-only.1.chunks.txt": 2,
    "openai-web-search-tool.1.chunks.txt": 56,
}
FIXTURES = sorted(EXPECTED_COUNTS)
MCP_TOOL = "openai-mcp-tool.1.chunks.txt"
ERROR = "openai-error.1.chunks.txt"
FAILED_ONLY = "openai-response-failed-only.1.chunks.txt"
APPROVAL_1 = "openai-mcp-tool-approval.1.chunks.txt"
APPROVAL_2 = "openai-mcp-tool-approval.2.chunks.txt"
WEB_SEARCH = "openai-web-search-tool.1.chunks.txt"

TASKGROUP_424 = "424: unhandled errors in a TaskGroup (1 sub-exception)"
HTTP_ERROR_424 = {"type": "http_error", "code": 424, "message": TASKGROUP_424}


def read_chunks(path: Path) -> list[dict[str, Any]]:
    """A `*.chunks.txt` file as JSON objects, read independently of `mcptui.io.formats`."""
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def compact(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def to_jsonl(raws: list[dict[str, Any]]) -> str:
    return "".join(compact(raw) + "\n" for raw in raws)


def to_sse(
    raws: list[dict[str, Any]],
    *,
    newline: str = "\n",
    comments: bool = False,
    ids: bool = False,
    split_data: bool = False,
) -> str:
    """Raw SSE as `curl -N` saves it: `event:` and `data:` lines, blank line after each event.

    `split_data` spreads every event's JSON over two `data:` lines (split after the first
    comma), which the SSE spec joins back with a newline.
    """
    out: list[str] = []
    if comments:
        out.append(": keepalive" + newline)
    for number, raw in enumerate(raws):
        if comments and number % 5 == 2:
            out.append(": keepalive" + newline)
        out.append(f"event: {raw.get('type', 'message')}{newline}")
        if ids:
            out.append(f"id: {number}{newline}")
        body = compact(raw)
        if split_data and "," in body:
            cut = body.index(",") + 1
            out.append(f"data: {body[:cut]}{newline}data: {body[cut:]}{newline}")
        else:
            out.append(f"data: {body}{newline}")
        out.append(newline)
    return "".join(out)


def events_of(raws: list[dict[str, Any]]) -> list[Event]:
    return [Event(raw) for raw in raws]


def fold(raws: list[dict[str, Any]], snapshots: list[dict[str, Any]] = ()) -> Timeline:
    """A timeline of `raws`, stepped to its end."""
    timeline = Timeline(events_of(raws), snapshots)
    timeline.seek_end()
    return timeline


def item_ids_of_type(raws: list[dict[str, Any]], item_type: str) -> list[str]:
    return [
        raw["item"]["id"]
        for raw in raws
        if raw.get("type") == "response.output_item.added" and raw["item"].get("type") == item_type
    ]


def with_failed_mcp_call(
    raws: list[dict[str, Any]], error: Any, *, keep_status: bool = True
) -> tuple[list[dict[str, Any]], str]:
    """The mcp-tool fixture with its first `mcp_call` failing with `error`.

    `mcp_call.completed` becomes `mcp_call.failed`, and the item in `output_item.done` and in
    the final response gets `error` and no output. With `keep_status=False` the item carries no
    `status` field, as in older streams.
    """
    edited = copy.deepcopy(raws)
    call_id = item_ids_of_type(edited, "mcp_call")[0]

    def fail(item: dict[str, Any]) -> None:
        item["error"] = error
        item["output"] = None
        if keep_status:
            item["status"] = "failed"
        else:
            item.pop("status", None)

    for raw in edited:
        if raw.get("item_id") == call_id and raw["type"] == "response.mcp_call.completed":
            raw["type"] = "response.mcp_call.failed"
        elif raw["type"] == "response.output_item.done" and raw["item"]["id"] == call_id:
            fail(raw["item"])
        elif raw["type"] == "response.completed":
            for item in raw["response"]["output"]:
                if item.get("id") == call_id:
                    fail(item)
    return edited, call_id


def message_stream(
    text: str, *, response_id: str = "resp_synthetic", tool_name: str = "lookup"
) -> list[dict[str, Any]]:
    """A small well-formed stream: one completed mcp_call, then a message whose text is `text`
    (sent as two deltas)."""
    half = len(text) // 2
    call = {
        "id": "mcp_1",
        "type": "mcp_call",
        "name": tool_name,
        "server_label": "srv",
        "arguments": "",
        "output": None,
        "error": None,
        "status": "in_progress",
    }
    call_done = {**call, "arguments": "{}", "output": "ok", "status": "completed"}
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "status": "in_progress",
        "content": [],
    }
    message_done = {
        **message,
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    response = {
        "id": response_id,
        "object": "response",
        "status": "in_progress",
        "model": "gpt-test",
        "output": [],
    }
    raws: list[dict[str, Any]] = [
        {"type": "response.created", "response": response},
        {"type": "response.in_progress", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": call},
        {
            "type": "response.mcp_call_arguments.delta",
            "output_index": 0,
            "item_id": "mcp_1",
            "delta": "{}",
        },
        {
            "type": "response.mcp_call_arguments.done",
            "output_index": 0,
            "item_id": "mcp_1",
            "arguments": "{}",
        },
        {"type": "response.mcp_call.completed", "output_index": 0, "item_id": "mcp_1"},
        {"type": "response.output_item.done", "output_index": 0, "item": call_done},
        {"type": "response.output_item.added", "output_index": 1, "item": message},
        {
            "type": "response.output_text.delta",
            "output_index": 1,
            "item_id": "msg_1",
            "content_index": 0,
            "delta": text[:half],
        },
        {
            "type": "response.output_text.delta",
            "output_index": 1,
            "item_id": "msg_1",
            "content_index": 0,
            "delta": text[half:],
        },
        {
            "type": "response.output_text.done",
            "output_index": 1,
            "item_id": "msg_1",
            "content_index": 0,
            "text": text,
        },
        {"type": "response.output_item.done", "output_index": 1, "item": message_done},
        {
            "type": "response.completed",
            "response": {**response, "status": "completed", "output": [call_done, message_done]},
        },
    ]
    for number, raw in enumerate(raws):
        raw["sequence_number"] = number
    return raws


def renumber(raws: list[dict[str, Any]], start: int = 0) -> list[dict[str, Any]]:
    out = copy.deepcopy(raws)
    for number, raw in enumerate(out, start):
        raw["sequence_number"] = number
    return out


def dump(value: Any) -> Any:
    """A structural, comparable dump of reducer state: every field of every dataclass.

    Items reached through the id/index maps are dumped as their keys, so the maps are
    compared too without repeating whole items.
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {}
        for f in dataclasses.fields(value):
            field_value = getattr(value, f.name)
            if f.name in ("by_output_index", "by_item_id"):
                out[f.name] = {k: item.key for k, item in field_value.items()}
            else:
                out[f.name] = dump(field_value)
        if isinstance(value, ItemState):  # what the views show, derived from the fields
            out["shown"] = (value.text, value.arguments, value.reasoning, value.error_text)
        return out
    if isinstance(value, list):
        return [dump(v) for v in value]
    if isinstance(value, dict):
        return {k: dump(v) for k, v in value.items()}
    return value


def dump_state(state: SessionState) -> Any:
    return dump(state)


def mcp_stream(
    calls: list[dict[str, Any]],
    *,
    tools: list[dict[str, Any]] | None = None,
    server: str = "srv",
    response_id: str = "resp_synthetic",
    status: str = "completed",
    usage: dict[str, int] | None = None,
    reasoning: int = 0,
) -> list[dict[str, Any]]:
    """A small well-formed stream, to compare runs that differ in one way: with `tools`, a
    listing of them on `server` first; then `reasoning` reasoning items; then one `mcp_call`
    per entry of `calls` (`name`, optionally `server_label`, `arguments` (a JSON object) and
    `error` (the call fails with it)); then a message. `status` is the response's terminal
    status (`failed` carries a server_error); `usage` its token counts."""
    response = {
        "id": response_id,
        "object": "response",
        "status": "in_progress",
        "model": "gpt-test",
        "output": [],
    }
    raws: list[dict[str, Any]] = [
        {"type": "response.created", "response": response},
        {"type": "response.in_progress", "response": response},
    ]
    output: list[dict[str, Any]] = []

    def item(added: dict[str, Any], middle: list[dict[str, Any]], done: dict[str, Any]) -> None:
        index = len(output)
        raws.append({"type": "response.output_item.added", "output_index": index, "item": added})
        raws.extend({**event, "output_index": index, "item_id": added["id"]} for event in middle)
        raws.append({"type": "response.output_item.done", "output_index": index, "item": done})
        output.append(done)

    if tools is not None:
        listing = {"id": "mcpl_1", "type": "mcp_list_tools", "server_label": server, "tools": []}
        item(
            listing,
            [
                {"type": "response.mcp_list_tools.in_progress"},
                {"type": "response.mcp_list_tools.completed"},
            ],
            {**listing, "tools": tools},
        )
    for number in range(reasoning):
        thought = {"id": f"rs_{number}", "type": "reasoning", "summary": []}
        item(thought, [], thought)
    for number, call in enumerate(calls):
        arguments = json.dumps(call.get("arguments", {}))
        added = {
            "id": f"mcp_{number}",
            "type": "mcp_call",
            "name": call["name"],
            "server_label": call.get("server_label", server),
            "arguments": "",
            "output": None,
            "error": None,
            "status": "in_progress",
        }
        error = call.get("error")
        ending = "response.mcp_call.failed" if error is not None else "response.mcp_call.completed"
        item(
            added,
            [
                {"type": "response.mcp_call.in_progress"},
                {"type": "response.mcp_call_arguments.delta", "delta": arguments},
                {"type": "response.mcp_call_arguments.done", "arguments": arguments},
                {"type": ending},
            ],
            {
                **added,
                "arguments": arguments,
                "output": None if error is not None else "ok",
                "error": error,
                "status": "failed" if error is not None else "completed",
            },
        )
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "done", "annotations": []}],
    }
    item({**message, "status": "in_progress", "content": []}, [], message)
    final = {**response, "status": status, "output": output, "usage": usage}
    if status == "failed":
        final["error"] = {"code": "server_error", "message": "The server had an error."}
    raws.append({"type": f"response.{status}", "response": final})
    for number, raw in enumerate(raws):
        raw["sequence_number"] = number
    return raws


def text_delta(seq: int, item: str, text: str, **extra: Any) -> dict[str, Any]:
    """A `response.output_text.delta` event of item `item`, numbered `seq`."""
    return {
        "type": "response.output_text.delta",
        "sequence_number": seq,
        "item_id": item,
        "output_index": 0,
        "content_index": 0,
        "delta": text,
        **extra,
    }
