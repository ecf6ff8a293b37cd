"""One line per measured figure, the same from every bench: bench/all.py collects them.

`FIGURE<TAB>name<TAB>value<TAB>unit<TAB>goal<TAB>verdict`, where goal is text such as
`<= 2.5 x` (empty for information) and verdict PASS, FAIL or info.
"""

from __future__ import annotations

import sys

PREFIX = "FIGURE"


def figure(
    name: str, value: float, unit: str, goal: float | None, *, at_least: bool = False
) -> bool:
    """Print a figure against its goal (at most `goal`, or with `at_least` at least it); None
    for information. True unless a goal is missed."""
    if goal is None:
        goal_text, verdict, ok = "", "info", True
    else:
        ok = value >= goal if at_least else value <= goal
        goal_text = f"{'>=' if at_least else '<='} {goal:g} {unit}"
        verdict = "PASS" if ok else "FAIL"
    print(f"{PREFIX}\t{name}\t{value:.4g}\t{unit}\t{goal_text}\t{verdict}", file=sys.stdout)
    sys.stdout.flush()
    return ok
