"""Generate the sample recordings in this folder, deterministically, then check them.

    .venv/bin/python recordings/make_samples.py

Each sample is a streamed Responses API run with remote MCP tools, shaped after real recorded
streams (`shared/fixtures/upstream/openai-mcp-tool.1.chunks.txt`): the same event order, field
sets and field order, ids and `obfuscation` padding the way the API makes them, and arrival
times `t` in seconds. The files are written with the project's own writer (`save_recording`),
so the header's request goes through redaction like a real recording's.

After writing, `check()` reads every file back and fails loudly unless each event validates
with the installed openai SDK's model for its `type`, the stream is structurally sound
(sequence numbers, item ids, output indexes, deltas against `.done`), and no credential from
the request reached the file.
"""

from __future__ import annotations

import json
import random
import string
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE.parent / "tui") not in sys.path:  # run as a script from a checkout without an install
    sys.path.insert(0, str(HERE.parent / "tui"))

from mcptui.emulator.builder import tokenize, usage  # noqa: E402
from mcptui.io.recording import make_header, read_recording, save_recording  # noqa: E402
from mcptui.model.events import Event  # noqa: E402
from mcptui.model.sdktypes import event_models  # noqa: E402

MODEL_ALIAS = "gpt-5-mini"
MODEL = "gpt-5-mini-2025-08-07"
ENDPOINT = "https://api.openai.com/v1/responses"
SECRET = "sk-test-SHOULD-BE-REDACTED-123456"
"""A fake key sent as an MCP header in every sample request; the writer must redact it."""

HTTP_424 = {
    "type": "http_error",
    "code": 424,
    "message": "424: unhandled errors in a TaskGroup (1 sub-exception)",
}

Json = dict[str, Any]


# --- building blocks -------------------------------------------------------------------------


