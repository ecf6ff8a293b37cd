"""Splitting a URL read from a file or a stream, which may be anything.

`urllib.parse.urlsplit` raises ValueError on some text (`http://[::1/x`, an unclosed IPv6
bracket; a host that NFKC normalisation changes into a separator). A URL from an archive, a
recording or a request is data: it is split as well as it can be, never raised on.
"""

from __future__ import annotations

from urllib.parse import SplitResult, urlsplit


def split_url(url: str) -> SplitResult:
    """`urlsplit(url)`, or for a URL it refuses the same with its brackets percent-encoded,
    or else the whole text as the path: never a ValueError."""
    try:
        return urlsplit(url)
    except ValueError:
        pass
    try:
        return urlsplit(url.replace("[", "%5B").replace("]", "%5D"))
    except ValueError:
        return SplitResult("", "", url, "", "")


def usable_http_url(url: str) -> bool:
    """Whether `url` can be connected to: http or https, a host, and a port that is a number
    up to 65535 if it has one (`urlsplit` raises on `http://[::1`, `.port` on `:99999`: an
    option or a request naming one gave an internal error deep in a client)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (a port out of range or not a number raises here)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)
