"""Make text from the network safe to show: no control sequence may reach the terminal.

Rich markup is never interpreted because every view builds `rich.text.Text` objects from plain
strings; what remains is terminal escapes and other control characters, which are shown as
visible `\\xNN` escapes instead of acting.
"""

from __future__ import annotations

import re

_DEL_C1_BIDI = r"\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
"""DEL, the C1 controls (the one-byte CSI U+009B…) and the bidi controls that reorder what
follows them (U+202E RIGHT-TO-LEFT OVERRIDE…)."""
_CONTROL = re.compile(f"[\\x00-\\x08\\x0b-\\x1f{_DEL_C1_BIDI}]")
"""With the C0 controls (ESC, BEL…): none may act on a terminal."""
_JSON_UNSAFE = re.compile(f"[{_DEL_C1_BIDI}\ud800-\udfff]")
"""What json.dumps leaves as it is (it escapes C0 itself), and a lone surrogate (a file name's
undecodable byte, `b'\\xff'` read as U+DCFF), which no UTF-8 can carry: raw, it made
`inspect --json` print bytes that are not JSON."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with control characters (ESC, BEL, CSI, bidi overrides…) replaced by `\\xNN`
    or `\\uNNNN` escapes: the one function for text from the network that reaches a terminal."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(_escape, text)


def json_safe(text: str) -> str:
    """JSON text (from `json.dumps`, which escapes C0 already) with DEL, C1 and bidi controls
    and lone surrogates written as `\\uNNNN`: the same JSON, inert on a terminal, valid UTF-8."""
    if not _JSON_UNSAFE.search(text):
        return text
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def one_line(text: str, limit: int = 200) -> str:
    """A single safe line, shortened with an ellipsis and a count of what was cut."""
    flat = visible(text.replace("\r\n", " ").replace("\n", " ").replace("\t", " "))
    if len(flat) <= limit:
        return flat
    return f"{flat[:limit]}… (+{len(flat) - limit} chars)"


def shown_path(path: object) -> str:
    """A file name as the CLI prints it ("report written to OUT"): every control character
    (ESC, BEL, a line break, CSI…) and each undecodable byte (a lone surrogate) written as a
    visible escape, so a name can neither act on the terminal nor break the line."""
    text = path.decode("utf-8", "surrogateescape") if isinstance(path, bytes) else str(path)
    text = visible(text).replace("\n", "\\x0a").replace("\t", "\\x09")
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
