"""`python -m mcptui` runs the same command line as the `mcptui` script."""

import sys

from mcptui.cli.main import main

if (
    __name__ == "__main__"
):  # not when a spawned child (tui/mcptui/io/child_process.py) imports it as __mp_main__
    sys.exit(main())
