"""Providers: which server a base URL names, the URL and signing its requests get, and how a
stream's findings and labels name it (tui/mcptui/model/providers.py, sources/endpoints.py).

Pure: URLs and environments in, endpoints and findings out; what the SDK then sends is the
e2e tier's (tests/e2e/test_providers_cli.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _support import fold
from mcptui.cli.main import main
from mcptui.io.recording import make_header
from mcptui.model.conformance import check_stream
from mcptui.model.providers import (
    Endpoint,
    EndpointError,
    base_of_endpoint,
    detect_provider,
    endpoint_for,
    stream_provider,
)
from mcptui.model.redaction import redact_text, redact_url
from mcptui.sources.endpoints import live_target
from test_conformance import builder_stream

AZURE_V1 = "https://contoso-eu2.openai.azure.com/openai/v1"
DATED = "2025-04-01-preview"


# -- detection -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "provider"),
    [
        (None, "openai"),
        ("https://api.openai.com/v1", "openai"),
        (f"{AZURE_V1}?api-version=preview", "azure"),
        ("https://contoso.cognitiveservices.azure.com/openai/v1/", "azure"),
        ("https://proj.services.ai.azure.com/openai/v1", "azure"),
        ("http://localhost:11434/v1", "ollama"),
        ("http://gpu-box:11434/v1", "ollama"),
        ("https://openrouter.ai/api/v1", "openrouter"),
        ("http://0.0.0.0:4000", "litellm"),
        ("http://localhost:8321/v1/openai/v1", "llama-stack"),
        ("http://vllm.internal:8000/v1", "vllm"),
        ("http://127.0.0.1:8787/v1", "unknown"),
        ("http://127.0.0.1:8000/v1", "unknown"),
        ("not a url", "unknown"),
        ("http://[::1/v1", "unknown"),
    ],
)
def test_the_base_url_names_the_provider(url: str | None, provider: str) -> None:
    assert detect_provider(url) == provider


def test_a_named_provider_wins_over_the_url() -> None:
    assert endpoint_for("http://127.0.0.1:8000/v1", "vllm").provider == "vllm"
    assert endpoint_for("http://127.0.0.1:8000/v1").provider == "unknown"


# -- the URL requests go to ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "base", "query"),
    [
        (f"{AZURE_V1}?api-version=preview", AZURE_V1, "api-version=preview"),
        (f"{AZURE_V1}/?api-version=preview", AZURE_V1, "api-version=preview"),
        (f"{AZURE_V1}/responses?api-version=preview", AZURE_V1, "api-version=preview"),
        (f"{AZURE_V1}/", AZURE_V1, ""),
        (
            f"https://contoso.openai.azure.com/openai/responses?api-version={DATED}",
            "https://contoso.openai.azure.com/openai",
            f"api-version={DATED}",
        ),
        ("https://contoso.openai.azure.com", "https://contoso.openai.azure.com/openai/v1", ""),
    ],
)
def test_an_azure_url_keeps_its_api_version_apart_from_the_path(
    url: str, base: str, query: str
) -> None:
    endpoint = endpoint_for(url)
    assert (endpoint.base_url, endpoint.query, endpoint.provider) == (base, query, "azure")
    assert endpoint.key_header == "api-key"
    # The recorded endpoint: the path first, then the version, as Azure documents it.
    assert endpoint.responses_url == base + "/responses" + (f"?{query}" if query else "")


def test_any_base_url_query_goes_after_the_path() -> None:
    endpoint = endpoint_for("http://127.0.0.1:9/v1?tenant=a&x=1")
    assert endpoint.base_url == "http://127.0.0.1:9/v1"
    assert endpoint.default_query == {"tenant": "a", "x": "1"}
    assert endpoint.responses_url == "http://127.0.0.1:9/v1/responses?tenant=a&x=1"
    assert endpoint.key_header == "authorization"


def test_openai_python_s_api_version_variable_picks_the_azure_route() -> None:
    bare = "https://contoso.openai.azure.com/"
    dated = endpoint_for(bare, api_version=DATED)
    assert dated.responses_url == (
        f"https://contoso.openai.azure.com/openai/responses?api-version={DATED}"
    )
    preview = endpoint_for(bare, api_version="preview")
    assert preview.responses_url == f"{AZURE_V1.replace('contoso-eu2', 'contoso')}/responses?" + (
        "api-version=preview"
    )
    # The URL's own version wins; a dated one is not added to the v1 API, which refuses it.
    assert endpoint_for(f"{AZURE_V1}?api-version=preview", api_version=DATED).query == (
        "api-version=preview"
    )
    assert endpoint_for(AZURE_V1, api_version=DATED).query == ""


def test_the_dated_azure_route_without_a_version_is_refused_with_what_to_do() -> None:
    with pytest.raises(EndpointError, match=r"needs an api-version: add \?api-version="):
        endpoint_for("https://contoso.openai.azure.com/openai/responses")
    with pytest.raises(EndpointError, match="AZURE_OPENAI_ENDPOINT"):
        endpoint_for(None, "azure")


def test_a_recorded_endpoint_gives_back_its_base_url_with_the_query() -> None:
    assert base_of_endpoint(f"{AZURE_V1}/responses?api-version=preview") == (
        f"{AZURE_V1}?api-version=preview"
    )
    assert base_of_endpoint("https://api.openai.com/v1/responses") == "https://api.openai.com/v1"
    assert base_of_endpoint("https://x/s/<redacted>/v1/responses") is None
    assert endpoint_for(
        base_of_endpoint(endpoint_for(f"{AZURE_V1}?api-version=preview").responses_url)
    ) == Endpoint(AZURE_V1, "api-version=preview", "azure")


# -- the environment --------------------------------------------------------------------------


def test_azure_s_variables_give_the_endpoint_and_key() -> None:
    env = {
        "AZURE_OPENAI_ENDPOINT": "https://contoso.openai.azure.com",
        "AZURE_OPENAI_API_KEY": "k1",
    }
    target = live_target(None, None, env)
    assert target.endpoint.provider == "azure" and target.api_key == "k1"
    assert target.endpoint.responses_url == "https://contoso.openai.azure.com/openai/v1/responses"
    dated = live_target(None, None, {**env, "OPENAI_API_VERSION": DATED})
    assert dated.endpoint.query == f"api-version={DATED}"


def test_an_openai_key_keeps_openai_unless_azure_is_named() -> None:
    env = {
        "AZURE_OPENAI_ENDPOINT": "https://contoso.openai.azure.com",
        "AZURE_OPENAI_API_KEY": "azure-key",
        "OPENAI_API_KEY": "openai-key",
    }
    assert live_target(None, None, env).endpoint == Endpoint(None, "", "openai")
    assert live_target(None, None, env).api_key == "openai-key"
    named = live_target(None, "azure", env)
    assert named.endpoint.base_url == "https://contoso.openai.azure.com/openai/v1"
    assert named.api_key == "azure-key"
    # An Azure URL on the command line takes Azure's key; OPENAI_API_KEY when it is the only one.
    assert live_target(AZURE_V1, None, env).api_key == "azure-key"
    assert live_target(AZURE_V1, None, {"OPENAI_API_KEY": "only"}).api_key == "only"


def test_a_missing_key_names_the_variable_to_set() -> None:
    assert live_target(AZURE_V1, None, {}).missing == (
        "AZURE_OPENAI_API_KEY (or OPENAI_API_KEY) is not set"
    )
    assert live_target(None, None, {}).missing == "OPENAI_API_KEY is not set"
    assert live_target(None, None, {"OPENAI_API_KEY": "k"}).missing is None
    proxied = live_target("http://127.0.0.1:8080/openai/v1", None, {"AZURE_OPENAI_API_KEY": "a"})
    assert proxied.missing == (
        "OPENAI_API_KEY is not set (AZURE_OPENAI_API_KEY is: add --provider azure)"
    )


# -- redaction: a version is shown, a credential is not ------------------------------------------


def test_api_version_is_never_redacted_while_url_credentials_are() -> None:
    url = f"{AZURE_V1}/responses?api-version={DATED}&sig=Zx9k2LmQ8vR4tY7wAb&api-key=k8Xw2pQz77"
    for shown in (redact_url(url, strict=True), redact_text(url, strict_urls=True)):
        assert f"api-version={DATED}" in shown
        assert "Zx9k2LmQ8vR4tY7wAb" not in shown and "k8Xw2pQz77" not in shown
    header = make_header("live", endpoint=url, provider="azure", secrets=["sk-az-123456789012"])
    assert f"api-version={DATED}" in header["endpoint"]
    assert header["provider"] == "azure"


# -- findings and labels name the provider ---------------------------------------------------


def drifted() -> list[dict[str, Any]]:
    raws = builder_stream()
    delta = next(r for r in raws if r["type"] == "response.output_text.delta")
    del delta["logprobs"]  # Ollama and older servers omit it; the SDK requires it
    delta["x_backend"] = "llama.cpp"
    return raws


def test_sdk_shape_drift_from_a_named_provider_says_it_is_that_provider_s() -> None:
    timeline = fold(drifted())
    plain = check_stream(timeline.events, timeline.state)
    named = check_stream(timeline.events, timeline.state, provider="ollama")
    [drift] = [f for f in plain if f.code == "sdk_drift"]
    assert drift.message.endswith("older and newer API versions differ")
    [theirs] = [f for f in named if f.code == "sdk_drift"]
    assert theirs.message.startswith("ollama differs from the openai SDK: the installed SDK")
    assert "logprobs" in theirs.message and "API versions" not in theirs.message
    [extra] = [f for f in named if f.code == "extra_field"]
    assert extra.message.startswith("ollama differs from the openai SDK: 'x_backend'")
    for provider in (None, "openai", "unknown"):
        assert check_stream(timeline.events, timeline.state, provider=provider) == plain


def test_protocol_faults_are_not_put_on_the_provider() -> None:
    raws = builder_stream()
    del raws[3]  # a sequence gap: broken whoever sent it
    timeline = fold(raws)
    [gap] = [
        f
        for f in check_stream(timeline.events, timeline.state, provider="azure")
        if f.code == "sequence_gap"
    ]
    assert "differs from the openai SDK" not in gap.message


def test_a_header_names_its_provider_else_its_endpoint_does() -> None:
    assert stream_provider({"provider": "vllm"}) == "vllm"
    assert stream_provider({"endpoint": f"{AZURE_V1}/responses?api-version=preview"}) == "azure"
    assert stream_provider({"endpoint": "https://api.openai.com/v1/responses"}) == "openai"
    assert stream_provider({"endpoint": "http://127.0.0.1:8787/v1/responses"}) is None
    assert stream_provider({"endpoint": "http://localhost:11434/mcp"}) is None  # a tap's
    assert stream_provider(None) is None


def write_recording(tmp_path: Path, provider: str | None) -> Path:
    header = make_header("live", endpoint="http://127.0.0.1:9/v1/responses", provider=provider)
    lines = [json.dumps(header)] + [
        json.dumps({"t": 0.01 * n, "event": raw}) for n, raw in enumerate(drifted())
    ]
    path = tmp_path / f"{provider}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_inspect_shows_whose_stream_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    main(["inspect", str(write_recording(tmp_path, "ollama"))])
    out = capsys.readouterr().out
    assert "mcptui recording · " in out and " · via ollama" in out.splitlines()[0]
    assert "ollama differs from the openai SDK: the installed SDK" in out
    main(["inspect", "--json", str(write_recording(tmp_path, "ollama"))])
    assert json.loads(capsys.readouterr().out)["files"][0]["provider"] == "ollama"
    main(["inspect", str(write_recording(tmp_path, "openai"))])
    out = capsys.readouterr().out
    assert "via" not in out.splitlines()[0] and "differs from the openai SDK" not in out


# -- export: the script an Azure recording gives signs and routes as Azure wants ----------------


def test_an_azure_recording_exports_to_its_route_with_the_api_key_header() -> None:
    from mcptui.share.export import header_texts

    request = {"model": "gpt-5-mini", "input": "hi", "stream": True}
    dated = f"https://contoso.openai.azure.com/openai/responses?api-version={DATED}"
    texts = header_texts(make_header("live", request=request, endpoint=dated, provider="azure"))
    assert texts is not None
    curl = texts["curl"]
    assert f'contoso.openai.azure.com/openai}}/responses?api-version={DATED}"' in curl
    assert '-H "api-key: $AZURE_OPENAI_API_KEY"' in curl and "Bearer" not in curl
    assert "need AZURE_OPENAI_API_KEY" in curl and "need OPENAI_API_KEY" not in curl
    python = texts["python"]
    assert "from openai import AzureOpenAI" in python
    assert f'api_version="{DATED}", api_key=os.environ["AZURE_OPENAI_API_KEY"])' in python

    v1 = header_texts(
        make_header("live", request=request, endpoint=f"{AZURE_V1}/responses", provider="azure")
    )
    assert v1 is not None and "from openai import OpenAI" in v1["python"]
    assert 'api_key=os.environ["AZURE_OPENAI_API_KEY"])' in v1["python"]
    assert '/openai/v1}/responses" \\' in v1["curl"]


def test_another_server_s_query_is_exported_after_the_path() -> None:
    from mcptui.share.export import header_texts

    request = {"model": "m", "input": "hi"}
    endpoint = "http://127.0.0.1:9/v1/responses?tenant=a"
    texts = header_texts(make_header("live", request=request, endpoint=endpoint))
    assert texts is not None
    assert '127.0.0.1:9/v1}/responses?tenant=a"' in texts["curl"]
    assert '"Authorization: Bearer $OPENAI_API_KEY"' in texts["curl"]
    python = texts["python"]
    assert "default_query={" in python and '"tenant": "a"' in python
    # A query value that was redacted is not sent back as `<redacted>`.
    hidden = header_texts(
        make_header("live", request=request, endpoint=f"{endpoint}&sig=<redacted>")
    )
    assert hidden is not None and "sig=" not in hidden["curl"]


def test_a_request_file_export_says_how_to_run_it_against_azure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = make_header(
        "live",
        request={"model": "m", "input": "hi"},
        endpoint="http://127.0.0.1:9/openai/v1/responses?api-version=preview",
        provider="azure",
    )
    recording = tmp_path / "rec.jsonl"
    recording.write_text(json.dumps(header) + "\n")
    assert main(["export", str(recording), "-o", str(tmp_path / "req.json")]) == 0
    said = capsys.readouterr().err
    assert "--provider azure --base-url 'http://127.0.0.1:9/openai/v1?api-version=preview'" in said


def test_the_provider_survives_a_key_that_is_its_name() -> None:
    """Ollama's docs use `api_key="ollama"`: the key is hidden wherever it is echoed, but the
    provider field is ours and keeps its name."""
    header = make_header(
        "live",
        request={"model": "m", "input": "ask ollama"},
        endpoint="http://localhost:11434/v1/responses",
        provider="ollama",
        secrets=["ollama"],
    )
    assert header["provider"] == "ollama" and stream_provider(header) == "ollama"
    assert "ollama" not in json.dumps(header["request"])


def test_a_provider_name_not_ours_is_not_shown() -> None:
    assert stream_provider({"provider": "<redacted>"}) is None
    assert stream_provider({"provider": "\x1b[31mevil", "endpoint": f"{AZURE_V1}/responses"}) == (
        "azure"
    )
