"""The parsed-CSS cache (tui/mcptui/ui/css_cache.py): a second run reads back the rule sets
the first parsed, the same rules; a damaged file or other CSS variables are parsed again; and
Textual still has the private method it overrides, with the arguments it relies on."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from _app_support import SAMPLE_424, SIZE
from mcptui.sources.replay import open_session
from mcptui.ui import css_cache
from mcptui.ui.app import McptuiApp
from mcptui.ui.css_cache import CachedStylesheet
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MCPTUI_CACHE_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Where each CSS text Textual's own parser was asked for was read from."""
    seen: list[str] = []
    original = Stylesheet._parse_rules

    def counted(self: Stylesheet, css: str, read_from: tuple[str, str], *args: object) -> object:
        seen.append(read_from[1] or read_from[0])
        return original(self, css, read_from, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Stylesheet, "_parse_rules", counted)
    return seen


def facts(rules: list[RuleSet]) -> list[tuple[object, ...]]:
    """What a rule set is made of, comparable: values by their repr (a layout has no
    equality), not `RuleSet.css` (which fails on some of Textual's own rules)."""
    return [
        (
            rule.selector_set,
            {name: repr(value) for name, value in rule.styles.get_rules().items()},
            rule.is_default_rules,
            rule.tie_breaker,
            rule.selector_names,
            rule.pseudo_classes,
        )
        for rule in rules
    ]


async def rules_of_a_run() -> list[tuple[object, ...]]:
    """The app's rules once its first screen and hidden views are up."""
    app = McptuiApp(open_session(str(SAMPLE_424), instant=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.stylesheet, CachedStylesheet)
        return facts(app.stylesheet.rules)


async def test_a_second_run_reads_back_the_same_rules(cache: Path, parsed: list[str]) -> None:
    first = await rules_of_a_run()
    assert parsed, "the first run parses"
    assert len(list(cache.glob("css-*.pickle"))) == 1
    parsed.clear()
    second = await rules_of_a_run()
    assert parsed == []
    assert second == first


async def test_a_damaged_cache_is_parsed_again_and_rewritten(
    cache: Path, parsed: list[str]
) -> None:
    first = await rules_of_a_run()
    (kept,) = cache.glob("css-*.pickle")
    kept.write_bytes(b"not a pickle")
    parsed.clear()
    assert await rules_of_a_run() == first
    assert parsed
    assert kept.read_bytes() != b"not a pickle"


def test_other_variables_use_their_own_file(cache: Path) -> None:
    css = "Screen { background: $panel; }"
    location = ("test.tcss", "")
    for colour in ("#000000", "#ffffff"):
        sheet = CachedStylesheet(variables={"panel": colour})
        sheet.add_source(css, read_from=location)
        sheet.parse()
        sheet.save()
    assert len(list(cache.glob("css-*.pickle"))) == 2
    for colour in ("#000000", "#ffffff"):
        again = CachedStylesheet(variables={"panel": colour})
        again.add_source(css, read_from=location)
        again.parse()
        fresh = Stylesheet(variables={"panel": colour})
        fresh.add_source(css, read_from=location)
        fresh.parse()
        assert facts(again.rules) == facts(fresh.rules)
        assert again.rules[0].styles.background.hex.lower() == colour


def test_textual_still_parses_through_the_method_overridden() -> None:
    parameters = list(inspect.signature(Stylesheet._parse_rules).parameters)
    assert parameters == ["self", "css", "read_from", "is_default_rules", "tie_breaker", "scope"]
    assert hasattr(Stylesheet(), "_parse_cache")  # Textual's own, looked in first
    assert css_cache.textual_install()
