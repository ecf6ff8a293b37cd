"""The emulator's scripted model: `call` lines make calls, `wait S` lines make it think."""

from __future__ import annotations

from mcptui.emulator.script import PlannedCall, planned_calls


def test_wait_lines_pause_before_the_next_call_only() -> None:
    text = 'look\nwait 1.5\nwait 2s\ncall echo {"text": "a"}\ncall echo {}\nwait 3'
    assert planned_calls(text) == [
        PlannedCall("echo", '{"text":"a"}', 3.5),
        PlannedCall("echo", "{}", 0.0),
    ]


def test_a_wait_that_is_no_number_is_just_text() -> None:
    assert planned_calls("wait a moment\ncall echo {}") == [PlannedCall("echo", "{}", 0.0)]
