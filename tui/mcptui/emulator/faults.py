"""Fault injection for the emulator, chosen per request by `metadata["mcptui_fault"]`.

Several faults may be combined with commas (`"stall:2,unknown_event"`). Each reproduces
something seen from the real API, so clients can be tested against it on a laptop.
"""

from __future__ import annotations

from dataclasses import dataclass

FAULTS = {
    "drop_after:N": "close the connection abruptly after N events (streams only; background "
    "runs go on, so the stream can be resumed)",
    "stall:S[@N]": "pause S seconds mid-stream, after event N (default 4)",
    "malformed_line": "send a `data:` line that is not JSON, after event 3",
    "unknown_event": "send an event of a type the SDK does not know, with a sequence number",
    "docs_event_names": "spell the argument events as the 2025 docs did: "
    "response.mcp_call.arguments.delta / .done",
    "http_429": "answer 429 rate_limit_exceeded at once",
    "http_500": "answer 500 server_error at once",
    "insufficient_quota": "answer 429 insufficient_quota at once (no credit left)",
    "insufficient_quota_stream": "no credit left, as a stream reports it: HTTP 200, "
    "response.created, response.in_progress, an `error` event "
    "(insufficient_quota), then response.failed",
    "background_fail": "a background run that queues, then fails with no details",
    "flood:N": "the answer is N output_text.delta events sent as fast as the socket takes "
    "them (pre-serialised, big writes, no pauses): a live-throughput load",
}
"""Fault syntax -> what it does (shown by `mcptui emulate --help` and in the README)."""

DEFAULT_STALL_AFTER = 4
MALFORMED_AFTER = 3


class FaultError(ValueError):
    """`mcptui_fault` names no known fault, or its argument is not a number."""


@dataclass(frozen=True)
class Faults:
    drop_after: int | None = None
    stall_seconds: float = 0.0
    stall_after: int = DEFAULT_STALL_AFTER
    malformed_line: bool = False
    unknown_event: bool = False
    docs_event_names: bool = False
    http_status: int | None = None
    insufficient_quota: bool = False
    insufficient_quota_stream: bool = False
    background_fail: bool = False
    flood: int | None = None
    """The answer's text comes as this many deltas, unpaced."""


def parse_faults(value: object) -> Faults:
    if value is None or value == "":
        return Faults()
    if not isinstance(value, str):
        raise FaultError("metadata.mcptui_fault must be a string")
    fields: dict[str, object] = {}
    for part in (p.strip() for p in value.split(",")):
        name, _, arg = part.partition(":")
        try:
            if name == "drop_after":
                fields["drop_after"] = int(arg)
            elif name == "flood":
                fields["flood"] = flood = int(arg)
                if flood < 1:
                    raise FaultError(f"fault {part!r}: N must be at least 1")
            elif name == "stall":
                seconds, _, after = arg.partition("@")
                fields["stall_seconds"] = float(seconds)
                if after:
                    fields["stall_after"] = int(after)
            elif (
                name
                in (
                    "malformed_line",
                    "unknown_event",
                    "docs_event_names",
                    "background_fail",
                    "insufficient_quota",
                    "insufficient_quota_stream",
                )
                and not arg
            ):
                fields[name] = True
            elif name in ("http_429", "http_500") and not arg:
                fields["http_status"] = int(name[5:])
            else:
                raise FaultError(f"unknown fault {part!r}; known: {', '.join(FAULTS)}")
        except ValueError as exc:
            if isinstance(exc, FaultError):
                raise
            raise FaultError(f"fault {part!r}: {arg!r} is not a number") from None
    return Faults(**fields)  # type: ignore[arg-type]
