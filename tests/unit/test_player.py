"""The play state the header shows: true to what playback is doing."""

from __future__ import annotations

from mcptui.model.player import Player


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


def test_stream_times_count_from_the_first_timed_event_and_never_go_back():
    """What the header's clock shows at each step, whatever pieces a recording is read in:
    the time since the first timed event, held when a later event says earlier, and an
    untimed event `UNTIMED_GAP` after the step before."""
    import random

    from mcptui.model.events import Event
    from mcptui.model.player import UNTIMED_GAP

    rng = random.Random(5)
    for _ in range(300):
        times = [
            None if rng.random() < 0.2 else rng.choice([1.0, 2.0]) + rng.random()
            for _ in range(rng.randrange(1, 40))
        ]
        if rng.random() < 0.5:
            times = [t for t in times if t is not None] or [3.0]  # all timed: a recording
            if rng.random() < 0.6:  # in order, as most are: in two runs, the second earlier
                cut = rng.randrange(len(times) + 1)
                times = sorted(times[:cut]) + sorted(times[cut:])
        events = [Event({"type": "x"}, t=t) for t in times]
        player = Player()
        read = 0
        while read < len(events):
            read += rng.randrange(1, 9)
            player.extend(events[:read])
        expected: list[float] = []
        zero = next((t for t in times if t is not None), None)
        for t in times:
            if t is None:
                expected.append(expected[-1] + UNTIMED_GAP if expected else 0.0)
            else:
                expected.append(max([t - zero, *expected[-1:]]))
        assert [player.stream_time(step) for step in range(1, len(events) + 1)] == expected
