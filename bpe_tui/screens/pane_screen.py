"""The base of every pane: a screen that, shown again, skips restyling itself when nothing it depends on changed.

Textual restyles every widget of a screen each time it is shown, in case something app-wide changed while
it was hidden (only the screen on show follows such changes). On the corpus pane that was about half
the CPU of a pane switch. Everything else that can change a hidden widget's style (its classes, the
focus, a new theme) restyles it when it happens, so the restyle on show is needed only when the app's
own classes, pseudo-classes (terminal focus, dark or light), theme or size differ from when the pane was
hidden. ``on_screen_resume`` runs before Textual's own handler, which reads the event's ``refresh_styles``.

Textual also leaves a pane built for its first visit marked as styled with no stylesheet at all (its
``_css_update_count`` is set only for a screen already mounted when the mode opens), so the second
visit re-read every stylesheet and restyled every pane: 150-600 ms. The pane was styled with the
current stylesheet as it mounted, so it is marked so on its first showing.

In a terminal smaller than :data:`MIN_COLUMNS` by :data:`MIN_ROWS` every pane shows :class:`RoomNeeded` in
place of itself (its breakpoints mark the screen ``-too-narrow`` or ``-too-short``; ``app.tcss``
hides the rest): at 40x12 the panes were drawn as boxes with nothing in them, the workbench's token view
was a border and the training form was off the screen, tabbed into unseen.
"""

from __future__ import annotations

from collections.abc import Hashable

from textual import events
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget

MIN_COLUMNS = 60
"""The narrowest terminal the panes are drawn in; below it they say how much room they need."""

MIN_ROWS = 20
"""The shortest terminal the panes are drawn in (the dashboard's merge table keeps two rows at 20)."""


class RoomNeeded(Widget):
    """What a pane shows in place of itself in a terminal too small for it: the size it needs and has."""

    DEFAULT_CSS = """
    RoomNeeded { display: none; width: 1fr; height: 1fr; padding: 1 2; content-align: center middle; text-align: center; }
    """

    def render(self) -> Content:
        width, height = self.app.size
        return Content(
            f"bpe-tui needs a terminal of at least {MIN_COLUMNS} columns x {MIN_ROWS} rows;\n"
            f"this one is {width} x {height}.\n\nMake the window larger or the font smaller.\nctrl+q quits."
        )


class PaneScreen(Screen):
    """A pane of the app; see the module docstring for what it does beyond ``Screen``."""

    HORIZONTAL_BREAKPOINTS = [(0, "-too-narrow"), (MIN_COLUMNS, "-narrow"), (100, "-normal"), (140, "-wide")]
    """Classes the screen takes by the terminal's width (``app.tcss`` lays out narrow and wide panes by them)."""
    VERTICAL_BREAKPOINTS = [(0, "-too-short"), (MIN_ROWS, "-tall-enough")]
    """Classes the screen takes by the terminal's height."""

    _hidden_in: Hashable | None = None
    """What this pane's styles depended on when it was last hidden; None before the first time."""

    def _style_context(self) -> Hashable:
        """The app-wide state a hidden screen's styles may depend on but do not follow while hidden."""
        app = self.app
        return (app.theme, app.size, app.classes, app.pseudo_classes)

    def on_mount(self) -> None:
        self.mount(RoomNeeded())

    def on_screen_suspend(self) -> None:
        self._hidden_in = self._style_context()

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        if self._css_update_count < 0:  # first shown: mounted with the stylesheet as it is now
            self._css_update_count = self.app._css_update_count
        if self._hidden_in is not None and self._hidden_in == self._style_context():
            event.refresh_styles = False
