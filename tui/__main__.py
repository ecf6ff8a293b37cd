"""`python -m tui` runs the same command line as the `mcptui` script."""

import sys

from tui.cli import main

if __name__ == "__main__":  # not when a spawned child (tui/child.py) imports it as __mp_main__
    sys.exit(main())
