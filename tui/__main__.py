"""`python -m tui` runs the same command line as the `mcptui` script."""

import sys

from tui.cli import main

sys.exit(main())
