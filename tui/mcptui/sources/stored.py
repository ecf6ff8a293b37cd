"""`mcptui open RESP_ID`: a response the API stored, fetched by id and shown like a recording.

`GET /responses/{id}` gives the Response object as it ended (its items, their errors: what
the checks and causes read; no events, so no timeline), and `GET /responses/{id}/input_items`
what it was asked. The request is put back together from the two (model, input, tools,
instructions, background, …) as the header's request, marked `reconstructed`, so `E` exports
it and `e` can re-send it changed. Both answers are read as JSON, not as the SDK's models: a
field the installed SDK does not know yet is kept.

When the API cannot give it, the message says why it may be: no response with that id for
this key's project (a response made with `"store": false` is never kept; a stored one is kept
30 days), a key that is refused, a server that cannot be reached.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mcptui.io.formats import load_text
from mcptui.io.recording import Loaded, make_header
from mcptui.model.jsonsafe import loads
from mcptui.model.providers import Endpoint, endpoint_for, with_query
from mcptui.model.redaction import hide_known, redact, redact_text
from mcptui.model.textsafe import one_line
from mcptui.sources.endpoints import sync_client

RESPONSE_ID = re.compile(r"resp_[A-Za-z0-9_-]{1,200}")
MAX_INPUT_PAGES = 50
"""Pages of 100 input items read at most (5,000 items)."""
REQUEST_FIELDS = (
    "model",
    "instructions",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "max_output_tokens",
    "max_tool_calls",
    "previous_response_id",
    "reasoning",
    "text",
    "truncation",
    "temperature",
    "top_p",
    "metadata",
    "background",
    "service_tier",
    "store",
    "prompt",
    "prompt_cache_key",
    "safety_identifier",
)
"""Fields a Response echoes from its request, as the request has them."""


class StoredError(Exception):
    """The response could not be fetched; the message says why, for the person."""


def is_response_id(text: str) -> bool:
    return RESPONSE_ID.fullmatch(text) is not None


def fetch_stored(response_id: str, base_url: str | Endpoint | None, api_key: str) -> Loaded:
    """The stored response as a loaded file. Raises StoredError with a message to show."""
    import openai

    target = base_url if isinstance(base_url, Endpoint) else endpoint_for(base_url)
    client = sync_client(target, api_key, max_retries=1, timeout=60.0)
    endpoint = str(client.base_url).rstrip("/")
    try:
        raw = client.responses.with_raw_response.retrieve(response_id)
        response = loads(raw.http_response.text)
        items = _input_items(client, response_id)
    except openai.NotFoundError:
        raise StoredError(
            f"no such response: {response_id} is not stored for this API key's project at "
            f'{redact_text(endpoint, strict_urls=True)} (a response made with "store": false '
            "is never kept; a stored one is kept 30 days)"
        ) from None
    except openai.AuthenticationError as exc:
        raise StoredError(f"the API key was refused: {_said(exc)}") from None
    except openai.APIStatusError as exc:
        raise StoredError(f"HTTP {exc.status_code}: {_said(exc)}") from None
    except openai.APIConnectionError as exc:
        raise StoredError(
            f"could not reach {redact_text(endpoint, strict_urls=True)}: {one_line(str(exc))}"
        ) from None
    except ValueError as exc:  # not JSON
        raise StoredError(f"the answer is not a Response object: {exc}") from None
    if not isinstance(response, dict) or response.get("object") != "response":
        raise StoredError("the answer is not a Response object")
    return stored_loaded(response, items, endpoint, query=target.query, provider=target.provider)


def stored_loaded(
    response: dict[str, Any],
    items: list[Any] | None,
    base: str,
    *,
    query: str = "",
    provider: str | None = None,
) -> Loaded:
    """A Response object and its input items as a loaded file: the snapshot, and a header
    whose request is put back together from the two. `base`: the API's base URL (`query`:
    the one its requests carried, Azure's `api-version`), `provider` who answered."""
    shown = redact_text(base, strict_urls=True)  # (a token in it; the id is none)
    response_id = str(response.get("id", ""))
    loaded = load_text(json.dumps(response), source=f"GET {shown}/responses/{response_id}")
    header = make_header(
        "stored response",
        request=reconstructed_request(response, items),
        endpoint=with_query(f"{shown}/responses", query),
        provider=provider,
        response_id=response_id,
        reconstructed=True,
    )
    loaded.header = hide_known(redact(header), loaded.secrets)
    loaded.format = "stored Response"
    return loaded


def reconstructed_request(response: dict[str, Any], items: list[Any] | None) -> dict[str, Any]:
    """The request as far as the Response and its input items tell it."""
    request: dict[str, Any] = {
        key: response[key]
        for key in REQUEST_FIELDS
        if key in response and response[key] is not None
    }
    if items is not None:
        request["input"] = [_as_input(item) for item in items]
    if isinstance(request.get("tools"), list):
        request["tools"] = [_as_tool(tool) for tool in request["tools"]]
    return request


def _as_input(item: Any) -> Any:
    """An input item as a request carries it: without the id and status the API added."""
    if not isinstance(item, dict):
        return item
    return {key: value for key, value in item.items() if key not in ("id", "status")}


def _as_tool(tool: Any) -> Any:
    """A tool as a request names it: without the empty fields a Response echoes."""
    if not isinstance(tool, dict):
        return tool
    return {key: value for key, value in tool.items() if value is not None}


def _input_items(client: Any, response_id: str) -> list[Any]:
    """Every input item, oldest first."""
    found: list[Any] = []
    after: str | None = None
    for _ in range(MAX_INPUT_PAGES):
        options: dict[str, Any] = {"order": "asc", "limit": 100}
        if after is not None:
            options["after"] = after
        raw = client.responses.input_items.with_raw_response.list(response_id, **options)
        page = loads(raw.http_response.text)
        data = page.get("data") if isinstance(page, dict) else None
        if not isinstance(data, list):
            break
        found += data
        if not page.get("has_more") or not data or not isinstance(data[-1], dict):
            break
        after = str(data[-1].get("id"))
    return found


def _said(exc: Any) -> str:
    body = getattr(exc, "body", None)
    message = body.get("message") if isinstance(body, dict) else None
    return redact_text(one_line(str(message or exc)))
