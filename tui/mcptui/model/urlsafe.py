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
