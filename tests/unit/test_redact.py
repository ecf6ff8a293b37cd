"""tui.redact: credential values go, names and structure stay, everything else is untouched."""

from __future__ import annotations

import copy

from tui.io.recording import event_line
from tui.model.events import Event
from tui.redact import REDACTED, needs_redaction, redact, redact_headers, redact_text


def test_mcp_tool_headers_and_authorization_are_hidden_names_kept():
    request = {
        "model": "gpt-5",
        "tools": [
            {"type": "mcp", "server_label": "gh", "server_url": "https://mcp.example/mcp",
             "headers": {"X-Token-Of-Sorts": "abc", "Cookie": "sid=1",
                         "X-Nested": {"inner": "zzz"}},
             "authorization": "oauth-abcdef",
             "allowed_tools": ["search"], "require_approval": "never"},
        ],
    }
    original = copy.deepcopy(request)

    out = redact(request)

    assert out == {
        "model": "gpt-5",
        "tools": [
            {"type": "mcp", "server_label": "gh", "server_url": "https://mcp.example/mcp",
             "headers": {"X-Token-Of-Sorts": REDACTED, "Cookie": REDACTED,
                         "X-Nested": {"inner": REDACTED}},
             "authorization": REDACTED,
             "allowed_tools": ["search"], "require_approval": "never"},
        ],
    }
    assert request == original  # a copy: the input is not changed


def test_credential_keys_at_any_depth_any_case():
    value = {"a": [{"b": {"API_KEY": "k1", "Authorization": "Basic dXNlcjpwYXNz",
                          "client_secret": "s", "Password": "p", "count": 3}}]}
    assert redact(value) == {"a": [{"b": {"API_KEY": REDACTED, "Authorization": REDACTED,
                                          "client_secret": REDACTED, "Password": REDACTED,
                                          "count": 3}}]}


def test_absent_credentials_stay_absent():
    # None means nothing was sent; showing <redacted> would claim otherwise.
    assert redact({"headers": None, "authorization": None}) == {"headers": None,
                                                                "authorization": None}
    assert redact({"headers": {"X-A": None}}) == {"headers": {"X-A": None}}


def test_key_like_and_bearer_strings_anywhere():
    value = {"message": "Incorrect API key provided: sk-proj-abcdEFGH1234_-xy.",
             "log": ["sent Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def"]}
    assert redact(value) == {"message": f"Incorrect API key provided: {REDACTED}.",
                             "log": [f"sent Authorization: Bearer {REDACTED}"]}


def test_redact_text():
    assert redact_text("key sk-abcdefgh12345678 end") == f"key {REDACTED} end"
    assert redact_text("bearer abcdefgh1234") == f"bearer {REDACTED}"
    assert redact_text("nothing to see") == "nothing to see"
    assert redact_text("sk-short") == "sk-short"  # too short to be a key


def test_non_credentials_are_untouched():
    value = {"type": "response.output_text.delta", "sequence_number": 4, "delta": "Hello",
             "usage": {"input_tokens": 10, "output_tokens": 2}, "flag": True, "x": None,
             "list": [1, 2.5, "three"]}
    assert redact(value) == value


def test_redact_headers():
    headers = {"Authorization": "Bearer sk-abcdefghijkl", "X-API-Key": "k",
               "set-cookie": "a=b", "content-type": "text/event-stream",
               "x-note": "retry with Bearer abcdefghijkl"}
    assert redact_headers(headers) == {
        "Authorization": REDACTED, "X-API-Key": REDACTED, "set-cookie": REDACTED,
        "content-type": "text/event-stream", "x-note": f"retry with Bearer {REDACTED}"}


def test_needs_redaction_precheck_agrees_with_redact():
    plain = '{"type":"response.output_text.delta","delta":"Hello"}'
    assert not needs_redaction(plain)
    for serialized in ('{"m":"sk-abcdefghijkl"}', '{"headers":{}}', '{"Authorization":"x"}',
                       '{"m":"Bearer abcdefghijkl"}'):
        assert needs_redaction(serialized), serialized


def test_event_line_redacts_only_when_needed():
    clean = Event({"type": "response.output_text.delta", "delta": "Hi ünïcode"}, t=1.5)
    assert event_line(clean) == \
        '{"t":1.5,"event":{"type":"response.output_text.delta","delta":"Hi ünïcode"}}'
    dirty = Event({"type": "error", "message": "bad key sk-abcdefghijkl"})
    assert event_line(dirty) == \
        '{"t":null,"event":{"type":"error","message":"bad key <redacted>"}}'


def test_words_containing_sk_dash_are_not_keys():
    text = "a task-oriented design for risk-adjusted returns"
    assert redact_text(text) == text


def test_ordinary_words_after_basic_or_bearer_are_kept():
    text = "This needs a basic understanding of bearer instruments."
    assert redact_text(text) == text


def test_tool_input_schema_with_a_password_property_is_kept():
    listing = {"type": "mcp_list_tools", "tools": [{"name": "create_short_url", "input_schema": {
        "type": "object",
        "properties": {"password": {"type": "string", "description": "Protects the link"}}}}]}
    assert redact(listing) == listing
