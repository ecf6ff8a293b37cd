"""A real terminal for the installed `mcptui`: a private tmux server, real keys, the screen as text.

Why: the in-process Textual pilot uses a fake driver, so what only a real terminal shows (key
decoding, toasts wrapped at 80x24, the traceback printed after a crash, the exit code) needs a
real pty. tmux gives one without a TTY of our own, so this also runs in CI.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from contextlib import closing
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RECORDINGS = REPO / "recordings"
REQUESTS = REPO / "requests"
POLL = 0.1
WAIT = 15.0

BORDERS = "│┃▕▏"
GUIDES = " │├└─┬┼╰╭┃┣┗━"
TOAST_EDGE = "▌"
CRASH = re.compile(
    r"Traceback \(most recent call last\)"
    r"|^(?:\w+\.)*\w*(?:Error|Exception): "  # a Python exception line, not indented
    r"|NOTE: \d+ of \d+ errors? shown"  # Textual's crash footer
    r"|\bNoMatches\b",
    re.MULTILINE,
)

TREE_ROW = re.compile(r"^\s*[▼▶├└│╰]")
"""A row of the event tree (its guides)."""
AT_END = re.compile(r"step (\d+) / \1\b")
"""The header once every step of a replay is applied."""
Pattern = str | re.Pattern[str]
SIZES = [pytest.param((160, 45), id="160x45"), pytest.param((80, 24), id="80x24")]


def mcptui_command() -> Path:
    """The `mcptui` installed in the venv running pytest (fails, not skips, when absent)."""
    command = Path(sys.executable).parent / "mcptui"
    if not command.exists():
        pytest.fail(
            f"the installed command {command} is missing: run "
            f"`{sys.executable} -m pip install -e '.[test]'` in {REPO}"
        )
    return command


def tmux_binary() -> str:
    found = shutil.which("tmux")
    if found is None:
        pytest.skip("tmux is not installed: the terminal tier needs it (apt-get install tmux)")
    return found


def wait_for_port(
    port: int,
    timeout: float = WAIT,
    proc: subprocess.Popen[bytes] | None = None,
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the server for port {port} exited with {proc.returncode}")
        with closing(socket.socket()) as sock:
            sock.settimeout(0.5)
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(POLL)
    raise AssertionError(f"nothing accepted connections on 127.0.0.1:{port} in {timeout:g} s")


# -- reading a screen ------------------------------------------------------------------------


def header(screen: str) -> str:
    """The status header: the rows above the first tree row."""
    rows = []
    for row in screen.splitlines():
        if TREE_ROW.match(row):
            break
        rows.append(row)
    return " ".join(rows)


def collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def border_column(lines: Sequence[str]) -> int | None:
    """The column of the vertical border between the two panes (most body rows have it)."""
    body = lines[1:-1]
    if not body:
        return None
    width = max(len(line) for line in body)
    best, best_count = None, 0
    for column in range(width // 5, width - 2):
        count = sum(1 for line in body if len(line) > column and line[column] in BORDERS)
        if count >= best_count:
            best, best_count = column, count
    return best if best_count >= len(body) // 2 else None


def panes(screen: str) -> list[list[str]]:
    """The screen's rows split at the pane border: [left rows, right rows] (or [rows])."""
    lines = screen.splitlines()
    column = border_column(lines)
    if column is None:
        return [lines]
    width = max(len(line) for line in lines)
    right = [line[column + 1 :] for line in lines]
    # A vertical scrollbar takes the last columns of the pane: not text.
    right = [
        re.sub(r"\s*[▁-█▔▕▐]{1,2}$", "", row) if len(line) >= width - 2 else row
        for row, line in zip(right, lines, strict=True)
    ]
    return [[line[:column] for line in lines], right]


def toasts(screen: str) -> list[str]:
    """The text of each notification (Textual draws a `▌` edge on its left), wrapped lines
    joined."""
    found: list[str] = []
    current: list[str] = []
    for line in [*screen.splitlines(), ""]:
        text = line[line.rindex(TOAST_EDGE) + 1 :].strip() if TOAST_EDGE in line else ""
        if text:
            current.append(text)
        elif current:
            found.append(" ".join(current))
            current = []
    return found


def unguided(row: str) -> str:
    """A row without the tree guides before its text (`│   ├── `)."""
    return row.lstrip(GUIDES).strip()


def texts(screen: str) -> list[str]:
    """The screen as a person reads it: the raw rows, each pane's wrapped text as one flow
    (tree guides left out), and each toast."""
    flows = [" ".join(unguided(row) for row in rows) for rows in panes(screen)]
    return [screen, *flows, *toasts(screen)]


def shows(screen: str, pattern: Pattern) -> bool:
    """A regex is searched in the raw screen and in the flowed texts; a plain string may also be
    wrapped across rows of a pane or a toast."""
    if isinstance(pattern, re.Pattern):
        return any(pattern.search(text) for text in texts(screen))
    if pattern in screen:
        return True
    flows = texts(screen)[1:]
    return any(collapse(pattern) in collapse(text) for text in flows) or any(
        squash(pattern) in squash(text) for text in flows
    )


