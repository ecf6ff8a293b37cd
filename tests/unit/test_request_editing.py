"""The pieces of edit and re-send (`e`) that are not the screen: the check as you type
(model/request_check.py), the toggles (model/request_toggles.py), the hidden secrets
(share/editable_request.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcptui.model.request_check import check_request_text
from mcptui.model.request_toggles import flip, toggles
from mcptui.share.editable_request import UnsetVariable, editable_request, request_to_send

REQUESTS = Path(__file__).parents[2] / "requests"

MCP = {
    "type": "mcp",
    "server_label": "files",
    "server_url": "https://files.example.com/mcp?token=sk-live-abcdefghijklmnop1234",
    "headers": {"Authorization": "Bearer abcdef123456ghijklmnop", "X-Team": "blue"},
    "require_approval": "never",
}
SENT = {"model": "gpt-5", "input": "find it", "tools": [MCP], "stream": True}
SECRETS = ("sk-live-abcdefghijklmnop1234", "Bearer abcdef123456ghijklmnop", "blue")


def problems(request: object) -> list[str]:
    text = request if isinstance(request, str) else json.dumps(request)
    return [p.text() for p in check_request_text(text).problems]


@pytest.mark.parametrize("path", sorted(REQUESTS.glob("*.json")), ids=lambda p: p.name)
def test_the_shipped_requests_are_valid(path: Path) -> None:
    assert check_request_text(path.read_text()).sendable


def test_text_that_is_not_json_says_where() -> None:
    assert problems('{"model": "x",\n  "input": }') == [
        "line 2, column 12: not JSON: Expecting value"
    ]
    assert problems("[1, 2]") == ["a request is a JSON object, not list"]


def test_wrong_types_are_named_by_path_against_the_sdk() -> None:
    request = {
        **SENT,
        "background": "yes",  # pydantic would take it for true unless strict
        "max_output_tokens": "12",
        "tools": [{**MCP, "require_approval": "sometimes", "allowed_tools": "search"}],
    }
    found = problems(request)
    assert "background: input should be a valid boolean" in found
    assert "max_output_tokens: input should be a valid integer" in found
    approval = next(p for p in found if p.startswith("tools[0].require_approval: "))
    assert "'always' or 'never'" in approval
    assert any(p.startswith("tools[0].allowed_tools: ") for p in found)
    # The mcp tool is checked as one: not also "a function tool lacks its name".
    assert not any(p.startswith("tools[0].name") for p in found)


def test_a_tool_or_an_input_item_is_checked_as_the_type_it_says_it_is() -> None:
    found = problems({**SENT, "tools": [{"type": "mcp"}, {"type": "nonsense"}]})
    assert found == [
        "tools[0].server_label: missing: this type needs it",
        "tools[1].type: no type the SDK knows here is 'nonsense'",
    ]
    found = problems({**SENT, "input": [{"role": "user", "content": [{"type": "input_text"}]}]})
    assert found == ["input[0].content[0].text: missing: this type needs it"]


def test_an_unknown_top_level_key_is_a_warning_not_an_error() -> None:
    check = check_request_text(json.dumps({**SENT, "backgroud": True}))
    assert check.sendable
    assert [(p.path, p.error) for p in check.problems] == [("backgroud", False)]


def test_the_editor_never_holds_a_secret_and_sending_puts_each_back() -> None:
    editable = editable_request(SENT)
    for secret in SECRETS:
        assert secret not in editable.text
        assert secret not in json.dumps(editable.meanings)
    shown = json.loads(editable.text)
    assert shown["tools"][0]["headers"] == {
        "Authorization": "${FILES_AUTHORIZATION}",
        "X-Team": "${FILES_X_TEAM}",
    }
    assert request_to_send(shown, editable.kept, env={}) == SENT


def test_a_placeholder_typed_in_is_read_from_the_environment_and_a_missing_one_named() -> None:
    editable = editable_request(SENT)
    shown = json.loads(editable.text)
    shown["input"] = "find ${WHAT}"
    sent = request_to_send(shown, editable.kept, env={"WHAT": "the budget"})
    assert sent["input"] == "find the budget"
    with pytest.raises(UnsetVariable, match=r"\$\{WHAT\} \(in input\) is not set"):
        request_to_send(shown, editable.kept, env={})


def test_text_like_a_placeholder_in_the_request_as_sent_stays_that_text() -> None:
    sent = {**SENT, "input": "what does ${HOME} mean in bash?"}
    editable = editable_request(sent)
    assert request_to_send(json.loads(editable.text), editable.kept, env={"HOME": "/x"}) == sent


def switched(request: dict, key: str, listed: dict, original: dict | None = None) -> dict:
    return flip(request, key, listed, original)


def test_toggles_flip_background_stream_approval_and_each_tool() -> None:
    listed = {"files": ["search_files", "broken_schema"]}
    request = json.loads(editable_request(SENT).text)
    keys = {t.key: t.on for t in toggles(request, listed, request)}
    assert keys == {
        "background": False,
        "approval:0": True,
        "tool:0:search_files": True,
        "tool:0:broken_schema": True,
        "header:0:Authorization": True,
        "header:0:X-Team": True,
    }
    narrowed = switched(request, "tool:0:broken_schema", listed)
    assert narrowed["tools"][0]["allowed_tools"] == ["search_files"]
    assert switched(narrowed, "tool:0:broken_schema", listed)["tools"][0]["allowed_tools"] == [
        "search_files",
        "broken_schema",
    ]
    background = switched(request, "background", listed)
    assert background["background"] is True
    assert {t.key: t.on for t in toggles(background, listed)}["stream"] is True  # now it applies
    assert switched(background, "stream", listed)["stream"] is False
    assert switched(request, "approval:0", listed)["tools"][0]["require_approval"] == "always"
    assert request["tools"][0].get("allowed_tools") is None  # a copy is changed


def test_a_header_switched_off_comes_back_with_its_hidden_value() -> None:
    original = json.loads(editable_request(SENT).text)
    off = switched(original, "header:0:Authorization", {}, original)
    assert "Authorization" not in off["tools"][0]["headers"]
    assert {t.key: t.on for t in toggles(off, {}, original)}["header:0:Authorization"] is False
    on = switched(off, "header:0:Authorization", {}, original)
    assert on["tools"][0]["headers"]["Authorization"] == "${FILES_AUTHORIZATION}"


def test_a_tool_filter_object_keeps_its_shape() -> None:
    request = {**SENT, "tools": [{**MCP, "allowed_tools": {"tool_names": ["a", "b"]}}]}
    changed = switched(request, "tool:0:a", {"files": ["a", "b"]})
    assert changed["tools"][0]["allowed_tools"] == {"tool_names": ["b"]}


def test_json_nested_past_what_the_later_steps_can_walk_is_refused_with_its_place():
    text = '{"model": "x", "input": ' + "[" * 5000 + "]" * 5000 + "}"
    check = check_request_text(text)  # json.loads would raise RecursionError here
    assert check.request is None
    (problem,) = check.problems
    assert "nested more than 100 levels deep" in problem.text()
    assert problem.line == 1
