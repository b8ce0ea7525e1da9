"""Pictures of the compare pane: two tokenizers on the mixed sample, and three in an 80x24 terminal."""

from __future__ import annotations

from textual.pilot import Pilot

from tests.ui.app_harness import SIZE, after_keys, make_app, ready
from tests.ui.views_harness import bilingual_800, english_500, japanese_600, session_with


def test_compare_two_tokenizers(snap_compare) -> None:
    app = make_app(session=session_with(english_500(), bilingual_800()), start_mode="compare")
    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_compare_three_tokenizers_at_80x24(snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press("t", "home", "space", "escape")
        await ready(pilot)

    app = make_app(session=session_with(english_500(), bilingual_800(), japanese_600()), start_mode="compare")
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_compare_diff_view(snap_compare) -> None:
    app = make_app(session=session_with(english_500(), bilingual_800()), start_mode="compare")
    assert snap_compare(app, terminal_size=SIZE, run_before=after_keys("d"))


def test_compare_on_the_workbench_text_at_80x24(snap_compare) -> None:
    # Text typed in the workbench (pane 4) is what Compare runs on next, with context coverage per tokenizer.
    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press("slash", *"The lighthouse keeper, 灯台守", "enter", "tab", *"climbed 91 steps.", "escape")
        await ready(pilot)
        await pilot.press("6")
        await ready(pilot)

    app = make_app(session=session_with(english_500(), bilingual_800()), start_mode="boundaries")
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
