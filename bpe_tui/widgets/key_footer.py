"""The key footer of every pane: Textual's ``Footer``, rebuilt only when the keys it shows have changed.

Textual's footer rebuilds all its key widgets whenever its screen announces its bindings, and a screen
announces them each time it is shown. Switching panes therefore rebuilt some twenty key widgets (and
restyled each one) although the pane's keys were exactly as when it was left: about 40% of the CPU
time of a pane switch, which on a machine whose cores are busy training is what the user waits for.
"""

from __future__ import annotations

from collections.abc import Hashable

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    """A ``Footer`` that skips a rebuild when the keys, their descriptions and their states are unchanged."""

    def __init__(self) -> None:
        super().__init__()
        self._composed_for: Hashable | None = None
        """What the footer's current key widgets show (see :meth:`_keys_shown`), or None before any."""

    def _keys_shown(self, screen: Screen) -> Hashable:
        """Everything a rebuild would draw from: each shown binding with its state, and the footer's options."""
        palette = screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        return (
            tuple(
                (binding.key, binding.action, binding.description, binding.group, enabled, tooltip)
                for _node, binding, enabled, tooltip in screen.active_bindings.values()
                if binding.show
            ),
            None if palette is None else (palette[1].key, palette[2]),
            self.compact,
            self.show_command_palette,
        )

    def compose(self) -> ComposeResult:
        composed = False
        for widget in super().compose():
            composed = True
            yield widget
        self._composed_for = self._keys_shown(self.screen) if composed else None

    def bindings_changed(self, screen: Screen) -> None:
        if self._composed_for is not None and screen is self.screen and self._keys_shown(screen) == self._composed_for:
            return  # the key widgets already show exactly this
        super().bindings_changed(screen)