class Stream:
    """One streamed response: assigns sequence numbers, ids, output indexes and times."""

    def __init__(
        self,
        seed: int,
        created_at: int,
        *,
        server_label: str,
        server_url: str,
        background: bool = False,
        instructions: str | None = None,
    ) -> None:
        self.rng = random.Random(seed)
        self.created_at = created_at
        self.background = background
        self.instructions = instructions
        self.tools: list[Json] = [
            {
                "type": "mcp",
                "allowed_tools": None,
                "headers": None,
                "require_approval": "never",
                "server_label": server_label,
                "server_url": server_url,
            }
        ]
        self.server_label = server_label
        self.t = 0.0
        self.timeline: list[tuple[float, Json]] = []
        self.output: list[Json] = []
        self.id = self.new_id("resp")

    # ids, padding, time

    def hex(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def new_id(self, prefix: str) -> str:
        """`prefix_` + 50 hex: creation time, 4 random, `8193`, 34 random (as real ids)."""
        return f"{prefix}_{int(self.created_at + self.t):08x}{self.hex(4)}8193{self.hex(34)}"

    def obfuscation(self, delta: str) -> str:
        """Random padding taking the delta to a multiple of 16 characters, as the API does."""
        alphabet = string.ascii_letters + string.digits
        return "".join(self.rng.choice(alphabet) for _ in range(-len(delta) % 16))

    def wait(self, low: float, high: float) -> None:
        self.t += self.rng.uniform(low, high)

    def emit(self, kind: str, **fields: Any) -> Json:
        event = {"type": kind, "sequence_number": len(self.timeline), **fields}
        self.timeline.append((round(self.t, 3), event))
        return event

    # the response object

    def response(
        self,
        status: str,
        *,
        usage: Json | None = None,
        error: Json | None = None,
        service_tier: str = "auto",
    ) -> Json:
        """The response object with the field set (and order) the API sends."""
        return {
            "id": self.id,
            "object": "response",
            "created_at": self.created_at,
            "status": status,
            "background": self.background,
            "error": error,
            "incomplete_details": None,
            "instructions": self.instructions,
            "max_output_tokens": None,
            "max_tool_calls": None,
            "model": MODEL,
            "output": json.loads(json.dumps(self.output)),
            "parallel_tool_calls": True,
            "previous_response_id": None,
            "prompt_cache_key": None,
            "prompt_cache_retention": None,
            "reasoning": {"effort": "medium", "summary": None},
            "safety_identifier": None,
            "service_tier": service_tier,
            "store": True,
            "temperature": 1,
            "text": {"format": {"type": "text"}, "verbosity": "medium"},
            "tool_choice": "auto",
            "tools": self.tools,
            "top_logprobs": 0,
            "top_p": 1,
            "truncation": "disabled",
            "usage": usage,
            "user": None,
            "metadata": {},
        }

    def start(self, first_byte: float) -> None:
        self.t = first_byte
        if self.background:
            self.emit("response.created", response=self.response("queued"))
            self.wait(0.001, 0.003)
            self.emit("response.queued", response=self.response("queued"))
            self.wait(0.9, 1.6)  # waiting for a worker
        else:
            self.emit("response.created", response=self.response("in_progress"))
            self.wait(0.001, 0.003)
        self.emit("response.in_progress", response=self.response("in_progress"))

    def complete(self, usage: Json) -> None:
        self.wait(0.02, 0.06)
        self.emit(
            "response.completed",
            response=self.response("completed", usage=usage, service_tier="default"),
        )

    # output items

    def list_tools(self, tools: list[Json], duration: float) -> Json:
        index = len(self.output)
        self.wait(0.002, 0.006)
        item = {
            "id": self.new_id("mcpl"),
            "type": "mcp_list_tools",
            "server_label": self.server_label,
            "tools": [],
        }
        self.emit("response.output_item.added", output_index=index, item=dict(item))
        self.wait(0.0005, 0.002)
        self.emit("response.mcp_list_tools.in_progress", output_index=index, item_id=item["id"])
        self.t += duration
        self.emit("response.mcp_list_tools.completed", output_index=index, item_id=item["id"])
        self.wait(0.0005, 0.002)
        item["tools"] = tools
        self.emit("response.output_item.done", output_index=index, item=item)
        self.output.append(item)
        return item

    def reasoning(self, thinking: float) -> Json:
        index = len(self.output)
        self.wait(0.01, 0.05)
        item = {"id": self.new_id("rs"), "type": "reasoning", "summary": []}
        self.emit("response.output_item.added", output_index=index, item=dict(item))
        self.t += thinking
        self.emit("response.output_item.done", output_index=index, item=item)
        self.output.append(item)
        return item

    def mcp_call(
        self,
        name: str,
        argument_parts: list[str],
        duration: float,
        *,
        output: str | None = None,
        error: Json | None = None,
    ) -> Json:
        """One call: arguments streamed in parts, then `duration` s in the tool, then its end."""
        index = len(self.output)
        self.wait(0.03, 0.08)
        call_id = self.new_id("mcp")
        added = {
            "id": call_id,
            "type": "mcp_call",
            "status": "in_progress",
            "approval_request_id": None,
            "arguments": "",
            "error": None,
            "name": name,
            "output": None,
            "server_label": self.server_label,
        }
        self.emit("response.output_item.added", output_index=index, item=added)
        self.wait(0.0005, 0.002)
        self.emit("response.mcp_call.in_progress", output_index=index, item_id=call_id)
        for part in argument_parts:
            self.wait(0.015, 0.035)
            self.emit(
                "response.mcp_call_arguments.delta",
                output_index=index,
                item_id=call_id,
                delta=part,
                obfuscation=self.obfuscation(part),
            )
        arguments = "".join(argument_parts)
        json.loads(arguments)  # the parts must make valid JSON
        self.wait(0.002, 0.008)
        self.emit(
            "response.mcp_call_arguments.done",
            output_index=index,
            item_id=call_id,
            arguments=arguments,
        )
        self.t += duration
        status = "failed" if error is not None else "completed"
        self.emit(f"response.mcp_call.{status}", output_index=index, item_id=call_id)
        self.wait(0.0005, 0.002)
        item = {**added, "status": status, "arguments": arguments, "error": error, "output": output}
        self.emit("response.output_item.done", output_index=index, item=item)
        self.output.append(item)
        return item

    def message(self, text: str) -> Json:
        """An assistant message streamed token by token, 20-40 ms apart."""
        index = len(self.output)
        self.wait(0.02, 0.06)
        msg_id = self.new_id("msg")
        self.emit(
            "response.output_item.added",
            output_index=index,
            item={
                "id": msg_id,
                "type": "message",
                "status": "in_progress",
                "content": [],
                "role": "assistant",
            },
        )
        self.wait(0.0005, 0.002)
        where = {"item_id": msg_id, "output_index": index, "content_index": 0}
        self.emit(
            "response.content_part.added",
            **where,
            part={"type": "output_text", "annotations": [], "logprobs": [], "text": ""},
        )
        tokens = tokenize(text)
        for token in tokens:
            self.wait(0.02, 0.04)
            self.emit(
                "response.output_text.delta",
                **where,
                delta=token,
                logprobs=[],
                obfuscation=self.obfuscation(token),
            )
        self.wait(0.005, 0.015)
        self.emit("response.output_text.done", **where, text=text, logprobs=[])
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
        self.wait(0.0005, 0.002)
        self.emit("response.content_part.done", **where, part=part)
        item = {
            "id": msg_id,
            "type": "message",
            "status": "completed",
            "content": [part],
            "role": "assistant",
        }
        self.wait(0.0005, 0.002)
        self.emit("response.output_item.done", output_index=index, item=item)
        self.output.append(item)
        return item

    def events(self) -> list[Event]:
        return [Event(raw, index=i, t=t) for i, (t, raw) in enumerate(self.timeline)]


def tool(
    name: str, description: str, properties: Json, required: list[str], *, read_only: bool = True
) -> Json:
    """A tool as `mcp_list_tools` carries it (no outputSchema: the API does not pass it on)."""
    return {
        "annotations": {"read_only": read_only},
        "description": description,
        "input_schema": {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
            "$schema": "http://json-schema.org/draft-07/schema#",
        },
        "name": name,
    }


def request(input_text: str, server_label: str, server_url: str, **extra: Any) -> Json:
    return {
        "model": MODEL_ALIAS,
        "input": input_text,
        "tools": [
            {
                "type": "mcp",
                "server_label": server_label,
                "server_url": server_url,
                "headers": {"Authorization": f"Bearer {SECRET}"},
                "require_approval": "never",
            }
        ],
        **extra,
        "stream": True,
    }


def header(stream: Stream, req: Json, description: str) -> Json:
    request_id = "req_" + stream.hex(32)
    head = make_header(
        "sample",
        request=req,
        endpoint=ENDPOINT,
        http_status=200,
        http_headers={
            "content-type": "text/event-stream; charset=utf-8",
            "x-request-id": request_id,
            "openai-processing-ms": str(int(stream.timeline[0][0] * 1000)),
            "openai-version": "2020-10-01",
        },
        generator="recordings/make_samples.py",
        description=description,
    )
    # Deterministic output: the request's own time instead of the moment the script ran.
    head["created"] = datetime.fromtimestamp(stream.created_at, UTC).isoformat(timespec="seconds")
    return head


# --- the samples -----------------------------------------------------------------------------

DOCS_URL = "https://mcp.example.com/mcp"
DOCS_TOOLS = [
    tool(
        "search_docs",
        "Full-text search over the product documentation. Returns the best matching pages "
        "with a short snippet each.",
        {
            "query": {"type": "string", "description": "What to look for"},
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 20,
                "default": 5,
                "description": "Maximum number of results (default 5)",
            },
        },
        ["query"],
    ),
    tool(
        "fetch_page",
        "Fetch one documentation page as Markdown, by its path (as returned by search_docs).",
        {"path": {"type": "string", "description": "Page path, e.g. /guides/webhooks"}},
        ["path"],
    ),
    tool("list_sections", "List the top-level sections of the documentation.", {}, []),
]
DOCS_OUTPUT = json.dumps(
    {
        "query": "webhook retry policy",
        "results": [
            {
                "title": "Webhook retries",
                "path": "/guides/webhooks/retries",
                "score": 0.93,
                "snippet": "Failed deliveries (any non-2xx answer or no answer within 10 "
                "seconds) are "
                "retried up to 5 times with exponential backoff: 30 s, 1 min, 2 min, 4 min, "
                "8 min.",
            },
            {
                "title": "Configuring webhooks",
                "path": "/guides/webhooks",
                "score": 0.81,
                "snippet": "Open Settings > Webhooks to add an endpoint, choose events and set the "
                "retry policy per endpoint.",
            },
            {
                "title": "Delivery logs",
                "path": "/guides/webhooks/logs",
                "score": 0.64,
                "snippet": "Every attempt is logged with its status code and can be redelivered by "
                "hand for 30 days.",
            },
        ],
        "total": 3,
        "took_ms": 42,
    }
)
DOCS_ANSWER = (
    "Failed webhook deliveries are retried up to 5 times with exponential backoff: after 30 s, "
    "then 1, 2, 4 and 8 minutes. You can change the policy per endpoint under Settings > "
    "Webhooks."
)


