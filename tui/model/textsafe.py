"""Make text from the network safe to show: no control sequence may reach the terminal.

Rich markup is never interpreted because every view builds `rich.text.Text` objects from plain
strings; what remains is terminal escapes and other control characters, which are shown as
visible `\\xNN` escapes instead of acting.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    """`text` with control characters (ESC, BEL, CSI, …) replaced by `\\xNN` escapes."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def one_line(text: str, limit: int = 200) -> str:
    """A single safe line, shortened with an ellipsis and a count of what was cut."""
    flat = visible(text.replace("\r\n", " ").replace("\n", " ").replace("\t", " "))
    if len(flat) <= limit:
        return flat
    return f"{flat[:limit]}… (+{len(flat) - limit} chars)"
