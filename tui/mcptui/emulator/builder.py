"""Build Responses API objects and stream events the way the real API shapes them.

Field sets, field order, id prefixes and `obfuscation` padding follow the real recorded
streams in `shared/fixtures/upstream/`. The builder only shapes and numbers events; the
emulator's runner decides what happens and when (it awaits MCP calls between the steps).
"""

from __future__ import annotations

import copy
import json
import random
import string
import time
from collections.abc import Callable
from typing import Any

Json = dict[str, Any]

MODEL_SNAPSHOTS = {
    "gpt-5-mini": "gpt-5-mini-2025-08-07",
    "gpt-5": "gpt-5-2025-08-07",
    "gpt-4.1": "gpt-4.1-2025-04-14",
    "gpt-4o": "gpt-4o-2024-08-06",
}
"""Aliases the API answers with a dated snapshot name, as the real one does."""

ARGUMENT_EVENTS = ("response.mcp_call_arguments.delta", "response.mcp_call_arguments.done")
DOCS_ARGUMENT_EVENTS = ("response.mcp_call.arguments.delta", "response.mcp_call.arguments.done")
"""What the wire carries, and what the 2025 API reference spelled (protocol.md §1)."""

REASONING_MODELS = ("o1", "o3", "o4-mini", "gpt-5")
"""Model name prefixes of reasoning models: their streams hold `reasoning` items."""

QUOTA_MESSAGE = (
    "You exceeded your current quota, please check your plan and billing details. "
    "For more information on this error, read the docs: "
    "https://platform.openai.com/docs/guides/error-codes/api-errors."
)
"""The API's words for `insufficient_quota`, in a 429 body and in a stream's `error` event."""


def is_reasoning_model(model: str) -> bool:
    return model.startswith(REASONING_MODELS)


def resolved_service_tier(requested: Any) -> str:
    """The tier a finished response reports: `auto` (or none asked) ran on `default`."""
    return "default" if requested in (None, "auto") else str(requested)


def listed_tool(tool: Json) -> Json:
    """A tool as an `mcp_list_tools` item lists it: `annotations` always an object, the MCP
    server's `readOnlyHint` as `read_only` (false when the server declares none)."""
    annotations = tool.get("annotations")
    read_only = isinstance(annotations, dict) and bool(annotations.get("read_only"))
    return {**tool, "annotations": {"read_only": read_only}}


def tokenize(text: str) -> list[str]:
    """Split text into token-like pieces: a word with its leading space, or punctuation."""
    pieces: list[str] = []
    word = ""
    for ch in text:
        if ch.isalnum() or ch in "_'":
            if word and not (word[-1].isalnum() or word[-1] in " _'"):
                pieces.append(word)
                word = ""
            word += ch
        elif ch == " ":
            if word:
                pieces.append(word)
            word = " "
        else:
            if word and word != " ":
                pieces.append(word)
                word = ""
            word += ch
    if word:
        pieces.append(word)
    return pieces


