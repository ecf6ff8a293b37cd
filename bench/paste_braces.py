"""Time the paste reader on texts full of braces that close nothing (was a timing assertion in
tests/unit/test_paste.py; the test now counts the scans instead).

    python bench/paste_braces.py

About 5 s in all on a 2-core machine (November 2026); before the scan budget it took minutes.
"""

from __future__ import annotations

import time

from mcptui.io.formats import load_text

TEXTS = {
    "nested JSON + prose braces": "x " + '{"a": ' * 20_000 + "\n" + "{{{{" * 50_000,
    "dict literals never closed": "y " + "{'a': " * 30_000,
    "SDK reprs never closed": "ResponseCreatedEvent(" * 20_000,
    "Node objects nested deep": "z " + "{ a: " * 30_000,
    "Node objects never closed": "z " + "{ a: 'x', b: [ 1, " * 20_000,
}


def main() -> None:
    for label, text in TEXTS.items():
        started = time.perf_counter()
        loaded = load_text(text)
        took = time.perf_counter() - started
        print(f"{label:30} {len(text):>9,} chars  {took:6.2f} s  {len(loaded.events)} events")


if __name__ == "__main__":
    main()
