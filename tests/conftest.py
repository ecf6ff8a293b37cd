"""Shared fixtures: where the real recorded upstream streams live.

The repository is cloned with `shared/` beside it (CI does the same), so the upstream streams
are at `<repo>/../shared/fixtures/upstream`. Tests that need them are skipped, with the path in
the reason, when that folder is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
UPSTREAM_DIR = REPO.parent / "shared" / "fixtures" / "upstream"


@pytest.fixture(scope="session")
def upstream_dir() -> Path:
    """The folder of upstream `*.chunks.txt` streams; skips the test when it is missing."""
    if not UPSTREAM_DIR.is_dir():
        pytest.skip(
            f"upstream stream fixtures not found at {UPSTREAM_DIR}; clone the shared/ folder "
            "beside the repository to run this test"
        )
    return UPSTREAM_DIR
