"""A footer that folds: the bindings that fit on one line, the essential ones first.

Textual's Footer lays every shown binding out in one row and cuts the row at the screen's edge,
so at 80 columns `quit`, `view`, `save` and `open` fell off. This one keeps the bindings in their
usual order but drops the least needed ones until the rest fit; `?` lists them all.

It is one widget drawing one line of text, not Textual's Footer: Footer composes a `FooterKey`
widget per binding (18 on the inspector) and styles each with its two component classes, and it
was composed three times as the app started. Measured (bench/app_start.py, a Pilot start at
140x40): of 241 `Stylesheet.apply` calls at start 162 were for those keys, and `apply` was ~35%
of the start's CPU. Here a change of bindings or of width repaints one line.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget

from mcptui.ui.actions import BY_NAME, footer_ranks

PRIORITY = footer_ranks()
"""Which bindings stay when the line is short (the action table's ranks): help, quit, step,
failure and view first."""
GAP = 1
"""Columns between two keys."""


def key_width(key_display: str, description: str) -> int:
    """Columns a key takes (compact, as Textual's FooterKey): `key description`."""
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


@dataclass(frozen=True, slots=True)
class FooterEntry:
    """One key as the footer shows it."""

    key: str
    """The key a click simulates (the binding's key, as Textual's FooterKey does)."""
    action: str
    key_display: str
    description: str
    enabled: bool
    """False: drawn dim, and a click only rings the bell."""
    tooltip: str
    """Shown while the mouse is over the key ("" for none)."""

    @property
    def width(self) -> int:
        return key_width(self.key_display, self.description)


class FittingFooter(Widget, can_focus=False):
    """Shows the keys that fit in its width; re-folds when the terminal is resized.

    Looks as Textual's compact Footer does (the same theme variables, in component classes
    here): each key in `footer-key--key`, a space and its description in
    `footer-key--description`, over `fitting-footer--item`; one column of the footer's
    background between keys; a disabled key dim, the key under the mouse in the hover colour.
    Binding groups (one label for several keys) are not drawn: the inspector has none.
    """

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "fitting-footer--item",
        "footer-key--key",
        "footer-key--description",
        "fitting-footer--disabled",
        "fitting-footer--hover",
    }
    DEFAULT_CSS = """
    FittingFooter {
        dock: bottom;
        width: 1fr;
        height: 1;
        text-wrap: nowrap;
        color: $footer-foreground;
        background: $footer-background;
        & > .fitting-footer--item {
            background: $footer-item-background;
        }
        & > .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .footer-key--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .fitting-footer--disabled {
            text-style: dim;
        }
        & > .fitting-footer--hover {
            background: $block-hover-background;
        }
    }
    """

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._width = 0
        self._made_from: tuple[FooterEntry, ...] | None = None
        """What the keys shown were made from (`_shown_bindings`); None before the screen
        first said what its bindings are."""
        self._shown: tuple[FooterEntry, ...] = ()
        self._hovered: FooterEntry | None = None

    @property
    def shown(self) -> tuple[FooterEntry, ...]:
        """The keys on the line, in display order (the same tuple until they change)."""
        return self._shown

    def _shown_bindings(self, screen: Screen) -> tuple[FooterEntry, ...]:
        """Every shown binding of `screen`, with its key as displayed, whether it is enabled
        and its tooltip: everything the line is made of but the width."""
        return tuple(
            FooterEntry(
                binding.key,
                binding.action,
                self.app.get_key_display(binding),
                binding.description,
                enabled,
                tooltip,
            )
            for _node, binding, enabled, tooltip in screen.active_bindings.values()
            if binding.show and not self._live_only_without_a_run(binding.action)
        )

    def _live_only_without_a_run(self, action: str) -> bool:
        """A live run's key (README's live table) in a session that sends nothing: `e` on a
        replay that holds its request works (`?` and the palette list it), but the line keeps
        its room for the replay's own keys."""
        row = BY_NAME.get(action)
        return row is not None and row.live and getattr(self.app, "live", None) is None

    def shows_keys_of(self, screen: Screen) -> bool:
        """Whether the keys shown are those of `screen`'s bindings now."""
        return self._made_from == self._shown_bindings(screen)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen) -> None:
        """Fold the keys again only when what they show has changed: the screen says its
        bindings changed after each refresh of them. A change repaints the line, now (the
        new keys are in the next frame) and without a layout: the line is always one row.
        Like Textual's Footer, keeps the keys while the app has lost focus (nothing is
        focused then, so most keys would vanish)."""
        if screen is not self.screen or not self.is_attached or not screen.app.app_focus:
            return
        bindings = self._shown_bindings(screen)
        if bindings == self._made_from:
            return
        self._made_from = bindings
        self._fold()

    def _fold(self) -> None:
        """Keep the keys that fit, one per action (its first binding, as Footer does)."""
        width = self._width = self.size.width or self.app.size.width
        first: dict[str, FooterEntry] = {}
        for entry in self._made_from or ():
            first.setdefault(entry.action, entry)
        kept = fitting([(action, entry.width) for action, entry in first.items()], width)
        shown = tuple(entry for action, entry in first.items() if action in kept)
        if shown != self._shown:
            self._shown = shown
            self._set_hovered(None)
            self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._width:
            self._fold()

    def render(self) -> Text:
        """The keys on one line, styled as Textual's compact FooterKey styles each."""
        item = self.get_component_rich_style("fitting-footer--item")
        key_style = self.get_component_rich_style("footer-key--key")
        description_style = self.get_component_rich_style("footer-key--description")
        dim = self.get_component_rich_style("fitting-footer--disabled", partial=True)
        text = Text(no_wrap=True, end="")
        for entry in self._shown:
            if text:
                text.append(" " * GAP)
            keys, description = key_style, description_style
            if entry is self._hovered:
                keys, description = (
                    self._hover(keys, "footer-key--key"),
                    self._hover(description, "footer-key--description"),
                )
            if not entry.enabled:
                keys, description = keys + dim, description + dim
            start = len(text)
            text.append(entry.key_display, keys)
            if entry.description:
                text.append(" " + entry.description, description)
            text.stylize_before(item + dim if not entry.enabled else item, start, len(text))
        return text

    def _hover(self, style: Style, component: str) -> Style:
        """`style` under the mouse: the hover background shows where the component's own
        background is transparent (FooterKey:hover colours the key's whole box)."""
        if self.get_component_rich_style(component, partial=True).bgcolor is not None:
            return style
        return style + Style(bgcolor=self.get_component_rich_style("fitting-footer--hover").bgcolor)

    def entry_at(self, x: int) -> FooterEntry | None:
        """The key drawn at column `x` of the line, if any."""
        start = 0
        for entry in self._shown:
            if start <= x < start + entry.width:
                return entry
            start += entry.width + GAP
        return None

    def _entry_under(self, event: events.MouseEvent) -> FooterEntry | None:
        offset = event.get_content_offset(self)
        return None if offset is None else self.entry_at(offset.x)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """Run the key's binding, as a press of it would (Textual's FooterKey does the same);
        a disabled key rings the bell."""
        entry = self._entry_under(event)
        if entry is None:
            return
        if entry.enabled:
            self.app.simulate_key(entry.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hovered(self._entry_under(event))

    def on_leave(self, event: events.Leave) -> None:
        self._set_hovered(None)

    def _set_hovered(self, entry: FooterEntry | None) -> None:
        """Highlight the key under the mouse, with its tooltip and a pointer."""
        if entry is self._hovered:
            return
        self._hovered = entry
        self.tooltip = entry.tooltip if entry is not None and entry.tooltip else None
        self.styles.pointer = "pointer" if entry is not None else "default"
        self.refresh()
