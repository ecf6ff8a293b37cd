"""`f` / `F`: which failure comes next, and when it wraps around (ui/screens/playback.py)."""

from __future__ import annotations

from mcptui.ui.screens.playback import next_stop

STOPS = [4, 9, 15]


def test_forward_goes_to_the_next_failure_after_the_anchor():
    assert next_stop(STOPS, 4, forward=True) == (9, False)
    assert next_stop(STOPS, 3.5, forward=True) == (4, False)


def test_backward_goes_to_the_previous_failure():
    assert next_stop(STOPS, 15, forward=False) == (9, False)
    assert next_stop(STOPS, 9.5, forward=False) == (9, False)


def test_forward_past_the_last_failure_wraps_to_the_first():
    assert next_stop(STOPS, 15, forward=True) == (4, True)


def test_backward_before_the_first_failure_wraps_to_the_last():
    assert next_stop(STOPS, 4, forward=False) == (15, True)
    assert next_stop(STOPS, 0.5, forward=False) == (15, True)


def test_one_failure_is_its_own_next_and_previous():
    assert next_stop([7], 7, forward=True) == (7, True)
    assert next_stop([7], 7, forward=False) == (7, True)
