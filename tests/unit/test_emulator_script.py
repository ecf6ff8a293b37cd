"""The emulator's scripted model: `call` lines make calls, `wait S` lines make it think."""

from __future__ import annotations

from mcptui.emulator.script import PlannedCall, default_arguments, planned_calls


def test_wait_lines_pause_before_the_next_call_only() -> None:
    text = 'look\nwait 1.5\nwait 2s\ncall echo {"text": "a"}\ncall echo {}\nwait 3'
    assert planned_calls(text) == [
        PlannedCall("echo", '{"text":"a"}', 3.5),
        PlannedCall("echo", "{}", 0.0),
    ]


def test_a_wait_that_is_no_number_is_just_text() -> None:
    assert planned_calls("wait a moment\ncall echo {}") == [PlannedCall("echo", "{}", 0.0)]


def test_a_required_property_whose_type_is_no_type_name_gets_null_arguments() -> None:
    """A server's schema with an object (or a list of them) for `type` once crashed the
    emulator's model (TypeError: unhashable type: 'dict') instead of passing null."""
    schema = {
        "required": ["q", "n", "r"],
        "properties": {
            "q": {"type": {"$ref": "#/defs/Query"}},
            "n": {"type": ["null", {"const": 1}]},
            "r": {"type": ["null", "integer"], "minimum": 3},
        },
    }
    assert default_arguments(schema, "") == {"q": None, "n": None, "r": 3}
