"""The play state the header shows: true to what playback is doing."""

from __future__ import annotations

from tui.model.player import Player


def test_the_last_step_is_done_whatever_the_mode():
    assert Player(instant=True).state(at_end=True) == "done"
    playing = Player(speed=2.0)
    playing.play(0, now=0.0)
    assert playing.state(at_end=True) == "done"


def test_playing_names_its_speed_and_paused_instant_is_just_paused():
    player = Player(speed=2.0)
    assert player.state(at_end=False) == "paused 2x"
    player.play(0, now=0.0)
    assert player.state(at_end=False) == "playing 2x"
    instant = Player(instant=True)
    instant.play(0, now=0.0)
    assert instant.state(at_end=False) == "playing instant"
    instant.pause()
    assert instant.state(at_end=False) == "paused"