def mcp_success() -> tuple[Json, list[Event]]:
    s = Stream(101, 1756215187, server_label="docs", server_url=DOCS_URL)
    s.start(0.384)
    s.list_tools(DOCS_TOOLS, duration=0.447)
    s.reasoning(thinking=1.062)
    s.mcp_call(
        "search_docs",
        ['{"query":"webhook', ' retry policy",', '"limit":3}'],
        duration=0.812,
        output=DOCS_OUTPUT,
    )
    s.reasoning(thinking=0.934)
    s.message(DOCS_ANSWER)
    s.complete(usage(2873, 388, 192))
    req = request("How does the webhook retry policy work? Check our docs.", "docs", DOCS_URL)
    return header(
        s, req, "A docs server lists its tools, one call succeeds, the model answers."
    ), s.events()


FILES_URL = "https://files.example.com/mcp"
FILES_TOOLS = [
    tool(
        "search_files",
        "Search the team's shared files by content and name. Returns matching files with "
        "their path, size and last modified time.",
        {
            "query": {"type": "string", "description": "Words to search for"},
            "folder": {"type": "string", "description": "Only search under this folder"},
            "max_results": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
        },
        ["query"],
    ),
    tool(
        "read_file",
        "Read a text file by path (up to 1 MB).",
        {"path": {"type": "string", "description": "File path, as returned by search_files"}},
        ["path"],
    ),
]
FILES_ANSWER = (
    "Sorry, I couldn't search your files: the search_files tool on the files server failed "
    "(424: unhandled errors in a TaskGroup). The server may be down. Should I try again?"
)