def toast_number(screen: str, pattern: re.Pattern[str]) -> int | None:
    """The number (group 1, `1,234` allowed) in the first toast that matches `pattern`."""
    for text in toasts(screen):
        found = pattern.search(text)
        if found:
            return int(found.group(1).replace(",", ""))
    return None


def dialog_text(screen: str) -> str:
    """The text inside a modal box (the rows between `╭` and `╰`), its rows joined as wrapped
    (a long path breaks mid-word), or "" when no box is open."""
    rows = screen.splitlines()
    top = next((i for i, row in enumerate(rows) if "╭" in row), None)
    if top is None:
        return ""
    bottom = next((i for i in range(top + 1, len(rows)) if "╰" in rows[i]), len(rows))
    inner = [
        row[row.index("│") + 1 : row.rindex("│")].strip()
        for row in rows[top + 1 : bottom]
        if row.count("│") >= 2
    ]
    return "".join(inner)


def crash_lines(screen: str) -> list[str]:
    return [m.group(0) for m in CRASH.finditer(screen)]


def assert_healthy(screen: str) -> None:
    """No Python traceback, exception line or Textual crash report on the screen."""
    found = crash_lines(screen)
    assert not found, f"the screen shows a crash ({found}):\n{screen}"


# -- the terminal ----------------------------------------------------------------------------


class Terminal:
    """One app in one private tmux server (`tmux -L <unique> -f /dev/null`)."""

    def __init__(self, workdir: Path, width: int = 160, height: int = 45) -> None:
        self.tmux_path = tmux_binary()
        self.workdir = workdir
        self.width = width
        self.height = height
        self.socket = f"mcptui-test-{os.getpid()}-{uuid.uuid4().hex[:10]}"
        self.started = False
        self.command: list[str] = []
        self.rc_file = workdir / f".{self.socket}.rc"
        self.socket_path = ""
        home = workdir / ".home"
        home.mkdir(parents=True, exist_ok=True)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TERM": "xterm-256color",
        }
        for inherited in ("TMUX_TMPDIR", "MCPTUI_CACHE_DIR"):  # the latter: tests/conftest.py
            if inherited in os.environ:
                self.env[inherited] = os.environ[inherited]

    def __repr__(self) -> str:
        return f"Terminal({self.width}x{self.height}, {shlex.join(self.command)})"

    # -- tmux --------------------------------------------------------------------------------

    def tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [self.tmux_path, "-u", "-L", self.socket, "-f", "/dev/null", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=20,
            stdin=subprocess.DEVNULL,
        )
        if check and done.returncode != 0:
            raise AssertionError(f"tmux {shlex.join(args)} failed: {done.stderr.strip()}")
        return done

    def start(self, *args: str | Path, env: dict[str, str] | None = None) -> Terminal:
        """Run `mcptui ARGS` in a new detached session of the terminal's size, in `workdir`."""
        assert not self.started, "one app per Terminal"
        self.command = [str(mcptui_command()), *map(str, args)]
        extra = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
        # The shell stays to write the exit code: tmux's pane_dead_status is not always set.
        line = (
            f"env TERM=xterm-256color {extra} {shlex.join(self.command)}; "
            f"echo $? > {shlex.quote(str(self.rc_file))}"
        )
        self.tmux(
            "start-server",
            ";",
            "set-option",
            "-g",
            "remain-on-exit",
            "on",
            ";",
            "set-option",
            "-g",
            "history-limit",
            "5000",
            ";",
            "new-session",
            "-d",
            "-s",
            "app",
            "-x",
            str(self.width),
            "-y",
            str(self.height),
            "-c",
            str(self.workdir),
            line,
        )
        self.started = True
        self.socket_path = self.tmux("display-message", "-p", "#{socket_path}").stdout.strip()
        return self

    def close(self) -> None:
        if self.started:
            self.tmux("kill-server", check=False)
            self.started = False
            if self.socket_path:  # tmux 3.3 leaves the socket file behind
                Path(self.socket_path).unlink(missing_ok=True)

    # -- keys --------------------------------------------------------------------------------

    def send(self, *keys: str) -> None:
        """tmux key names (`Enter`, `Escape`, `C-c`, `F1`, `/`, `q`), all in one send-keys."""
        self.tmux("send-keys", "-t", "app", *keys)

    def type(self, text: str) -> None:
        """Literal text (`send-keys -l`)."""
        self.tmux("send-keys", "-t", "app", "-l", text)

    # -- screen ------------------------------------------------------------------------------

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "app").stdout

    def history(self) -> str:
        """The screen and everything scrolled off it (a traceback printed after exit)."""
        return self.tmux("capture-pane", "-p", "-S", "-", "-t", "app").stdout

    def pane(self, field: str) -> str:
        return self.tmux("display-message", "-p", "-t", "app", f"#{{{field}}}").stdout.strip()

    def alive(self) -> bool:
        return not self.rc_file.exists() and self.pane("pane_dead") != "1"

    def status(self) -> str:
        """The exit code once the app has exited, else `running`."""
        return self.rc_file.read_text().strip() if self.rc_file.exists() else "running"

    def wait_until(self, predicate: Callable[[str], bool], what: str, timeout: float = WAIT) -> str:
        """Poll the screen every 0.1 s until `predicate(screen)`; fail with the last screen."""
        deadline = time.monotonic() + timeout
        seen: list[str] = []  # every toast shown meanwhile, for the failure message
        while True:
            screen = self.screen()
            if predicate(screen):
                return screen
            seen += [t for t in toasts(screen) if t not in seen]
            if time.monotonic() > deadline:
                break
            if not self.alive():
                screen = self.history()
                if predicate(screen):
                    return screen
                raise AssertionError(
                    f"the app exited (status {self.status()}) while waiting "
                    f"for {what}; {self!r}. Last screen:\n{screen}"
                )
            time.sleep(POLL)
        raise AssertionError(
            f"timed out after {timeout:g} s waiting for {what}; {self!r}. "
            f"Toasts seen meanwhile: {seen}. Last screen:\n{screen}"
        )

    def settled(self, quiet: float = 0.5, timeout: float = WAIT) -> str:
        """The screen once it has not changed for `quiet` seconds."""
        deadline = time.monotonic() + timeout
        last, since = self.screen(), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(POLL)
            screen = self.screen()
            if screen != last:
                last, since = screen, time.monotonic()
            elif time.monotonic() - since >= quiet:
                return screen
        raise AssertionError(f"the screen kept changing for {timeout:g} s; {self!r}:\n{last}")

    def wait_for(self, *patterns: Pattern, timeout: float = WAIT) -> str:
        """Wait until every pattern shows (see `shows`)."""
        return self.wait_until(
            lambda s: all(shows(s, p) for p in patterns),
            " and ".join(map(describe, patterns)),
            timeout,
        )

    def wait_gone(self, pattern: Pattern, timeout: float = WAIT) -> str:
        return self.wait_until(
            lambda s: not shows(s, pattern), f"{describe(pattern)} to go", timeout
        )

    def exit_code(self, timeout: float = WAIT) -> int:
        deadline = time.monotonic() + timeout
        while self.alive():
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"the app did not exit in {timeout:g} s; {self!r}. Screen:\n{self.screen()}"
                )
            time.sleep(POLL)
        deadline = time.monotonic() + 5
        while not (text := self.rc_file.read_text().strip() if self.rc_file.exists() else ""):
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"the app ended without an exit code ({self!r}):\n{self.history()}"
                )
            time.sleep(POLL)
        return int(text)

    def assert_healthy(self, *, alive: bool = True) -> str:
        """No crash on the screen (and the history), and the app still running."""
        screen = self.history()
        assert_healthy(screen)
        if alive:
            assert self.alive(), f"the app exited (status {self.status()}):\n{screen}"
        return self.screen()


