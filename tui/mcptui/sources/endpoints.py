"""The endpoint and key a live run, an attach, an `open` or a re-send uses, from the command
line and the environment, and the openai SDK client that talks to it.

Azure OpenAI is read the way openai-python's `AzureOpenAI` reads it (`AZURE_OPENAI_API_KEY`,
`AZURE_OPENAI_ENDPOINT`, `OPENAI_API_VERSION`), and signed the way Azure documents: the key in
an `api-key` header, never as a bearer token. Every other provider takes `OPENAI_API_KEY` as a
bearer token, as the SDK sends it. A base URL's query (`api-version`) goes on every request as
the client's default query (tui/mcptui/model/providers.py says why).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from mcptui.model.providers import AZURE, Endpoint, EndpointError, endpoint_for

if TYPE_CHECKING:
    from openai import AsyncOpenAI, OpenAI

__all__ = ["EndpointError", "LiveTarget", "async_client", "live_target", "sync_client"]


@dataclass(frozen=True)
class LiveTarget:
    """An endpoint and the key for it (empty when none is set: `missing` says which)."""

    endpoint: Endpoint
    api_key: str
    azure_key_set: bool = False
    """`AZURE_OPENAI_API_KEY` is set, though the endpoint is not Azure's."""

    @property
    def missing(self) -> str | None:
        """What to set when there is no key, as a sentence; None when there is one."""
        if self.api_key:
            return None
        if self.endpoint.provider == AZURE:
            return "AZURE_OPENAI_API_KEY (or OPENAI_API_KEY) is not set"
        if self.azure_key_set:  # an Azure endpoint behind a URL we cannot tell (a proxy)
            return "OPENAI_API_KEY is not set (AZURE_OPENAI_API_KEY is: add --provider azure)"
        return "OPENAI_API_KEY is not set"


def live_target(
    base_url: str | None,
    provider: str | None,
    environ: Mapping[str, str],
    *,
    recorded: str | None = None,
) -> LiveTarget:
    """`--base-url` (else `OPENAI_BASE_URL`, else `recorded`: a replay's own endpoint) and
    `--provider` (else read from the URL). With no URL, `AZURE_OPENAI_ENDPOINT` is used for
    `--provider azure`, or when only Azure's key is set. Raises EndpointError."""
    base = base_url or environ.get("OPENAI_BASE_URL") or recorded or None
    if base_url or environ.get("OPENAI_BASE_URL"):  # what the user typed or exported
        check_url(str(base), "--base-url" if base_url else "OPENAI_BASE_URL")
    azure_endpoint = environ.get("AZURE_OPENAI_ENDPOINT")
    if base is None and azure_endpoint and provider in (None, AZURE):
        only_azure = not environ.get("OPENAI_API_KEY") and environ.get("AZURE_OPENAI_API_KEY")
        if provider == AZURE or only_azure:
            base, provider = azure_endpoint, AZURE
    version = environ.get("OPENAI_API_VERSION") or environ.get("AZURE_OPENAI_API_VERSION")
    endpoint = endpoint_for(base, provider, api_version=version)
    key = environ.get("OPENAI_API_KEY", "")
    if endpoint.provider == AZURE:
        key = environ.get("AZURE_OPENAI_API_KEY") or key
    return LiveTarget(endpoint, key, azure_key_set=bool(environ.get("AZURE_OPENAI_API_KEY")))


def check_url(url: str, named: str) -> None:
    """An EndpointError naming where `url` came from when it cannot be connected to
    (`http://[::1` or a port past 65535 reached the SDK: an internal error, exit 3)."""
    from mcptui.model.urlsafe import usable_http_url

    if not usable_http_url(url):
        raise EndpointError(
            f"{named} wants an http(s) URL with a host (and a port up to 65535), such as "
            "https://api.openai.com/v1"
        )


def client_options(endpoint: Endpoint, api_key: str) -> dict[str, Any]:
    return {
        "base_url": endpoint.base_url,
        "api_key": api_key,
        "default_query": endpoint.default_query or None,
    }


def async_client(endpoint: Endpoint, api_key: str, **options: Any) -> AsyncOpenAI:
    """The SDK's async client for `endpoint` (`options`: `max_retries`, `timeout`…)."""
    from openai import AsyncOpenAI

    kind = _key_header_clients()[1] if endpoint.key_header == "api-key" else AsyncOpenAI
    return kind(**client_options(endpoint, api_key), **options)


def sync_client(endpoint: Endpoint, api_key: str, **options: Any) -> OpenAI:
    from openai import OpenAI

    kind = _key_header_clients()[0] if endpoint.key_header == "api-key" else OpenAI
    return kind(**client_options(endpoint, api_key), **options)


def _api_key_header(client: Any) -> dict[str, str]:
    return {"api-key": client.api_key} if client.api_key else {}


@cache
def _key_header_clients() -> tuple[type[OpenAI], type[AsyncOpenAI]]:
    """The SDK's clients signing with `api-key: KEY` instead of `Authorization: Bearer KEY`:
    the two hooks openai-python's own `AzureOpenAI` overrides (`_auth_headers`,
    `_validate_headers`), without its `api-version` that the v1 API does not need."""
    from openai import AsyncOpenAI, OpenAI

    class KeyHeader(OpenAI):
        def _auth_headers(self, security: Any) -> dict[str, str]:
            return _api_key_header(self)

        def _validate_headers(self, headers: Any, custom_headers: Any) -> None:
            return None

    class AsyncKeyHeader(AsyncOpenAI):
        def _auth_headers(self, security: Any) -> dict[str, str]:
            return _api_key_header(self)

        def _validate_headers(self, headers: Any, custom_headers: Any) -> None:
            return None

    return KeyHeader, AsyncKeyHeader
