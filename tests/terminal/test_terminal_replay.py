"""Replays of the shipped recordings in a real terminal: what a person sees and can do.

Why: the failure must be readable on the very first screen at 80x24, and every key in the footer
must work without a traceback in a real pty (the in-process pilot cannot show either).
"""

from __future__ import annotations

import re
import time

import pytest
from _tmux import (
    AT_END,
    RECORDINGS,
    SIZES,
    MakeTerminal,
    Terminal,
    input_box,
    panes,
    shows,
    toast_number,
    toasts,
    tree_error_lines,
    unguided,
)

BROKEN = "mcp-424-broken-schema.jsonl"
TIMEOUT = "mcp-timeout-424.jsonl"
BACKGROUND = "background-failed.jsonl"
SUCCESS = "mcp-success.jsonl"

FAILING = {
    # recording: (tool name, error text, the leading cause's name)
    BROKEN: (
        "search_files",
        "unhandled errors in a TaskGroup",
        "Output schema without structuredContent",
    ),
    TIMEOUT: ("slow_report", "unhandled errors in a TaskGroup", "slower than the time limit"),
    BACKGROUND: ("resp_", "An error occurred while processing", "failed without the MCP error"),
}
CAUSE = {BROKEN: "possible cause", TIMEOUT: "likely cause", BACKGROUND: "likely cause"}
"""How sure the diagnosis is: the broken-schema 424 cannot be told from an invalid content
block by the stream alone (a candidate), the timing singles out the timeout."""


def replay(make: MakeTerminal, name: str, size: tuple[int, int] = (80, 24)) -> Terminal:
    """`mcptui replay <recording> --instant`, waited for until every step is applied."""
    term = make(*size).start("replay", RECORDINGS / name, "--instant")
    term.wait_for(AT_END)
    return term


def body(screen: str) -> str:
    """Everything but the footer (the last non-empty row)."""
    rows = screen.rstrip("\n").splitlines()
    return "\n".join(rows[:-1])


def footer(screen: str) -> str:
    rows = [row for row in screen.splitlines() if row.strip()]
    return rows[-1] if rows else ""


def right(screen: str) -> str:
    """The right pane's text as one flow (wrapped rows joined)."""
    split = panes(screen)
    return " ".join(unguided(row) for row in split[-1][1:-1]) if len(split) > 1 else ""


