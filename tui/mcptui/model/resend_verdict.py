"""Did the change fix it? The verdict on an edited re-send (`e`), against the response it was
edited from: the header's one line, "fixed: search_files now completes".

The failure that counts is the response's first: its first failed item (an `mcp_call` that
failed, a listing that did not load), else the response's own error. Two failures are "the
same" when they are of the same item (type, server label, tool) and the same kind of error
(`error_kind`: its type and code, or its text with the numbers taken out), as `mcptui diff`
compares errors. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mcptui.model.errors import describe_error
from mcptui.model.redaction import redact_text
from mcptui.model.state import ItemState, ResponseState
from mcptui.model.textsafe import one_line

TERMINAL = frozenset({"completed", "failed", "incomplete", "cancelled"})
_NUMBERS = re.compile(r"\d+")

FIXED = "fixed"
STILL = "still failing"
DIFFERENT = "different failure"
BROKE = "now failing"
BOTH_FINE = "both complete"
UNFINISHED = "not finished"
AWAITING = "awaiting approval"


@dataclass(frozen=True, slots=True)
class Verdict:
    kind: str
    """FIXED, STILL, DIFFERENT, BROKE, BOTH_FINE, UNFINISHED or AWAITING (the new response
    stopped at approval requests: what the calls do is not known yet)."""
    detail: str

    @property
    def text(self) -> str:
        return f"{self.kind}: {self.detail}"

    @property
    def good(self) -> bool | None:
        """True: better or as good; False: still or newly failing; None: not known yet."""
        if self.kind in (UNFINISHED, AWAITING):
            return None
        return self.kind in (FIXED, BOTH_FINE)


def first_failure(resp: ResponseState) -> ItemState | None:
    return next((item for item in resp.items if item.failed), None)


def failed(resp: ResponseState) -> bool:
    return resp.failed or first_failure(resp) is not None


def what(item: ItemState) -> str:
    """`search_files` (an mcp_call), `mcp_list_tools @files`: what failed, in a few words."""
    if item.type == "mcp_call" and item.name:
        return item.name
    label = f" @{item.server_label}" if item.server_label else ""
    return f"{item.name or item.type}{label}"


def error_kind(error: object) -> str:
    """What kind of error: its type and code when it has them, else its text without numbers
    (two timeouts after 31 s and 30 s are the same kind)."""
    if isinstance(error, dict) and (error.get("type") or error.get("code")):
        return f"{error.get('type')}/{error.get('code')}"
    return _NUMBERS.sub("#", describe_error(error))


def failure_text(resp: ResponseState) -> str:
    """The response's first failure in one line: `search_files: 424: …` (redacted)."""
    item = first_failure(resp)
    if item is not None:
        text = f"{what(item)}: {one_line(item.error_text) or item.status}"
    else:
        error = describe_error(resp.error) if resp.error is not None else ""
        text = error or f"the response {resp.status or 'failed'}"
    return redact_text(text if len(text) <= 200 else text[:199] + "…")


def verdict(before: ResponseState, after: ResponseState) -> Verdict:
    """`after` (the edited re-send) against `before` (what it was edited from)."""
    if after.status not in TERMINAL and not after.request_failed:
        return Verdict(UNFINISHED, "the new response is still running")
    asked = [
        what(item)
        for item in after.items
        if item.type == "mcp_approval_request" and item.answer is None
    ]
    if asked and not failed(after):
        return Verdict(
            AWAITING,
            f"{', '.join(asked)} (a approves, d denies; the follow-up is the answer)",
        )
    was, now = failed(before), failed(after)
    if was and not now:
        item = first_failure(before)
        if item is None:
            return Verdict(FIXED, "the response now completes")
        again = next(
            (
                other
                for other in after.items
                if (other.type, other.server_label, other.name)
                == (item.type, item.server_label, item.name)
            ),
            None,
        )
        if again is not None:
            return Verdict(FIXED, f"{what(item)} now completes")
        return Verdict(FIXED, f"the response completes ({what(item)} was not called)")
    if not was and not now:
        return Verdict(BOTH_FINE, "neither response failed")
    if not was:
        return Verdict(BROKE, failure_text(after))
    old, new = first_failure(before), first_failure(after)
    same_place = (old is None and new is None) or (
        old is not None
        and new is not None
        and (old.type, old.server_label, old.name) == (new.type, new.server_label, new.name)
    )
    old_error = old.error if old is not None else before.error
    new_error = new.error if new is not None else after.error
    if same_place and error_kind(old_error) == error_kind(new_error):
        return Verdict(STILL, f"same error ({failure_text(after)})")
    return Verdict(DIFFERENT, failure_text(after))
