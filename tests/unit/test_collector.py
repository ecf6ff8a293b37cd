"""The collector pacer (tui/mcptui/ui/gc_pacing.py): while an inspector screen is shown the
collector's older passes wait until the user stops stepping, then run."""

from __future__ import annotations

import gc

from mcptui.ui.gc_pacing import IDLE_SECONDS, MIN_GAP_SECONDS, NEVER, CollectorPacer


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_holding_keeps_the_older_passes_from_running_and_release_restores_them():
    before = gc.get_threshold()
    pacer = CollectorPacer(Clock())
    pacer.hold()
    try:
        assert gc.get_threshold() == (before[0], NEVER, NEVER)
        for _ in range(before[1] + 2):  # more young passes than would start a middle one
            gc.collect(0)
        assert gc.get_count()[1] >= before[1]  # the middle pass did not run by itself
    finally:
        pacer.release()
    assert gc.get_threshold() == before


def test_the_held_back_pass_runs_once_the_user_has_paused():
    clock = Clock()
    pacer = CollectorPacer(clock)
    middle_after = gc.get_threshold()[1]  # what hold() saves and the pacer goes by
    pacer.hold()
    try:
        for _ in range(middle_after + 1):
            gc.collect(0)
        pacer.stepped()
        clock.now += IDLE_SECONDS / 2
        pacer.check()  # still stepping: nothing runs
        assert gc.get_count()[1] > middle_after
        clock.now += IDLE_SECONDS + MIN_GAP_SECONDS
        pacer.check()
        assert gc.get_count()[1] == 0  # the middle pass ran
        assert pacer.last_pass == clock.now
    finally:
        pacer.release()
