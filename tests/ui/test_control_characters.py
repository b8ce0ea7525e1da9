"""No control character reaches the terminal, whichever widget draws it: Textual's text box and input fields
draw what they hold as it is, and Rich lets ESC through.

What the app would write is read back through each widget's own lines, after the app's line filters, the
same strips the compositor sends to the terminal.
"""

from __future__ import annotations

from textual import events
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Input, TextArea

from bpe_tui.control_filter import CONTROLS
from tests.ui.app_harness import make_app, settle
from tests.ui.test_workbench import gpt2
from tests.ui.views_harness import session_with

LOG = "A log line \x1b]0;pwned\x07 then \x1b[31mRED\x1b[0m and \x1b[2J cleared \u202eevil\u202c \x9b31m\n"
"""A log with colour codes, a retitling OSC, a screen clear, a bidi override and an 8-bit CSI."""


def drawn(widget: Widget) -> str:
    """Every line of ``widget`` as the app sends it to the terminal, one after the other."""
    strips = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    return "".join(segment.text for strip in strips for segment in strip)


async def test_the_workbench_text_box_and_an_input_never_send_escapes() -> None:
    # An id file of such a log (ctrl+o), opened in the workbench, retitled the terminal and cleared its screen.
    app = make_app(session=session_with(gpt2()), start_mode="boundaries")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        app.post_message(events.Paste(LOG))
        await pilot.pause()
        area = app.screen.query_one("#boundaries-input", TextArea)
        assert area.text == LOG  # the text itself is kept, and tokenized, as it is
        shown = drawn(area)
        assert "A log line ]0;pwned then [31mRED[0m and [2J cleared evil 31m" in shown
        assert not CONTROLS.search(shown)
        await pilot.press("escape", "1", "p")  # the corpus pane's path box, as a completed name fills it
        field = app.screen.query_one("#corpus-path", Input)
        field.value = "/data/x\x1b]0;pwned\x07.txt"
        await pilot.pause()
        shown = drawn(field)
        assert "/data/x]0;pwned.txt" in shown and not CONTROLS.search(shown)
