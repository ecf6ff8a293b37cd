"""Which server a Responses stream comes from, and the URL its requests go to.

The checks judge every stream against the openai SDK's types, but many servers speak the
Responses API: Azure OpenAI, Ollama, vLLM, OpenRouter, LiteLLM, Llama Stack. A stream from one
of them that differs from the SDK is that server's difference, not an OpenAI bug, so the
provider is named (`--provider`, else read from the base URL) and recorded with the stream.

A base URL may carry a query the server needs on every request: Azure's `api-version`. The SDK
joins paths onto the URL as written (`…/v1?api-version=x` + `responses` became
`…/v1/?api-version=xresponses`), so the query is split off here and sent as the client's default
query. Azure's two routes (Microsoft's Responses API docs, and openai-python's `lib/azure.py`):
`https://RES.openai.azure.com/openai/v1/responses` (the v1 API, `api-version` optional:
`preview` for preview features) and `https://RES.openai.azure.com/openai/responses?api-version=
2025-04-01-preview` (a dated version, required). Both take the key in an `api-key` header.

Pure: strings in, an `Endpoint` out; reading the environment and building the client happen in
`mcptui.sources.endpoints`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlunsplit

from mcptui.model.urlsafe import split_url

OPENAI = "openai"
AZURE = "azure"
UNKNOWN = "unknown"
PROVIDERS = (OPENAI, AZURE, "ollama", "vllm", "openrouter", "litellm", "llama-stack", "compatible")
"""What `--provider` accepts. `compatible`: another server that speaks the Responses API."""

OPENAI_BASE = "https://api.openai.com/v1"
"""The SDK's default base URL (no `--base-url`, no `OPENAI_BASE_URL`)."""
API_VERSION = "api-version"

_AZURE_HOSTS = (".openai.azure.com", ".cognitiveservices.azure.com", ".services.ai.azure.com")
_HOST_WORDS = (
    ("openrouter.ai", "openrouter"),
    ("ollama", "ollama"),
    ("vllm", "vllm"),
    ("litellm", "litellm"),
    ("llama-stack", "llama-stack"),
    ("llamastack", "llama-stack"),
)
"""A word in the host that names the server (`openrouter.ai`, `ollama.internal`)."""
_DEFAULT_PORTS = {11434: "ollama", 8321: "llama-stack", 4000: "litellm"}
"""Ports these servers listen on unless told otherwise (their docs' defaults)."""
_DATED = re.compile(r"\d{4}-\d{2}-\d{2}")


class EndpointError(ValueError):
    """A base URL that cannot work as given; the message says what to do, for the person."""


@dataclass(frozen=True)
class Endpoint:
    """Where a run's requests go, and how they are signed."""

    base_url: str | None
    """Without its query; None: the SDK's default (`OPENAI_BASE`)."""
    query: str = ""
    """The base URL's query as written (`api-version=preview`): on every request."""
    provider: str = OPENAI

    @property
    def key_header(self) -> str:
        """The header the API key goes in: Azure's `api-key`, else a bearer `authorization`."""
        return "api-key" if self.provider == AZURE else "authorization"

    @property
    def default_query(self) -> dict[str, str]:
        return dict(parse_qsl(self.query, keep_blank_values=True))

    @property
    def responses_url(self) -> str:
        """`…/responses?api-version=…`: what the recording's header names as its endpoint."""
        return with_query(f"{(self.base_url or OPENAI_BASE).rstrip('/')}/responses", self.query)


def with_query(url: str, query: str) -> str:
    return f"{url}?{query}" if query else url


def detect_provider(base_url: str | None) -> str:
    """The provider a base URL names: `openai` for the OpenAI API (and no URL at all), a known
    server by its host or default port, else `unknown` (a proxy, the emulator, anything)."""
    if not base_url:
        return OPENAI
    parts = split_url(base_url)
    host = (parts.hostname or "").lower() if parts.netloc else ""
    if host == "api.openai.com":
        return OPENAI
    if host.endswith(_AZURE_HOSTS):
        return AZURE
    for word, provider in _HOST_WORDS:
        if word in host:
            return provider
    if "/v1/openai/v1" in parts.path:
        return "llama-stack"
    try:
        port = parts.port
    except ValueError:
        port = None
    return _DEFAULT_PORTS.get(port or 0, UNKNOWN)


