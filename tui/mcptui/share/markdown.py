"""GitHub-flavoured Markdown from text that came over the network, shown literally.

Event content may hold `|`, backticks, `<details>`, `<script>`, `**`, Rich markup or escape
sequences. Pasted into an issue it must neither break the report's tables and blocks nor turn
into markup: inline text is backslash-escaped and `<`/`&` become entities, table cells are one
line, and code fences are longer than any run of backticks inside them.

Every string is redacted on its way in (`scrub`), before escaping: a `<redacted>` put into
plain Markdown afterwards would be read as an HTML tag and vanish.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from mcptui.model.redaction import hide_known, redact_text
from mcptui.model.textsafe import one_line, visible

_SECRETS: ContextVar[Sequence[str]] = ContextVar("secrets", default=())

_PUNCTUATION = re.compile(r"([\\`*_\[\]|~])")
_BLOCK_START = re.compile(r"^(?=[#+=-])")
_LIST_NUMBER = re.compile(r"^(\d+)(?=[.)])")
_BACKTICKS = re.compile(r"`+")


@contextmanager
def hiding(secrets: Sequence[str]) -> Iterator[None]:
    """While the document is written, these values (a request's URL tokens, a live run's MCP
    credentials) are hidden wherever they appear, besides anything that looks secret."""
    token = _SECRETS.set(sorted(set(secrets), key=len, reverse=True))
    try:
        yield
    finally:
        _SECRETS.reset(token)


def scrub(value: str) -> str:
    return hide_known(redact_text(value), _SECRETS.get())


def text(value: str, limit: int = 600) -> str:
    """One line of literal inline text: no emphasis, link, HTML or table cell break."""
    line = one_line(scrub(value), limit)
    line = html.escape(line, quote=False)  # & < > as entities: never an HTML tag
    line = _PUNCTUATION.sub(r"\\\1", line)
    return _LIST_NUMBER.sub(r"\1\\", _BLOCK_START.sub("\\\\", line, count=1), count=1)


def code(value: str, limit: int = 300) -> str:
    """An inline code span: `value` verbatim on one line (pipes escaped: GitHub splits table
    cells on them even inside code)."""
    line = one_line(scrub(value), limit).replace("|", "\\|")
    ticks = "`" * (max((len(run) for run in _BACKTICKS.findall(line)), default=0) + 1)
    pad = " " if line.startswith("`") or line.endswith("`") or not line.strip() else ""
    return f"{ticks}{pad}{line}{pad}{ticks}"


def fence(body: str, language: str = "") -> str:
    """A fenced block that no backtick run in `body` can close early."""
    body = visible(scrub(body))
    longest = max((len(run) for run in _BACKTICKS.findall(body)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{language}\n{body}\n{ticks}"


def table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> str:
    """A GFM table; cells must already be inline Markdown (`text`, `code`). `align` has one
    letter per column: l, r (default l)."""
    marks = {"r": "---:", "l": "---"}
    line = "| " + " | ".join(header) + " |"
    rule = (
        "| "
        + " | ".join(
            marks.get(align[i] if i < len(align) else "l", "---") for i in range(len(header))
        )
        + " |"
    )
    body = ["| " + " | ".join(cell or " " for cell in row) + " |" for row in rows]
    return "\n".join([line, rule, *body])


def details(summary: str, inner: str) -> str:
    """A collapsed block (GitHub renders `<details>`); the summary is plain text, escaped as
    HTML, and blank lines around the Markdown inside let it render."""
    shown = html.escape(one_line(scrub(summary), 200))
    return f"<details><summary>{shown}</summary>\n\n{inner}\n\n</details>"
