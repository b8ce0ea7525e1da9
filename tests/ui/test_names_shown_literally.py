"""A tokenizer's name is data: markup, control characters and escape sequences in it are shown as typed.

The name of a loaded file is its stem, and a file name may hold anything but ``/`` and NUL: here
``[bold]evil`` + an OSC sequence that would retitle the terminal + a bell. Every place that shows the
name (sub-title, notification, Inspector, command palette, save dialog, Compare, Boundaries) must show
the characters ``[bold]evil\\x1b]0;pwned\\x07``: never bold text, never a raw ESC or BEL.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.message import Message
from textual.fuzzy import Matcher
from textual.notifications import Notify
from textual.widgets import SelectionList, Static

from bpe_tui.pane_commands import PaneCommands, highlighted
from core.formats import save_tokenizer
from tests.ui.app_harness import SIZE, make_app, make_session, recorded_run, settle

RAW = "[bold]evil\x1b]0;pwned\x07"
SHOWN = r"[bold]evil\x1b]0;pwned\x07"
"""What a person must see: the brackets as typed, ESC and BEL written out (by hand, not by our escaper)."""


@pytest.fixture
def hostile_file(tmp_path: Path) -> Path:
    path = tmp_path / f"{RAW}.json"
    save_tokenizer(recorded_run()[-1].model, path, format="bpe-tui")  # type: ignore[attr-defined]
    return path


def plain(widget: Static) -> str:
    return str(widget.content)


async def test_every_place_shows_the_name_as_typed(hostile_file: Path) -> None:
    seen: list[Message] = []
    app = make_app(session=make_session(), tokenizer_paths=[hostile_file], start_mode="inspector")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        assert app.sub_title == f"active: {SHOWN}"
        loaded_notes = [m.notification.message for m in seen if isinstance(m, Notify)]
        assert f"Loaded {SHOWN}" in loaded_notes

        summary = plain(app.screen.query_one("#inspector-summary", Static))
        assert summary.startswith(f"{SHOWN}  ") and "\x1b" not in summary and "\x07" not in summary

        provider = PaneCommands(app.screen)
        discovered = [hit async for hit in provider.discover()]
        assert f"Use tokenizer: {SHOWN}" in [str(hit.display) for hit in discovered]
        found = [hit async for hit in provider.search("evil")]
        assert [hit.prompt.plain for hit in found] == [f"Use tokenizer: {SHOWN}"]  # type: ignore[union-attr]

        await pilot.press("6")  # Compare lists it in its picker and header
        await settle(pilot)
        picker = app.screen.query_one("#compare-pick", SelectionList)
        assert [str(picker.get_option_at_index(i).prompt) for i in range(picker.option_count)] == [SHOWN]

        await pilot.press("4")  # Boundaries names the active tokenizer above the text
        await settle(pilot)
        assert any(SHOWN in str(static.content) for static in app.screen.query(Static))
        assert not any("\x1b" in str(static.content) for static in app.screen.query(Static))


def test_a_palette_hit_on_a_name_with_a_closing_tag_is_plain_text() -> None:
    # Textual's own Matcher.highlight reads "[/]" as markup and fails ("nothing to close").
    shown = highlighted(Matcher("evil"), "Use tokenizer: [/]evil")
    assert shown.plain == "Use tokenizer: [/]evil"
    matched = sorted(offset for span in shown.spans for offset in range(span.start, span.end))
    assert "".join(shown.plain[offset] for offset in matched) == "evil"