def endpoint_for(
    base_url: str | None, provider: str | None = None, *, api_version: str | None = None
) -> Endpoint:
    """The endpoint of a base URL (`--base-url`, `OPENAI_BASE_URL`, `AZURE_OPENAI_ENDPOINT`):
    its query split off, a pasted `…/responses` dropped, and for Azure a bare resource URL
    given its route. `api_version` (`OPENAI_API_VERSION`) is added where the URL has none and
    the route takes one. Raises EndpointError for an Azure route that cannot work."""
    chosen = provider or detect_provider(base_url)
    if not base_url:
        if chosen == AZURE:
            raise EndpointError(
                "--provider azure needs the resource's URL: --base-url "
                "https://RES.openai.azure.com/openai/v1 or AZURE_OPENAI_ENDPOINT"
            )
        return Endpoint(None, "", chosen)
    parts = split_url(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return Endpoint(base_url, "", chosen)  # the SDK says what is wrong with it
    path = parts.path.rstrip("/").removesuffix("/responses").rstrip("/")
    query = parts.query
    if chosen == AZURE:
        path, query = _azure_route(path, query, api_version)
    return Endpoint(urlunsplit((parts.scheme, parts.netloc, path, "", "")), query, chosen)


def _azure_route(path: str, query: str, api_version: str | None) -> tuple[str, str]:
    given = dict(parse_qsl(query, keep_blank_values=True)).get(API_VERSION)
    version = given or api_version
    if not path:  # the resource alone (AZURE_OPENAI_ENDPOINT): a dated version's route, else v1
        path = "/openai" if version and _DATED.match(version) else "/openai/v1"
    legacy = not path.endswith("/v1")
    if given is None and version and (legacy or not _DATED.match(version)):
        query = "&".join(part for part in (query, f"{API_VERSION}={version}") if part)
    elif legacy and not given:
        raise EndpointError(
            "this Azure route (…/openai/responses, not the v1 API) needs an api-version: add "
            "?api-version=2025-04-01-preview to the URL or set OPENAI_API_VERSION, or use the "
            "v1 API (…/openai/v1), where it is optional"
        )
    return path, query


def base_of_endpoint(endpoint: str | None) -> str | None:
    """The base URL (query kept) of a recording's endpoint (`…/v1/responses?api-version=x` →
    `…/v1?api-version=x`), when it names one that is not redacted."""
    if not isinstance(endpoint, str) or "<redacted>" in endpoint:
        return None
    url, question, query = endpoint.partition("?")
    base = url.rstrip("/").removesuffix("/responses")
    if not base.startswith(("http://", "https://")):
        return None
    return f"{base}{question}{query}"


def stream_provider(header: Mapping[str, Any] | None) -> str | None:
    """The provider a recording's header names, else the one its Responses endpoint shows
    (`openai.azure.com`: azure); None when neither says."""
    header = header or {}
    named = header.get("provider")
    if named in PROVIDERS:  # a name of ours; anything else in a file is not shown as one
        return str(named)
    endpoint = header.get("endpoint")
    if not isinstance(endpoint, str) or "/responses" not in endpoint:
        return None
    found = detect_provider(endpoint)
    return None if found == UNKNOWN else found


def differs(provider: str | None) -> bool:
    """Whether a stream's drift from the openai SDK is its provider's own: a named server
    other than OpenAI (an unknown one may be OpenAI behind a proxy, or the emulator)."""
    return provider not in (None, OPENAI, UNKNOWN)


def drift_prefix(provider: str) -> str:
    """How a finding of SDK-shape drift names the server it is about."""
    who = "this compatible server" if provider == "compatible" else provider
    return f"{who} differs from the openai SDK: "