def mcp_424_broken_schema() -> tuple[Json, list[Event]]:
    s = Stream(202, 1756219842, server_label="files", server_url=FILES_URL)
    s.start(0.412)
    s.list_tools(FILES_TOOLS, duration=0.381)
    s.reasoning(thinking=0.981)
    s.mcp_call(
        "search_files",
        ['{"query":"Q3 budget', ' forecast","folder":"/finance",', '"max_results":5}'],
        duration=1.128,
        error=HTTP_424,
    )
    s.reasoning(thinking=0.873)
    s.message(FILES_ANSWER)
    s.complete(usage(1912, 301, 128))
    req = request("Find the Q3 budget forecast in the finance folder.", "files", FILES_URL)
    return header(
        s,
        req,
        "The classic 424: search_files fails on the files server (its "
        "result does not match its output schema); the response still "
        "completes.",
    ), s.events()


REPORTS_URL = "https://reports.example.com/mcp"
REPORTS_TOOLS = [
    tool(
        "slow_report",
        "Build a sales report for a quarter and region. Large reports can take several minutes.",
        {
            "quarter": {
                "type": "string",
                "pattern": "^[0-9]{4}-Q[1-4]$",
                "description": "Quarter, e.g. 2025-Q2",
            },
            "region": {"type": "string", "enum": ["AMER", "EMEA", "APAC", "ALL"]},
        },
        ["quarter"],
    ),
    tool("report_status", "Status of the reports backend.", {}, []),
]
REPORTS_ANSWER = (
    "The slow_report tool didn't answer in time: the reports server failed after about a minute "
    "(424). A whole-quarter report for all regions may be too slow; try one region at a time."
)


