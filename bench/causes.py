"""The likely-cause engine's score on the labelled corpus (tests/causes), as a table.

For every case (one reproduced failure, labelled with its true cause) and every form it is kept
in (the live recording with timing, its events pasted as a JSON array without timing, the final
Response object), three marks:

  listed     the true cause is among the causes `mcptui inspect` shows
  top        it is the first one shown
  probe      after probing a demo server in the case's mode (as `p` / `mcptui probe` do),
             the true cause is `confirmed` ("n/a": the cause is the API's own, or the form
             names no server to probe)

and a column `wrong`: causes outside the label shown as likely or confirmed (before or after
the probe). Targets: listed 100%, wrong 0, probe 100% where it applies. "top" is not a target:
where the stream cannot tell causes apart they are equal candidates, most common first.

Then the real server stacks (tests/causes/real_stacks.py: the mcp Python SDK's MCPServer and
low-level server, fastmcp, the TypeScript SDK's McpServer and low-level Server, its v2, and
server-everything), each failure reproduced for real through a tap in each protocol revision
the stack speaks (tests/causes/stack_cases.py), per stack: top cause right, listed,
confidently wrong (the top cause is confirmed or likely but wrong), silent (no cause, or only
"cannot tell", where the wire shows it). Targets: right 100%, wrong 0, silent 0.

Run: `.venv/bin/python bench/causes.py [--no-probe] [--markdown] [--no-stacks]` (about 10 s
with probes, then about 3 minutes for the stacks; `npm ci` in tests/ first).
Exit status 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "causes")]

from cause_corpus import CASES, FORMS, FormScore, mcp_server, score_form  # noqa: E402
from real_stacks import STACKS, available  # noqa: E402
from stack_cases import ERAS, Scored, run_all  # noqa: E402


def mark(score: FormScore) -> tuple[str, str, str]:
    if not score.present:
        return "—", "—", "—"
    probe = "n/a" if score.probed is None else "✓" if score.confirmed_after_probe else "✗"
    return "✓" if score.listed else "✗", "✓" if score.top else "·", probe


def score_all(probe: bool) -> list[list[FormScore]]:
    rows = []
    for case in CASES:
        if probe and case.probe:
            with mcp_server(case) as origin:
                rows.append([score_form(case, form, origin=origin) for form in FORMS])
        else:
            rows.append([score_form(case, form) for form in FORMS])
    return rows


def table(rows: list[list[FormScore]], markdown: bool) -> list[str]:
    head = ["case", "true cause", *(f"{form} L/T/P" for form in FORMS), "wrong"]
    body = []
    for scores in rows:
        case = scores[0].case
        wrong = sorted({w for s in scores for w in (*s.wrong, *s.wrong_after_probe)})
        body.append(
            [case.name, case.cause, *(" ".join(mark(s)) for s in scores), ", ".join(wrong) or "0"]
        )
    if markdown:
        return [
            f"| {' | '.join(head)} |",
            f"|{'---|' * len(head)}",
            *(f"| {' | '.join(row)} |" for row in body),
        ]
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
        for row in [head, *body]
    ]


def totals(rows: list[list[FormScore]]) -> tuple[list[str], bool]:
    present = [s for scores in rows for s in scores if s.present]
    probed = [s for s in present if s.probed is not None]
    listed = sum(s.listed for s in present)
    top = sum(s.top for s in present)
    wrong = sum(bool(s.wrong or s.wrong_after_probe) for s in present)
    confirmed = sum(s.confirmed_after_probe for s in probed)

    def pct(n: int, d: int) -> str:
        return f"{n}/{d} ({100 * n / d:.0f}%)" if d else "0/0"

    lines = [
        f"{label:<24}{value}   ({target})"
        for label, value, target in (
            ("listed", pct(listed, len(present)), "target 100%"),
            ("top", pct(top, len(present)), "no target: equal candidates go most common first"),
            ("wrong likely/confirmed", str(wrong), "target 0"),
            (
                "confirmed after probe",
                pct(confirmed, len(probed)),
                "target 100% where a probe applies",
            ),
        )
    ]
    return lines, listed == len(present) and wrong == 0 and confirmed == len(probed)


def stack_table(scores: list[Scored], markdown: bool) -> tuple[list[str], bool]:
    """Real server stacks, per stack and protocol revision: failures, top cause right,
    listed, confidently wrong, silent. Targets: right 100%, wrong 0, silent 0."""
    groups: dict[tuple[str, str], list[Scored]] = {}
    for score in scores:
        groups.setdefault((score.stack, score.era), []).append(score)
    head = [
        "stack",
        "client speaks",
        "failures",
        "top right",
        "listed",
        "confidently wrong",
        "silent",
    ]
    body = []
    for (stack, era), found in sorted(groups.items()):
        label = STACKS[stack].label if stack in STACKS else "no server (tap, API)"
        body.append(
            [
                label,
                ERAS.get(era, era),
                str(len(found)),
                _pct(sum(s.right for s in found), len(found)),
                _pct(sum(s.listed for s in found), len(found)),
                str(sum(s.confidently_wrong for s in found)),
                str(sum(s.silent and s.cause != "none" for s in found)),
            ]
        )
    met = all(
        s.right and not s.confidently_wrong and (not s.silent or s.cause == "none") for s in scores
    )
    misses = [
        f"  miss: {s.stack} {s.era} {s.scenario} {s.tool}: want {s.cause}, got {list(s.causes[:3])}"
        for s in scores
        if not s.right
    ]
    if markdown:
        return [
            f"| {' | '.join(head)} |",
            f"|{'---|' * len(head)}",
            *(f"| {' | '.join(row)} |" for row in body),
            *misses,
        ], met
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
        for row in [head, *body]
    ] + misses, met


def _pct(n: int, d: int) -> str:
    return f"{n}/{d} ({100 * n / d:.0f}%)" if d else "0/0"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-probe", action="store_true", help="score the files alone")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument(
        "--no-stacks", action="store_true", help="skip the real server stacks (about 3 minutes)"
    )
    parser.add_argument(
        "--stacks",
        default=None,
        metavar="A,B",
        help="only these stacks (names in tests/causes/real_stacks.py)",
    )
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)  # the demo servers log every failure they cause
    started = time.perf_counter()
    rows = score_all(probe=not args.no_probe)
    print("Demo corpus (tests/causes/*/, the emulator and the demo server)")
    print("\n".join(table(rows, args.markdown)))
    print(
        "L listed · T top · P confirmed after probe · — no such form (the API refused the "
        "request: no Response object)"
    )
    lines, met = totals(rows)
    print("\n".join(lines))
    print(f"{len(CASES)} cases, {time.perf_counter() - started:.1f} s")
    if args.no_stacks:
        return 0 if met else 1
    started = time.perf_counter()
    wanted = (
        args.stacks.split(",")
        if args.stacks
        else [name for name in STACKS if available(name) is None]
    )
    scores = run_all(wanted)
    print("\nReal server stacks, through a tap (`run --tap`, or `tap` + `inspect --tap`)")
    lines, stacks_met = stack_table(scores, args.markdown)
    print("\n".join(lines))
    print(
        f"{len(scores)} failures on {len(wanted)} stacks, "
        f"{time.perf_counter() - started:.1f} s; targets: top right 100%, confidently "
        "wrong 0, silent 0"
    )
    return 0 if met and stacks_met else 1


if __name__ == "__main__":
    sys.exit(main())
