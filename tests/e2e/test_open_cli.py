"""`mcptui open RESP_ID` as a user runs it, against the emulator: a stored response opens
like a recording (its failure and likely cause), an unknown id and one made with
`"store": false` say "no such response" and exit 2, and the emulator's
`GET /responses/{id}/input_items` answers the openai SDK as the API does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _e2e_support import Servers, calls
from mcptui.sources.stored import fetch_stored
from openai import NotFoundError, OpenAI
from test_run_cli import run_cli


def made(client: OpenAI, servers: Servers, **fields: object) -> str:
    """A finished response's id: one good call and the classic 424."""
    response = client.responses.create(
        model="gpt-5-mini",
        input=calls(
            "look it up", ("search", {"query": "retry policy"}), ("broken_schema", {"query": "x"})
        ),
        tools=[servers.tool()],  # type: ignore[list-item]
        **fields,  # type: ignore[arg-type]
    )
    return response.id


def test_a_stored_response_opens_with_its_failure_and_cause(
    client: OpenAI, servers: Servers, tmp_path: Path
):
    response_id = made(client, servers)
    done = run_cli(["open", response_id, "--base-url", servers.emulator, "--no-tui"], tmp_path)
    assert done.returncode == 1, done.stderr  # it holds a failure
    shown = done.stdout
    assert f"GET {servers.emulator}/responses/{response_id}" in shown
    assert "✗ mcp_call broken_schema" in shown and "http_error 424" in shown
    assert "possible cause: Output schema without structuredContent" in shown

    as_json = run_cli(["open", response_id, "--base-url", servers.emulator, "--json"], tmp_path)
    report = json.loads(as_json.stdout)
    assert as_json.returncode == 1
    assert [f["format"] for f in report["files"]] == ["stored Response"]
    assert [r["id"] for r in report["responses"]] == [response_id]
    assert "broken_schema" in json.dumps(report["responses"])


def test_the_request_is_put_back_together_from_the_input_items(client, servers: Servers):
    response_id = made(client, servers, instructions="Be brief.", metadata={"case": "42"})
    loaded = fetch_stored(response_id, servers.emulator, "sk-test-key")
    request = loaded.header["request"] if loaded.header else {}
    assert loaded.header is not None and loaded.header["source"]["reconstructed"] is True
    assert request["model"].startswith("gpt-5-mini")  # as the response names it
    assert request["instructions"] == "Be brief."
    assert request["metadata"]["case"] == "42"
    assert request["tools"][0]["server_label"] == "demo"
    (message,) = request["input"]
    assert message["role"] == "user" and message["content"][0]["text"].startswith("look it up")
    assert "id" not in message  # what the API added is not part of a request


def test_an_unknown_id_and_a_response_not_stored_say_so_and_exit_2(
    client: OpenAI, servers: Servers, tmp_path: Path
):
    not_kept = made(client, servers, store=False)
    for response_id in ("resp_0000000000000000000000000000", not_kept):
        done = run_cli(["open", response_id, "--base-url", servers.emulator, "--no-tui"], tmp_path)
        assert done.returncode == 2
        assert f"mcptui: no such response: {response_id} is not stored" in done.stderr
        assert '"store": false is never kept' in done.stderr
    with pytest.raises(NotFoundError):
        client.responses.retrieve(not_kept)


def test_what_is_not_an_id_or_has_no_key_is_refused_before_any_request(tmp_path: Path):
    done = run_cli(["open", "recording.jsonl", "--no-tui"], tmp_path)
    assert done.returncode == 2
    assert "'recording.jsonl' is not a response id (resp_…)" in done.stderr
    env = {"PATH": "/usr/bin:/bin"}
    done = run_cli(["open", "resp_abc", "--no-tui"], tmp_path, env=env)
    assert done.returncode == 2 and "OPENAI_API_KEY is not set" in done.stderr


def test_the_emulator_pages_input_items_as_the_api_does(client: OpenAI, servers: Servers):
    response = client.responses.create(
        model="gpt-5-mini",
        input=[
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "second"},
            {"role": "user", "content": "third"},
        ],
    )
    newest_first = client.responses.input_items.list(response.id)
    texts = [item.content[0].text for item in newest_first.data]  # type: ignore[union-attr]
    assert texts == ["third", "second", "first"]
    page = client.responses.input_items.list(response.id, order="asc", limit=2)
    assert [item.content[0].text for item in page.data] == ["first", "second"]  # type: ignore[union-attr]
    assert page.has_more
    rest = client.responses.input_items.list(response.id, order="asc", after=page.data[-1].id)
    assert [item.content[0].text for item in rest.data] == ["third"]  # type: ignore[union-attr]
    assert not rest.has_more