def usage(
    input_tokens: int, output_tokens: int, reasoning_tokens: int = 0, cached_tokens: int = 0
) -> Json:
    return {
        "input_tokens": input_tokens,
        # cache_write_tokens: 2025 streams lack it, but the installed SDK (openai 3.54) requires it.
        "input_tokens_details": {"cached_tokens": cached_tokens, "cache_write_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
        "total_tokens": input_tokens + output_tokens,
    }


def echoed_tool(tool: Json) -> Json:
    """A request's tool as the response echoes it: MCP headers and authorization withheld."""
    if tool.get("type") != "mcp":
        return copy.deepcopy(tool)
    echoed = {
        "type": "mcp",
        "allowed_tools": tool.get("allowed_tools"),
        "headers": None,
        "require_approval": tool.get("require_approval", "always"),
    }
    for key in ("server_description", "server_label", "server_url", "connector_id"):
        if tool.get(key) is not None:
            echoed[key] = tool[key]
    return echoed


class ResponseBuilder:
    """One response: its object, its output items, and its numbered stream events."""

    def __init__(
        self,
        request: Json,
        *,
        on_event: Callable[[Json], None] | None = None,
        rng: random.Random | None = None,
        created_at: int | None = None,
        metadata: dict[str, str] | None = None,
        reasoning_items: bool = False,
    ) -> None:
        self.request = request
        self._input_items: list[Json] | None = None
        self.metadata = metadata or {}
        """Added to the response's metadata: the emulator's tool time limit, so a recording
        says which limit applied (the real API's ~60 s is not in its streams)."""
        self.rng = rng or random.Random()
        self.created_at = int(time.time()) if created_at is None else created_at
        self.on_event = on_event
        self.events: list[Json] = []
        self.output: list[Json] = []
        self.status = "queued" if request.get("background") else "in_progress"
        self.error: Json | None = None
        self.usage: Json | None = None
        self.completed_at: int | None = None
        self.id = self.new_id("resp")
        options = request.get("stream_options")
        self.obfuscate = not (
            isinstance(options, dict) and options.get("include_obfuscation") is False
        )
        """`stream_options.include_obfuscation` (default true): delta events carry
        `obfuscation` padding."""
        self.reasons = reasoning_items
        """A `reasoning` item comes before each step the model takes (the emulator asks for
        it when the model is a reasoning one, `is_reasoning_model`)."""
        self.wire: dict[int, tuple[int, bytes]] = {}
        """Events already serialised as SSE (a flood's deltas): first sequence number ->
        (the sequence number after the last one, the bytes), so a stream sends them in one
        write instead of serialising event by event."""

    # ids and padding

    def hex(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def new_id(self, prefix: str) -> str:
        """`prefix_` + 50 hex: creation time, 4 random, `8193`, 34 random (as real ids)."""
        return f"{prefix}_{self.created_at:08x}{self.hex(4)}8193{self.hex(34)}"

    def input_items(self) -> list[Json]:
        """The request's `input` as the items `GET /responses/{id}/input_items` lists, oldest
        first, each with an id (made once): a string is one user message."""
        if self._input_items is None:
            given = self.request.get("input")
            raw = [{"role": "user", "content": given}] if isinstance(given, str) else given
            self._input_items = [
                self._input_item(item) for item in (raw if isinstance(raw, list) else [])
            ]
        return self._input_items

    def _input_item(self, item: Any) -> Json:
        if not isinstance(item, dict):
            return {"id": self.new_id("msg"), "type": "message", "role": "user", "content": []}
        out = dict(item)
        if out.get("type", "message") == "message":
            content = out.get("content")
            if isinstance(content, str):
                kind = "output_text" if out.get("role") == "assistant" else "input_text"
                out["content"] = [{"type": kind, "text": content}]
            out.setdefault("type", "message")
            out.setdefault("status", "completed")
        out.setdefault("id", self.new_id("msg" if out["type"] == "message" else "item"))
        return out

    def obfuscation(self, delta: str) -> str:
        """Random padding taking the delta to a multiple of 16 characters, as the API does."""
        alphabet = string.ascii_letters + string.digits
        return "".join(self.rng.choice(alphabet) for _ in range(-len(delta) % 16))

    def padding(self, delta: str) -> Json:
        """The `obfuscation` field of a delta event, or none when the request turned it off."""
        return {"obfuscation": self.obfuscation(delta)} if self.obfuscate else {}

    # the response object

    def response(self) -> Json:
        """The response object as it stands, with the field set (and order) the API sends."""
        req = self.request
        model = str(req.get("model", ""))
        asked = asked if isinstance(asked := req.get("reasoning"), dict) else {}
        reasoning = (
            {"effort": asked.get("effort") or "medium", "summary": asked.get("summary")}
            if is_reasoning_model(model)
            else {"effort": None, "summary": None}
        )
        tier = req.get("service_tier") or "auto"
        if self.status in ("completed", "incomplete"):
            tier = resolved_service_tier(tier)
        return {
            "id": self.id,
            "object": "response",
            "created_at": self.created_at,
            "status": self.status,
            "background": bool(req.get("background", False)),
            "completed_at": self.completed_at,
            "error": self.error,
            "incomplete_details": None,
            "instructions": req.get("instructions"),
            "max_output_tokens": req.get("max_output_tokens"),
            "max_tool_calls": req.get("max_tool_calls"),
            "model": MODEL_SNAPSHOTS.get(model, model),
            "output": copy.deepcopy(self.output),
            "parallel_tool_calls": req.get("parallel_tool_calls", True),
            "previous_response_id": req.get("previous_response_id"),
            "prompt_cache_key": None,
            "prompt_cache_retention": None,
            "reasoning": reasoning,
            "safety_identifier": None,
            "service_tier": tier,
            "store": req.get("store", True),
            "temperature": 1,
            "text": {"format": {"type": "text"}, "verbosity": "medium"},
            "tool_choice": req.get("tool_choice", "auto"),
            "tools": [echoed_tool(tool) for tool in req.get("tools") or []],
            "top_logprobs": 0,
            "top_p": 1,
            "truncation": "disabled",
            "usage": self.usage,
            "user": None,
            "metadata": {**(req.get("metadata") or {}), **self.metadata},
        }

    def emit(self, kind: str, **fields: Any) -> Json:
        event = {"type": kind, "sequence_number": len(self.events), **fields}
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)
        return event

    def emit_response(self, kind: str) -> Json:
        return self.emit(kind, response=self.response())

    def start(self) -> None:
        """`response.created` (and `response.queued` in background), then `in_progress`."""
        self.emit_response("response.created")
        if self.status == "queued":
            self.emit_response("response.queued")

    def set_in_progress(self) -> None:
        self.status = "in_progress"
        self.emit_response("response.in_progress")

    def error_event(
        self, code: str, message: str, *, kind: str | None = None, param: str | None = None
    ) -> None:
        """An in-stream `error` event, nested as the wire carries it (protocol.md §2)."""
        self.emit(
            "error", error={"type": kind or code, "code": code, "message": message, "param": param}
        )

    def finish(self, status: str, *, error: Json | None = None, usage_: Json | None = None) -> None:
        """The terminal event: `response.completed`, `.failed` or `.incomplete`."""
        self.status = status
        self.error = error
        self.usage = usage_
        self.completed_at = int(time.time()) if status == "completed" else None
        self.emit_response(f"response.{status}")

    # output items

    def add_item(self, item: Json) -> int:
        index = len(self.output)
        self.output.append(copy.deepcopy(item))
        self.emit("response.output_item.added", output_index=index, item=item)
        return index

    def done_item(self, index: int, item: Json) -> None:
        self.output[index] = copy.deepcopy(item)
        self.emit("response.output_item.done", output_index=index, item=item)

    def list_tools_started(self, server_label: str) -> int:
        item = {
            "id": self.new_id("mcpl"),
            "type": "mcp_list_tools",
            "server_label": server_label,
            "tools": [],
        }
        index = self.add_item(item)
        self.emit("response.mcp_list_tools.in_progress", output_index=index, item_id=item["id"])
        return index

    def list_tools_ended(self, index: int, tools: list[Json], error: str | None = None) -> None:
        item = {**self.output[index], "tools": [listed_tool(tool) for tool in tools]}
        if error is not None:
            item["error"] = error
        kind = "failed" if error is not None else "completed"
        self.emit(f"response.mcp_list_tools.{kind}", output_index=index, item_id=item["id"])
        self.done_item(index, item)

    def reasoning(self) -> None:
        """A reasoning model's thinking before a step: an `rs_` item with an empty summary,
        only `output_item.added` and `.done` (as the real streams carry it)."""
        item = {"id": self.new_id("rs"), "type": "reasoning", "summary": []}
        self.done_item(self.add_item(item), item)

    def call_started(
        self, name: str, server_label: str, approval_request_id: str | None = None
    ) -> int:
        """An `mcp_call` item; a reasoning model thinks first (not for a call the caller
        approved: the model chose it in the previous response)."""
        if self.reasons and approval_request_id is None:
            self.reasoning()
        item = {
            "id": self.new_id("mcp"),
            "type": "mcp_call",
            "status": "in_progress",
            "approval_request_id": approval_request_id,
            "arguments": "",
            "error": None,
            "name": name,
            "output": None,
            "server_label": server_label,
        }
        index = self.add_item(item)
        self.emit("response.mcp_call.in_progress", output_index=index, item_id=item["id"])
        return index

    def call_argument_delta(self, index: int, delta: str, *, docs_names: bool = False) -> None:
        kind = (DOCS_ARGUMENT_EVENTS if docs_names else ARGUMENT_EVENTS)[0]
        item = self.output[index]
        item["arguments"] += delta
        self.emit(kind, output_index=index, item_id=item["id"], delta=delta, **self.padding(delta))

    def call_arguments_done(self, index: int, *, docs_names: bool = False) -> None:
        kind = (DOCS_ARGUMENT_EVENTS if docs_names else ARGUMENT_EVENTS)[1]
        item = self.output[index]
        self.emit(kind, output_index=index, item_id=item["id"], arguments=item["arguments"])

    def call_ended(self, index: int, *, output: str | None, error: Json | str | None) -> None:
        status = "failed" if error is not None else "completed"
        item = {**self.output[index], "status": status, "output": output, "error": error}
        self.emit(f"response.mcp_call.{status}", output_index=index, item_id=item["id"])
        self.done_item(index, item)

    def approval_request(self, name: str, arguments: str, server_label: str) -> Json:
        if self.reasons:
            self.reasoning()
        item = {
            "id": self.new_id("mcpr"),
            "type": "mcp_approval_request",
            "arguments": arguments,
            "name": name,
            "server_label": server_label,
        }
        index = self.add_item(item)
        self.done_item(index, item)
        return item

    def message_started(self) -> int:
        if self.reasons:
            self.reasoning()
        item = {
            "id": self.new_id("msg"),
            "type": "message",
            "status": "in_progress",
            "content": [],
            "role": "assistant",
        }
        index = self.add_item(item)
        self.emit(
            "response.content_part.added",
            **self._where(index),
            part={"type": "output_text", "annotations": [], "logprobs": [], "text": ""},
        )
        self.output[index]["content"] = [
            {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        ]
        return index

    def _where(self, index: int) -> Json:
        return {"item_id": self.output[index]["id"], "output_index": index, "content_index": 0}

    def message_delta(self, index: int, delta: str) -> None:
        self.output[index]["content"][0]["text"] += delta
        self.emit(
            "response.output_text.delta",
            **self._where(index),
            delta=delta,
            logprobs=[],
            **self.padding(delta),
        )

    def message_flood(self, index: int, tokens: list[str], count: int, start: int) -> int:
        """Deltas `start` .. `start + count - 1` of a flood (`flood:N`): the text's tokens over
        and over, each delta numbered and shaped as `message_delta` makes it, appended at once
        (listeners are told once) and pre-serialised as one block of SSE. Returns the next
        delta number."""
        where = self._where(index)
        item_id = where["item_id"]
        padding = [self.padding(token) for token in tokens]
        kind = "response.output_text.delta"
        head = f'event: {kind}\ndata: {{"type": "{kind}", "sequence_number": '.encode()
        tails = [
            (
                f', "item_id": {json.dumps(item_id)}, "output_index": {index}, '
                f'"content_index": 0, "delta": {json.dumps(token)}, "logprobs": []'
                + "".join(f", {json.dumps(key)}: {json.dumps(value)}" for key, value in pad.items())
                + "}\n\n"
            ).encode()
            for token, pad in zip(tokens, padding, strict=True)
        ]
        events, pieces, cycle = self.events, [], len(tokens)
        first = len(events)
        seq = first
        for n in range(start, start + count):
            k = n % cycle
            events.append(
                {
                    "type": kind,
                    "sequence_number": seq,
                    **where,
                    "delta": tokens[k],
                    "logprobs": [],
                    **padding[k],
                }
            )
            pieces.append(head + str(seq).encode() + tails[k])
            seq += 1
        self.wire[first] = (seq, b"".join(pieces))
        part = self.output[index]["content"][0]
        whole, rest = divmod(count, cycle)
        offset = start % cycle
        turned = tokens[offset:] + tokens[:offset]
        part["text"] += "".join(turned) * whole + "".join(turned[:rest])
        if self.on_event is not None:
            self.on_event(events[-1])
        return start + count

    def message_ended(self, index: int) -> None:
        part = self.output[index]["content"][0]
        where = self._where(index)
        self.emit("response.output_text.done", **where, text=part["text"], logprobs=[])
        self.emit("response.content_part.done", **where, part=copy.deepcopy(part))
        self.done_item(index, {**self.output[index], "status": "completed"})


def approx_tokens(value: Any) -> int:
    """A rough token count (4 characters a token) for usage figures."""
    text = value if isinstance(value, str) else json.dumps(value)
    return max(1, len(text) // 4)
