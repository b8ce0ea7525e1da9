"""Pictures of the workbench (pane 4): the English sample, Japanese with ids, EN | JA, typed text, specials, pasted code."""

from __future__ import annotations

from textual.pilot import Pilot
from textual import events
from textual.widgets import TextArea

from tests.ui.app_harness import SIZE, after_keys, make_app, ready
from tests.ui.views_harness import bilingual_800, session_with


def boundaries_app():
    return make_app(session=session_with(bilingual_800()), start_mode="boundaries")


def test_boundaries_english(snap_compare) -> None:
    assert snap_compare(boundaries_app(), terminal_size=SIZE, run_before=ready)


def test_boundaries_japanese_with_ids(snap_compare) -> None:
    # Five tokens in: the cursor sits on a token that splits a kanji, so the detail line shows its bytes.
    run_before = after_keys("s", "i", "right", "right", "right", "right")
    assert snap_compare(boundaries_app(), terminal_size=SIZE, run_before=run_before)


def test_boundaries_english_beside_japanese(snap_compare) -> None:
    assert snap_compare(boundaries_app(), terminal_size=SIZE, run_before=after_keys("v"))


def test_boundaries_typed_text_at_80x24(snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press("slash")
        pilot.app.screen.query_one("#boundaries-input", TextArea).load_text("tab\there\x07 [b]bold?[/b] 東京タワー 🗼\n")
        await pilot.press("escape")  # leaving the text encodes it at once
        await ready(pilot)
        await pilot.press("right", "right")
        await ready(pilot)

    assert snap_compare(boundaries_app(), terminal_size=(80, 24), run_before=run_before)


def test_boundaries_special_tokens_in_typed_text(snap_compare) -> None:
    # Two separators in a row: each is one token in the special style, and the two still differ.
    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press("slash")
        area = pilot.app.screen.query_one("#boundaries-input", TextArea)
        area.load_text("end of one.<|endoftext|><|endoftext|>次の文書 <|endoftext|>")
        await pilot.press("escape")  # encodes at once (no typing delay) and goes back to the tokens
        await ready(pilot)
        await pilot.press("right", "right", "right", "right")
        await ready(pilot)

    assert snap_compare(boundaries_app(), terminal_size=(80, 24), run_before=run_before)


def test_workbench_with_pasted_code_at_80x24(snap_compare) -> None:
    # Tabs, indentation and blank lines as pasted; the counts row and the coverage line are for this text.
    code = "def area(r):\n\t\"\"\"Circle.\"\"\"\n\tif r < 0:\n\t\traise ValueError(r)\n\n    return 3.14159 * r ** 2\n"

    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press("slash")
        pilot.app.post_message(events.Paste(code * 8))
        await pilot.pause()
        await pilot.press("escape")
        await ready(pilot)
        await pilot.press("right", "right", "right")
        await ready(pilot)

    assert snap_compare(boundaries_app(), terminal_size=(80, 24), run_before=run_before)


def test_workbench_while_typing_at_120x40(snap_compare) -> None:
    # The toy sample edited as a starting point; the focused text grows to show more lines.
    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press("s", "s", "s", "e")  # the toy sample as a starting point, cursor at its start
        await ready(pilot)
        await pilot.press(*"Hi ")
        await pilot.press("escape", "slash")
        await ready(pilot)

    assert snap_compare(boundaries_app(), terminal_size=(120, 40), run_before=run_before)
