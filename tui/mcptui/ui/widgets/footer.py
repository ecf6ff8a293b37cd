"""A footer that folds: the bindings that fit on one line, the essential ones first.

Textual's Footer lays every shown binding out in one row and cuts the row at the screen's edge,
so at 80 columns `quit`, `view`, `save` and `open` fell off. This one keeps the bindings in their
usual order but drops the least needed ones until the rest fit; `?` lists them all.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # what Footer composes; no public name

from mcptui.ui.actions import footer_ranks

PRIORITY = footer_ranks()
"""Which bindings stay when the line is short (the action table's ranks): help, quit, step,
failure and view first."""
GAP = 1
"""Columns between two keys."""


def key_width(key_display: str, description: str) -> int:
    """Columns a compact FooterKey takes: `key description`."""
    return len(key_display) + (1 + len(description) if description else 0)


def fitting(entries: list[tuple[str, int]], width: int) -> set[str]:
    """The actions, from (action, columns) pairs, that fit in `width` taken by PRIORITY."""
    rank = PRIORITY
    kept: set[str] = set()
    used = 0
    for action, columns in sorted(entries, key=lambda e: rank.get(e[0], len(rank))):
        needed = columns + (GAP if kept else 0)
        if used + needed <= width:
            kept.add(action)
            used += needed
    return kept


class FittingFooter(Footer):
    """Shows what fits in its width; re-folds when the terminal is resized."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(compact=True, show_command_palette=False, **kwargs)  # type: ignore[arg-type]
        self._width = 0
        self._composed: tuple[object, ...] | None = None
        """What the keys shown were made from (`_shown_bindings`)."""

    def _shown_bindings(self, screen: Screen) -> tuple[object, ...]:
        """Everything the key widgets are made of: the bindings shown, each with its key as
        displayed, whether it is enabled and its tooltip."""
        return tuple(
            (
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                enabled,
                tooltip,
            )
            for _node, binding, enabled, tooltip in screen.active_bindings.values()
            if binding.show
        )

    def shows_keys_of(self, screen: Screen) -> bool:
        """Whether the keys shown are those of `screen`'s bindings now."""
        return self._composed == self._shown_bindings(screen)

    def bindings_changed(self, screen: Screen) -> None:
        """Make the keys again only when what they show has changed: the screen says its
        bindings changed after each refresh of them, and making and styling every key
        widget again took 20-30 ms (once just before an instant replay's first paint).

        And make them now, not after the next refresh as Footer does: the new keys were then
        laid out a frame after the change that brought them (an instant replay's jump, a
        step onto a failed call), 50 ms later on bench/tui_open.py's instant paint."""
        if screen is self.screen and self.shows_keys_of(screen):
            return
        self._bindings_ready = True
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self.call_later(self._remake_keys)

    async def _remake_keys(self) -> None:
        """Recompose, unless a change signalled since has had its keys made already: two
        signals before the first recompose ran made the same 12-15 keys twice (5 composes
        to an instant replay's first screen, two of them for nothing)."""
        if not self.shows_keys_of(self.screen):
            await self.recompose()

    def compose(self) -> ComposeResult:
        self._composed = self._shown_bindings(self.screen) if self._bindings_ready else None
        keys = list(super().compose())
        width = self._width = self.size.width or self.app.size.width
        kept = fitting(
            [
                (key.action, key_width(key.key_display, key.description))
                for key in keys
                if isinstance(key, FooterKey)
            ],
            width,
        )
        shown = [key for key in keys if getattr(key, "action", None) in kept]
        self.styles.grid_size_columns = max(1, len(shown))
        yield from shown

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._width:
            self._width = event.size.width
            self.call_after_refresh(self.recompose)
