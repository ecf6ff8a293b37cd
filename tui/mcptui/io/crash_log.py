"""An internal error (a bug in mcptui, not a problem with the input): exit 3, one line on
stderr, the traceback in a log file a user can attach to a bug report.

The log is redacted like a recording, and carries no local variables (Textual's own crash
screen prints them, API keys included).
"""

from __future__ import annotations

import sys
import traceback
from datetime import datetime
from pathlib import Path

from mcptui import __version__
from mcptui.io.recording import DEFAULT_RECORD_DIR
from mcptui.model.failure_text import describe_exception
from mcptui.model.redaction import argv_secrets, hide_known, redact_argv, redact_text
from mcptui.model.textsafe import one_line

EXIT_INTERNAL = 3
ERROR_LOG = DEFAULT_RECORD_DIR / "mcptui-error.log"


def log_crash(exc: BaseException, log: Path = ERROR_LOG) -> Path | None:
    """Append the redacted traceback to `log`; the path, or None when it cannot be written."""
    text = "".join(traceback.format_exception(exc))
    known = argv_secrets(sys.argv)
    entry = (
        f"--- {datetime.now().isoformat(timespec='seconds')}  mcptui {__version__}  "
        f"{redact_argv(sys.argv)}\n{hide_known(redact_text(text), known)}\n"
    )
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("a", encoding="utf-8", errors="backslashreplace") as out:
            out.write(entry)
    except OSError:
        return None
    return log


def crash_line(exc: BaseException, log: Path | None) -> str:
    """`mcptui: internal error: RuntimeError: boom (traceback in …)`: one safe line."""
    where = f"the traceback is in {log}" if log else "the traceback could not be written"
    said = hide_known(redact_text(describe_exception(exc)), argv_secrets(sys.argv))
    return one_line(
        f"mcptui: internal error: {said} ({where}; please attach it to a bug report)", 400
    )


def report_crash(exc: BaseException) -> int:
    """Log `exc`, say so on stderr, and give the exit code for it."""
    print(crash_line(exc, log_crash(exc)), file=sys.stderr)
    return EXIT_INTERNAL
