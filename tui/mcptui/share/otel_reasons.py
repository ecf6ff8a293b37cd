"""Why an OTLP export failed, in the words a person reads, and the counts of what was sent:
shared by `mcptui export --otlp` (tui/mcptui/share/otel_export.py) and the live export
(tui/mcptui/share/otel_live.py).

The OTLP exporter reports a failed export only as FAILURE; its reasons are in its own log
records (its public logger), kept here instead of printed, and when it logged none (its
retries ran out of time), one TCP connection to the collector tells why.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

from mcptui.model.textsafe import one_line

EXPORTER_LOGGER = "opentelemetry.exporter"
REFUSED = "connection refused"
NO_ANSWER = "no answer within"


@dataclass
class Tally:
    """What happened to the spans, counted across the threads (under `lock`)."""

    built: int = 0
    sent: int = 0
    failed: int = 0
    pieces_dropped: int = 0
    """Finished pieces dropped because the build queue was full."""
    reasons: list[str] = field(default_factory=list)
    """Why exports failed, each once, in order."""
    context_notes: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reason(self, text: str) -> None:
        with self.lock:
            if text and text not in self.reasons:
                self.reasons.append(text)


class ReasonKeeper(logging.Handler):
    """The exporter's log records, read for why an export failed, and never printed (a
    traceback on the terminal, or across the app's screen)."""

    def __init__(self, tally: Tally, timeout: float) -> None:
        super().__init__(logging.WARNING)
        self.tally = tally
        self.timeout = timeout

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except Exception:
            return
        self.tally.reason(failure_reason(text, self.timeout))


def failure_reason(text: str, timeout: float) -> str:
    """A log line of the exporter as the reason a person reads."""
    lowered = text.lower()
    if "max retries or shutdown" in lowered:
        return ""  # how the retries ended: the transient errors before it said why
    if "refused" in lowered:
        return REFUSED
    if "timed out" in lowered or "timeout" in lowered:
        return f"no answer within {timeout:g} s"
    if "name or service not known" in lowered or "nodename nor servname" in lowered:
        return "unknown host"
    if "code:" in lowered:
        code = lowered.split("code:", 1)[1].split(",", 1)[0].strip()
        if code and code != "none":
            return f"HTTP {code}"
    if "transient error" in lowered:
        return ""  # retried; the final record says how it ended
    from mcptui.model.redaction import redact_text

    return one_line(redact_text(text, strict_urls=True), 120)  # it may echo the URL


def why_unsent(url: str, timeout: float) -> str:
    """Why an export that failed without a word failed: one TCP connection to the collector
    tells a port nothing listens on (or a host that is not there) from one that took the
    request and did not answer in time. Runs on the exporter's thread, never the run's."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname or "", port), timeout=min(timeout, 2.0)):
            pass
    except ConnectionRefusedError:
        return REFUSED
    except socket.gaierror:
        return "unknown host"
    except OSError:
        return f"no answer within {timeout:g} s"
    return f"no answer within {timeout:g} s"


def worth_saying(reasons: list[str]) -> list[str]:
    """The reasons to print: a collector that refused connections is why; the timeouts of
    the exporter's last retries against it (their deadline spent, under load) are not a
    second reason (a loaded run said "connection refused; no answer within 1 s")."""
    said = [reason for reason in reasons if reason]
    if REFUSED in said:
        said = [reason for reason in said if not reason.startswith(NO_ANSWER)]
    return said