def mcp_timeout_424() -> tuple[Json, list[Event]]:
    s = Stream(303, 1756224401, server_label="reports", server_url=REPORTS_URL)
    s.start(0.397)
    s.list_tools(REPORTS_TOOLS, duration=0.512)
    s.reasoning(thinking=1.118)
    s.mcp_call(
        "slow_report", ['{"quarter":"2025-Q2",', '"region":"ALL"}'], duration=60.241, error=HTTP_424
    )
    s.reasoning(thinking=1.047)
    s.message(REPORTS_ANSWER)
    s.complete(usage(1764, 342, 192))
    req = request("Give me the 2025-Q2 sales report for all regions.", "reports", REPORTS_URL)
    return header(
        s,
        req,
        "A slow tool: slow_report fails with the same 424 after about 60 s; "
        "the response still completes.",
    ), s.events()


TICKETS_URL = "https://tickets.example.com/mcp"
TICKETS_TOOLS = [
    tool(
        "list_tickets",
        "List support tickets, newest first.",
        {
            "status": {"type": "string", "enum": ["open", "pending", "closed"]},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
        },
        [],
    ),
    tool(
        "get_ticket",
        "Get one ticket with its full conversation.",
        {"id": {"type": "string", "description": "Ticket id, e.g. T-1042"}},
        ["id"],
    ),
    tool(
        "add_comment",
        "Add an internal comment to a ticket.",
        {"id": {"type": "string"}, "body": {"type": "string"}},
        ["id", "body"],
        read_only=False,
    ),
]


def background_failed() -> tuple[Json, list[Event]]:
    s = Stream(404, 1756230063, server_label="tickets", server_url=TICKETS_URL, background=True)
    s.start(0.298)
    s.list_tools(TICKETS_TOOLS, duration=0.563)
    s.wait(11.5, 13.5)  # nothing more arrives, then:
    s.emit(
        "response.failed",
        response=s.response(
            "failed",
            error={
                "code": "server_error",
                "message": "An error occurred while processing your request.",
            },
        ),
    )
    req = request(
        "Summarise the open support tickets from this week.",
        "tickets",
        TICKETS_URL,
        background=True,
        store=True,
    )
    return header(
        s,
        req,
        "Background mode with MCP: queued, in progress, tools listed, then a "
        "bare response.failed (server_error).",
    ), s.events()


SAMPLES: dict[str, Callable[[], tuple[Json, list[Event]]]] = {
    "mcp-success.jsonl": mcp_success,
    "mcp-424-broken-schema.jsonl": mcp_424_broken_schema,
    "mcp-timeout-424.jsonl": mcp_timeout_424,
    "background-failed.jsonl": background_failed,
}


# --- checks ----------------------------------------------------------------------------------