def never(term: Terminal, pattern: str | re.Pattern[str], seconds: float = 0.8) -> None:
    """`pattern` does not show for `seconds` (a warning toast would appear within that)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        screen = term.screen()
        assert not shows(screen, pattern), f"unexpected {pattern!r} on the screen:\n{screen}"
        time.sleep(0.1)


# -- 1. the first screen ---------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", [BROKEN, TIMEOUT, BACKGROUND])
def test_first_screen_shows_the_failure_its_cause_the_views_and_the_main_keys(
    terminal_factory: MakeTerminal, name: str, size: tuple[int, int]
) -> None:
    """The first screen, then `v` through every view, the footer's main keys, and `q`: one
    app for what a person does first (each once started an app of its own: ~1.2 s of CPU
    each in a real terminal, the terminal tier's main cost)."""
    tool, _error, cause = FAILING[name]
    term = terminal_factory(*size).start("replay", RECORDINGS / name, "--instant")
    wanted: list[str | re.Pattern[str]] = [AT_END, CAUSE[name], cause]
    if name != BACKGROUND:
        wanted.append("424")
    screen = term.wait_for(*wanted)

    def error_row(screen: str) -> bool:
        rows = tree_error_lines(screen)
        if name == BACKGROUND:
            return any("server_error" in row and tool not in row for row in rows)
        return any("424" in row and tool not in row for row in rows)

    screen = term.wait_until(
        error_row, f"the error on its own tree row (✗ … without the item's {tool!r})"
    )
    assert "No failure" not in screen, screen
    term.assert_healthy()

    cycle_the_views(term)
    footer_names_the_main_keys(term, size)

    term.send("q")
    code = term.exit_code()
    history = term.history()
    term.assert_healthy(alive=False)
    assert code == 1, f"exit code {code} after q:\n{history}"  # a failure: as inspect


def cycle_the_views(term: Terminal) -> None:
    """`v` shows the findings, then the waterfall, then the detail as it was."""
    detail = right(term.settled())
    legend = "tool's own time"
    term.send("v")  # Findings
    term.wait_until(
        lambda s: right(s) != detail and legend not in right(s),
        "the findings view (not the detail, not the waterfall)",
    )
    term.assert_healthy()
    term.send("v")  # Waterfall
    term.wait_until(lambda s: legend in right(s), f"the waterfall ({legend!r})")
    term.assert_healthy()
    term.send("v")  # Detail again
    term.wait_until(lambda s: right(s) == detail, "the detail view as it was")
    term.assert_healthy()


def footer_names_the_main_keys(term: Terminal, size: tuple[int, int]) -> None:
    wanted = [r"(^|\s)q\s+Quit\b", r"\?\s+(Keys|Help)\b", r"\bStep\b", r"\bFail", r"\bView\b"]
    if size[0] >= 160:
        wanted += [r"\bFilter\b", r"\bSave\b", r"\bOpen\b"]
    screen = term.wait_until(
        lambda s: all(re.search(w, footer(s)) for w in wanted), f"a footer with {wanted}"
    )
    missing = [w for w in wanted if not re.search(w, footer(screen))]
    assert not missing, f"footer {footer(screen)!r} lacks {missing}"
    term.assert_healthy()


# -- 3. filter -------------------------------------------------------------------------------


def test_keys_typed_right_after_slash_go_to_the_filter(terminal_factory: MakeTerminal) -> None:
    """`/` and the text in one burst (a fast typist, a paste): the text is the filter, not
    commands (`s` would open Save, `c` copy)."""
    term = replay(terminal_factory, BROKEN)
    term.send("/", "s", "e", "a", "r", "c", "h")
    term.wait_until(lambda s: input_box(s) == "search", "'search' in the filter box")
    assert not shows(term.screen(), re.compile(r"(?i)save recording")), term.screen()
    term.assert_healthy()


# -- 4. next / previous failure --------------------------------------------------------------


@pytest.mark.parametrize("name", [BROKEN, TIMEOUT, BACKGROUND])
def test_failure_keys_wrap_and_show_the_error(terminal_factory: MakeTerminal, name: str) -> None:
    _tool, error, _cause = FAILING[name]
    term = replay(terminal_factory, name)  # at the end of the stream: nothing after it
    for key in ["f", "f", "f", "F", "F", "F", "f"]:
        term.send(key)
        term.wait_until(
            lambda s: error in right(s) and CAUSE[name] in right(s),
            f"{error!r} and {CAUSE[name]!r} in the detail after {key!r}",
        )
        never(term, "No failure", 0.5)
        term.assert_healthy()


def test_next_failure_without_failures_says_so(terminal_factory: MakeTerminal) -> None:
    term = replay(terminal_factory, SUCCESS)
    term.send("f")
    screen = term.wait_for(re.compile(r"(?i)no failure"))
    assert any(re.search(r"(?i)no failure", t) for t in toasts(screen)), screen
    term.assert_healthy()


# -- 6. keys / help --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "size"),
    [
        pytest.param("?", (80, 24), id="?-80x24"),
        pytest.param("?", (160, 45), id="?-160x45"),
        pytest.param("F1", (80, 24), id="F1-80x24"),
    ],
)
def test_help_lists_the_keys_and_escape_closes_it(
    terminal_factory: MakeTerminal, key: str, size: tuple[int, int]
) -> None:
    term = replay(terminal_factory, BROKEN, size)
    tree_row = "response.created"
    term.send(key)
    screen = term.wait_until(
        lambda s: bool(
            re.search(r"\bKeys\b", body(s))
            and re.search("(?i)quit", body(s))
            and re.search("(?i)step forward", body(s))
        ),
        f"a keys screen after {key!r} (`Keys`, quit, step forward)",
    )
    term.assert_healthy()
    term.send("Escape")
    term.wait_until(
        lambda s: tree_row in s and not re.search(r"\bKeys\b", body(s)),
        "the keys screen to close and the tree to be back",
    )
    assert screen
    term.assert_healthy()


# -- 9. copy ---------------------------------------------------------------------------------


def test_copy_selected_event(terminal_factory: MakeTerminal) -> None:
    term = replay(terminal_factory, BROKEN)
    term.send("Up")  # select an event (the row above the newest); keys are taken in order
    term.send("c")
    copied = re.compile(r"Copied ([\d,]+) characters of JSON")
    screen = term.wait_for(copied)
    assert (toast_number(screen, copied) or 0) > 0, screen
    term.assert_healthy()


# -- 10. quit --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("keys", "size", "name", "expected"),
    [
        pytest.param(("q", "s"), (80, 24), BROKEN, 1, id="q+s-80x24"),
        pytest.param(("q",), (80, 24), SUCCESS, 0, id="q-80x24-clean"),
    ],
)
def test_quit_exits_like_inspect_without_traceback(
    terminal_factory: MakeTerminal,
    keys: tuple[str, ...],
    size: tuple[int, int],
    name: str,
    expected: int,
) -> None:
    """1 when the recording holds a failure, 0 when not (README's exit codes). `q` on the
    failing recordings ends the first-screen test, Ctrl+C on every recording the tour
    (test_terminal_tour.py)."""
    term = replay(terminal_factory, name, size)
    term.send(*keys)
    code = term.exit_code()
    history = term.history()
    term.assert_healthy(alive=False)
    assert code == expected, f"exit code {code} after {keys}:\n{history}"