MakeTerminal = Callable[..., Terminal]
"""The `terminal_factory` fixture: `make(width, height)` -> a Terminal (see conftest.py)."""


def describe(pattern: Pattern) -> str:
    return f"/{pattern.pattern}/" if isinstance(pattern, re.Pattern) else repr(pattern)


def input_box(screen: str) -> str | None:
    """The text inside the open input box (`▊  text  ▎`, the placeholder when empty): "" for
    an empty box without one, None when no box is open."""
    for row in screen.splitlines():
        match = re.search(r"▊(.*)▎", row)
        if match and not re.fullmatch(r"[▔▁]+", match.group(1)):
            return match.group(1).strip()
    return None


def fill_box(term: Terminal, text: str) -> None:
    """Type `text` into the input box that just opened (over a prompt's selected default, as a
    person does) and wait until the box shows it (its end, for a long text)."""
    term.wait_until(lambda s: input_box(s) is not None, "an input box")
    term.type(text)

    def typed(screen: str) -> bool:
        shown = input_box(screen) or ""
        return len(shown) >= min(len(text), 5) and text.endswith(shown)

    term.wait_until(typed, f"{text!r} in the input box")


def tree_error_lines(screen: str) -> list[str]:
    """Tree rows (left pane) whose own text starts with `✗` after the guides: the error line
    under a failed item, or a failed item itself."""
    rows = panes(screen)[0]
    found = []
    for row in rows:
        match = re.match(r"^[\s│├└─┃┣┗╰▼▶]*✗(.*)$", row)
        if match:
            found.append("✗" + match.group(1).rstrip())
    return found


def jsonl_ok(path: Path) -> list[dict[str, object]]:
    """Every line of a JSONL file parsed (fails naming the first bad line)."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            rows.append(json.loads(line))
        except ValueError as exc:
            raise AssertionError(
                f"{path} line {number} is not JSON ({exc}): {line[:200]!r}"
            ) from None
    return rows


def event_count(path: Path) -> int:
    return sum(1 for row in jsonl_ok(path) if "event" in row)


def kill(processes: Sequence[subprocess.Popen[bytes]]) -> None:
    for proc in processes:
        if proc.poll() is None:
            proc.terminate()
    for proc in processes:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
