"""Textual's parsed CSS, kept on disk: an app's stylesheet reads back the rule sets of each
CSS text it parsed in an earlier run instead of parsing it again.

Why: parsing the default CSS of the widgets on the first screen and app.tcss (~20 texts) was
~13 ms of CPU of the ~0.42 s first screen of a small recording in tmux; reading their rule
sets back is ~2 ms (bench/cold_start.py).

What is kept: for each CSS text, the rule sets Textual's parser made of it, keyed by all the
parse reads: the text, where it was read from, its flags and scope; one file per Textual
install and set of CSS variables (the theme's colours), so a theme or an upgrade uses its own.
Nothing from a user's streams. A text whose rules have errors is not kept (Textual reports
them, each run). The file is written by the app that parsed something new, when it ends, to a
temporary file renamed in place; one that cannot be read or unpickled is ignored and written
again, one that cannot be written costs the parse, nothing else. It is a pickle, in the user's
own cache folder (io/sdk_schema_cache.py says where), as Python's own bytecode caches are.

`CachedStylesheet` overrides Textual's private `Stylesheet._parse_rules` (as fast_tree.py
overrides Tree's); tests/app/test_css_cache.py fails when an upgrade changes what it relies on.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import tempfile
import zlib
from pathlib import Path
from typing import Any

import textual
from textual.css.model import RuleSet
from textual.css.stylesheet import CSSLocation, Stylesheet

from mcptui.io.sdk_schema_cache import cache_dir

Key = tuple[str, CSSLocation, bool, int, str]
"""What `Stylesheet._parse_rules` parses from: css, read_from, is_default_rules,
tie_breaker, scope."""


def textual_install() -> str:
    """Which Textual is installed: its package's place and its `__init__.py`'s size and time,
    which an upgrade or reinstall changes. Not `textual.__version__`: Textual reads that from
    the package metadata, ~17 ms, more than the cache saves."""
    init = Path(textual.__file__)
    found = init.stat()
    return f"{init.parent}:{found.st_size}:{found.st_mtime_ns}"


def cache_path(variables: dict[str, str]) -> Path:
    """The file for this Textual and these CSS variables (which it holds too, and Textual's
    install: a file made for others under the same checksum is not used)."""
    digest = zlib.crc32(repr((textual_install(), sorted(variables.items()))).encode())
    return cache_dir() / f"css-{digest:08x}.pickle"


class CachedStylesheet(Stylesheet):
    """A `Stylesheet` that takes a CSS text's rule sets from the cache when it has them."""

    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self._kept: dict[Key, bytes] | None = None
        self._kept_for: dict[str, str] | None = None
        self._new = False

    def _cache(self) -> dict[Key, bytes]:
        """The kept rule sets for the current variables (read again only if they change)."""
        if self._kept is None or self._kept_for != self._variables:
            self._kept_for = dict(self._variables)
            self._kept = {}
            with contextlib.suppress(Exception):  # unreadable, not ours: parsed again
                found = pickle.loads(cache_path(self._variables).read_bytes())
                if (
                    found["variables"] == self._variables
                    and found["textual"] == textual_install()
                    and isinstance(found["rules"], dict)
                ):
                    self._kept = found["rules"]
        return self._kept

    def _parse_rules(
        self,
        css: str,
        read_from: CSSLocation,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        key: Key = (css, read_from, is_default_rules, tie_breaker, scope)
        if (rules := self._parse_cache.get(key)) is not None:  # Textual's, for this run
            return rules
        kept = self._cache()
        if (pickled := kept.get(key)) is not None:
            with contextlib.suppress(Exception):
                rules = pickle.loads(pickled)
                if isinstance(rules, list) and all(isinstance(rule, RuleSet) for rule in rules):
                    self._parse_cache[key] = rules
                    return rules
        rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
        if not any(rule.errors for rule in rules):
            with contextlib.suppress(Exception):  # a rule that does not pickle: not kept
                kept[key] = pickle.dumps(rules, protocol=pickle.HIGHEST_PROTOCOL)
                self._new = True
        return rules

    def save(self) -> None:
        """Write the kept rule sets, if any were parsed in this run."""
        if not self._new or self._kept is None or self._kept_for is None:
            return
        self._new = False
        path = cache_path(self._kept_for)
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=".css-", dir=path.parent)
            try:
                with os.fdopen(handle, "wb") as file:
                    kept = {
                        "textual": textual_install(),
                        "variables": self._kept_for,
                        "rules": self._kept,
                    }
                    pickle.dump(kept, file, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temporary, path)
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)


def cached(stylesheet: Stylesheet) -> CachedStylesheet:
    """A cached stylesheet in place of an app's new one (its variables and any sources)."""
    replacement = CachedStylesheet(variables=stylesheet._variables)
    replacement.source = stylesheet.source.copy()
    replacement._require_parse = stylesheet._require_parse
    return replacement


def save(stylesheet: Any) -> None:
    """Write `stylesheet`'s cache, if it is a cached one."""
    if isinstance(stylesheet, CachedStylesheet):
        stylesheet.save()
