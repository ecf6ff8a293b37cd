"""Per-tool figures across runs: "it sometimes times out" needs many runs side by side.

For every (server label, tool) pair: how many calls, how many failed and with which error, the
tool's own time at p50 / p95 / max, and the time limit that applied.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mcptui.model.state import SessionState
from mcptui.model.textsafe import one_line
from mcptui.model.timing import TimingReport


@dataclass
class ToolStats:
    server_label: str
    tool: str
    calls: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    """How many calls failed, by error text."""
    seconds: list[float] = field(default_factory=list)
    """The tool's own time of each call whose time is known."""
    limits: set[float] = field(default_factory=set)

    def percentile(self, share: float) -> float | None:
        """Nearest-rank percentile of the tool times (None without any)."""
        if not self.seconds:
            return None
        ordered = sorted(self.seconds)
        return ordered[max(0, math.ceil(share * len(ordered)) - 1)]

    def as_json(self) -> dict[str, Any]:
        return {
            "server_label": self.server_label,
            "tool": self.tool,
            "calls": self.calls,
            "failures": sum(self.failures.values()),
            "failures_by_error": dict(self.failures),
            "p50_s": self.percentile(0.5),
            "p95_s": self.percentile(0.95),
            "max_s": max(self.seconds, default=None),
            "limit_s": sorted(self.limits),
        }


def tool_stats(runs: Iterable[tuple[SessionState, TimingReport]]) -> list[ToolStats]:
    """Every mcp_call of every run, grouped by server and tool, in order of first call."""
    found: dict[tuple[str, str], ToolStats] = {}
    for state, timing in runs:
        seconds = {(t.response_key, t.item_key): t.tool_seconds for t in timing.items}
        for resp in state.responses:
            for item in resp.items:
                if item.type != "mcp_call":
                    continue
                key = (item.server_label or "?", item.name or "?")
                stats = found.setdefault(key, ToolStats(*key))
                stats.calls += 1
                stats.limits.add(resp.tool_limit)
                if item.failed:
                    stats.failures[one_line(item.error_text or "failed", 80)] += 1
                took = seconds.get((resp.key, item.key))
                if took is not None:
                    stats.seconds.append(took)
    return list(found.values())
