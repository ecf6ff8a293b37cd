"""Per-tool figures across runs: nearest-rank percentiles, failures by error, the limits."""

from __future__ import annotations

from _support import fold, message_stream, with_failed_mcp_call
from mcptui.model.timing import timing_report
from mcptui.model.toolstats import ToolStats, tool_stats


def test_nearest_rank_percentiles():
    stats = ToolStats("srv", "t", seconds=[float(n) for n in range(1, 21)])
    assert (stats.percentile(0.5), stats.percentile(0.95)) == (10.0, 19.0)
    assert ToolStats("srv", "t").percentile(0.5) is None


def test_calls_of_several_runs_are_grouped_by_server_and_tool():
    ok = fold(message_stream("hi", tool_name="lookup"))
    failed = fold(
        with_failed_mcp_call(
            message_stream("hi", tool_name="lookup"),
            {"type": "http_error", "code": 424, "message": "boom"},
        )[0]
    )
    runs = [(t.state, timing_report(t.state, t.events)) for t in (ok, failed, failed)]
    (stats,) = tool_stats(runs)
    assert (stats.server_label, stats.tool, stats.calls) == ("srv", "lookup", 3)
    assert stats.failures == {"http_error 424: boom": 2}
    assert stats.as_json()["limit_s"] == [60.0]
