"""The footer: the screen's keys as one line of text, in one widget.

Textual's `Footer` is a container of one widget per key (some twenty on a level screen), each
mounted, styled and laid out, and all of them mounted again on every bindings refresh. On the
first screen that was more than a third of its widgets and a large share of the time to the
rows. This footer draws the same line (the key in the key style, its words, disabled keys dim,
the command palette's key at the right edge) as one widget that repaints only when what it
shows changes; a click on a key presses it, as on Textual's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from rich.style import Style
from rich.text import Text
from textual import events
from textual.widget import Widget

from screens.bindings import words

if TYPE_CHECKING:
    from textual.screen import Screen

PALETTE_EDGE = "▏"  # the line before the command palette's key, as Textual's footer draws it


class FooterKeyShown(NamedTuple):
    key: str  # the key as Textual names it ("question_mark")
    display: str  # as the footer shows it ("?")
    description: str
    enabled: bool


def _footer_keys(screen: Screen) -> tuple[tuple[FooterKeyShown, ...], FooterKeyShown | None]:
    """What a footer on `screen` lists, in the app's language, read off its active bindings once (Textual
    walks the focus chain for them on every read): the first key of each action shown, in order (`Backspace` and
    `Esc` both go back: the footer says it once), and the command palette's key (None: none)."""
    app = screen.app
    lang = getattr(app, "lang", "en")
    palette_key = app.COMMAND_PALETTE_BINDING
    shown: dict[str, FooterKeyShown] = {}
    palette = None
    for key, (_, binding, enabled, _) in screen.active_bindings.items():
        entry = FooterKeyShown(binding.key, app.get_key_display(binding), words(binding, lang)[0], enabled)
        if key == palette_key:
            palette = entry if app.ENABLE_COMMAND_PALETTE else None
        elif binding.show and binding.action not in shown:
            shown[binding.action] = entry
    return tuple(shown.values()), palette


class KeysFooter(Widget, can_focus=False):
    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"keys-footer--key", "keys-footer--description", "keys-footer--edge"}
    DEFAULT_CSS = """
    KeysFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-item-background;
        .keys-footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .keys-footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .keys-footer--edge {
            color: $foreground 20%;
        }
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self._keys: tuple[FooterKeyShown, ...] = ()
        self._palette: FooterKeyShown | None = None
        self._spans: list[tuple[int, int, FooterKeyShown]] = []  # x range of each key as last drawn

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)
        self.bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen) -> None:
        """Repaint only when what the footer shows changed (a bindings refresh comes with every
        focus change, every widget that mounts and every change of language)."""
        if not self.is_attached or screen is not self.screen:
            return
        keys, palette = _footer_keys(screen)
        if (keys, palette) != (self._keys, self._palette):
            self._keys, self._palette = keys, palette
            self.refresh()

    @property
    def keys_shown(self) -> tuple[FooterKeyShown, ...]:
        """The keys the footer lists, in order (the command palette's not among them)."""
        return self._keys

    def render(self) -> Text:
        key_style = self.get_component_rich_style("keys-footer--key", partial=True)
        words_style = self.get_component_rich_style("keys-footer--description", partial=True)
        width = self.size.width
        right = self._part(self._palette, key_style, words_style, lead="") if self._palette else None
        room = width - (len(right) + 1 if right is not None else 0)
        line = Text(no_wrap=True, overflow="crop", end="")
        self._spans = []
        for key in self._keys:
            part = self._part(key, key_style, words_style)
            if line.cell_len + part.cell_len > room:
                break
            self._spans.append((line.cell_len, line.cell_len + part.cell_len, key))
            line.append_text(part)
        if right is not None and width > len(right):
            line.pad_right(width - line.cell_len - right.cell_len - 1)
            line.append(PALETTE_EDGE, self.get_component_rich_style("keys-footer--edge", partial=True))
            self._spans.append((line.cell_len, line.cell_len + right.cell_len, self._palette))
            line.append_text(right)
        return line

    @staticmethod
    def _part(key: FooterKeyShown, key_style: Style, words_style: Style, lead: str = " ") -> Text:
        part = Text.assemble((f"{lead}{key.display} ", key_style), (f"{key.description} ", words_style))
        if not key.enabled:
            part.stylize(Style(dim=True))
        return part

    def on_mouse_down(self, event: events.MouseDown) -> None:
        for start, end, key in self._spans:
            if start <= event.x < end:
                if key.enabled:
                    self.app.simulate_key(key.key)
                else:
                    self.app.bell()
                return