def check_structure(name: str, events: list[Json]) -> None:
    """Sequence numbers, item ids, output indexes, deltas against `.done`, the final output."""
    items: dict[str, Json] = {}  # id -> {"index", "done", "args", "text"}
    by_index: dict[int, str] = {}
    final: Json | None = None
    for position, event in enumerate(events):
        where = f"{name} event {position} ({event['type']})"
        if event["sequence_number"] != position:
            raise AssertionError(f"{where}: sequence_number {event['sequence_number']}")
        kind = event["type"]
        if "response" in event:
            final = event["response"]
        if kind == "response.output_item.added":
            item = event["item"]
            if item["id"] in items or event["output_index"] in by_index:
                raise AssertionError(f"{where}: item or output_index added twice")
            if event["output_index"] != len(by_index):
                raise AssertionError(f"{where}: output_index not next")
            items[item["id"]] = {
                "index": event["output_index"],
                "done": None,
                "args": "",
                "text": "",
            }
            by_index[event["output_index"]] = item["id"]
            continue
        item_id = event["item"]["id"] if "item" in event else event.get("item_id")
        if item_id is None:
            continue
        state = items.get(item_id)
        if state is None or state["done"] is not None:
            raise AssertionError(f"{where}: item {item_id} not open")
        if event["output_index"] != state["index"]:
            raise AssertionError(f"{where}: output_index disagrees with the item's")
        if kind == "response.mcp_call_arguments.delta":
            state["args"] += event["delta"]
        elif kind == "response.mcp_call_arguments.done" and event["arguments"] != state["args"]:
            raise AssertionError(f"{where}: arguments differ from the deltas")
        elif kind == "response.output_text.delta":
            state["text"] += event["delta"]
        elif kind == "response.output_text.done" and event["text"] != state["text"]:
            raise AssertionError(f"{where}: text differs from the deltas")
        elif kind == "response.output_item.done":
            state["done"] = event["item"]
    if final is None or final["status"] not in {"completed", "failed"}:
        raise AssertionError(f"{name}: no terminal response event")
    done = [items[by_index[i]]["done"] for i in range(len(by_index))]
    if final["output"] != done:
        raise AssertionError(f"{name}: final response output differs from the items' .done")


def check(folder: Path = HERE) -> dict[str, int]:
    """Read each sample back; raise unless it is clean. Returns event counts per file."""
    from openai.types.responses import Response

    models = event_models()
    counts: dict[str, int] = {}
    for name, build in SAMPLES.items():
        path = folder / name
        text = path.read_text(encoding="utf-8")
        if SECRET in text or "<redacted>" not in text:
            raise AssertionError(f"{name}: the request's credential was not redacted")
        loaded = read_recording(enumerate(text.splitlines(), start=1), source=name)
        if loaded.problems or loaded.header is None:
            raise AssertionError(f"{name}: {loaded.problems or 'no header'}")
        raws = [event.raw for event in loaded.events]
        if raws != [event.raw for event in build()[1]]:
            raise AssertionError(f"{name}: file differs from the generated events")
        failures: list[str] = []
        for position, raw in enumerate(raws):
            model = models.get(raw["type"])
            if model is None:
                failures.append(f"event {position}: no SDK model for type {raw['type']!r}")
                continue
            try:
                model.model_validate(raw)
                if "response" in raw:
                    Response.model_validate(raw["response"])
            except Exception as exc:  # pydantic.ValidationError, reported all together
                failures.append(f"event {position} ({raw['type']}): {exc}")
        if failures:
            raise AssertionError(f"{name}: SDK validation failed:\n" + "\n".join(failures))
        check_structure(name, raws)
        counts[name] = len(raws)
    return counts


def main() -> None:
    for name, build in SAMPLES.items():
        head, events = build()
        path = HERE / name
        path.unlink(missing_ok=True)  # the writer opens with mode "x"
        save_recording(path, head, events)
    import openai

    for name, count in check().items():
        print(f"{name}: {count} events (valid with openai {openai.__version__})")


if __name__ == "__main__":
    main()
