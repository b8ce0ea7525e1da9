"""The key footer of every pane: Textual's ``Footer``, rebuilt once when the keys it shows have changed.

Textual's footer rebuilds all its key widgets (some twenty, each restyled) every time its screen
announces its bindings: each time the screen is shown, and at every focus change. Each announcement
queues a rebuild of its own, so a pane shown right after a run started (focus leaving a field, the keys
of a running run) rebuilt its footer five times over, 300-500 ms of the UI thread. Here a rebuild is
queued only if none is, and when it comes it is skipped if the keys are those already shown.
"""

from __future__ import annotations

from collections.abc import Hashable

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeyFooter(Footer):
    """A ``Footer`` that skips a rebuild when the keys, their descriptions and their states are unchanged."""

    def __init__(self) -> None:
        super().__init__()
        self._composed_for: Hashable | None = None
        """What the footer's current key widgets show (see :meth:`_keys_shown`), or None before any."""
        self._rebuild_queued = False
        """A rebuild is waiting for the next refresh: further announcements need no other."""

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
            if isinstance(widget, FooterKey):
                # A key widget starts compact and is then bound to the footer's setting (all but the
                # palette key, which stays compact). Started as it will end, it is styled once as it
                # mounts; otherwise its class flips and it is restyled, twice over: half a rebuild's time.
                compact = True if widget.has_class("-command-palette") else self.compact
                widget.set_reactive(FooterKey.compact, compact)
                widget.set_class(compact, "-compact", update=False)
            yield widget
        self._composed_for = self._keys_shown(self.screen) if composed else None

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if self._rebuild_queued or not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        self._rebuild_queued = True
        self.call_after_refresh(self._rebuild)

    async def _rebuild(self) -> None:
        """Rebuild the key widgets, unless they already show the screen's keys as they are now."""
        self._rebuild_queued = False
        if self._composed_for is not None and self._keys_shown(self.screen) == self._composed_for:
            return
        await self.recompose()
