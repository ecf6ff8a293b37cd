"""Request files: `${NAME}` and `${NAME:-default}` from the environment, errors that name them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcptui.sources.request_file import RequestFileError, expand, load_request


def test_expand_takes_the_environment_then_the_default_everywhere_in_strings():
    request = {
        "model": "m",
        "input": "x",
        "tools": [
            {
                "server_url": "${HOST:-http://localhost}/mcp?k=${KEY}",
                "headers": {"Authorization": "Bearer ${TOKEN}"},
                "n": 3,
                "flag": True,
            }
        ],
    }
    out = expand(request, {"KEY": "k1", "TOKEN": "t1"})
    tool = out["tools"][0]
    assert tool["server_url"] == "http://localhost/mcp?k=k1"
    assert tool["headers"]["Authorization"] == "Bearer t1"
    assert (tool["n"], tool["flag"]) == (3, True)
    assert expand({"a": "${EMPTY:-}"}, {}) == {"a": ""}
    assert expand({"a": "${SET:-no}"}, {"SET": ""}) == {"a": ""}  # set, even if empty
    assert request["tools"][0]["headers"]["Authorization"] == "Bearer ${TOKEN}"  # a copy


def test_a_missing_variable_is_named_with_where_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv("NOPE_TOKEN", raising=False)
    path = tmp_path / "r.json"
    path.write_text(
        json.dumps({"model": "m", "input": "x", "tools": [{"authorization": "${NOPE_TOKEN}"}]})
    )
    with pytest.raises(RequestFileError) as raised:
        load_request(path)
    assert str(raised.value) == (
        f"{path}: ${{NOPE_TOKEN}} is not set (in "
        "tools[0].authorization): export it, or write "
        "${NOPE_TOKEN:-default}"
    )
    monkeypatch.setenv("NOPE_TOKEN", "secret")
    assert load_request(path)["tools"][0]["authorization"] == "secret"
