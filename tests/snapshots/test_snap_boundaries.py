"""Pictures of the boundaries pane: the English sample, the Japanese sample with ids, EN | JA, typed text, specials."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import Input

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
        field = pilot.app.screen.query_one("#boundaries-input", Input)
        field.value = "tab\there\x07 [b]bold?[/b] 東京タワー 🗼\n"
        await pilot.pause(0.3)
        await ready(pilot)
        await pilot.press("escape", "right", "right")
        await ready(pilot)

    assert snap_compare(boundaries_app(), terminal_size=(80, 24), run_before=run_before)


def test_boundaries_special_tokens_in_typed_text(snap_compare) -> None:
    # Two separators in a row: each is one token in the special style, and the two still differ.
    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        field = pilot.app.screen.query_one("#boundaries-input", Input)
        field.focus()
        field.value = "end of one.<|endoftext|><|endoftext|>次の文書 <|endoftext|>"
        await pilot.press("enter")  # encodes at once (no typing delay) and goes back to the tokens
        await ready(pilot)
        await pilot.press("right", "right", "right", "right")
        await ready(pilot)

    assert snap_compare(boundaries_app(), terminal_size=(80, 24), run_before=run_before)
