"""The corpus form's base choice: the character base (``bpe-tui train --base chars``) chosen by keys trains the
same merges as the core's ``TrainingRun(..., base="chars")``, its min char count shows only with it, and a
vocab size below the character base's size fails with the core's one-line reason on the dashboard."""

from __future__ import annotations

from pathlib import Path

from textual.message import Message
from textual.pilot import Pilot
from textual.widgets import Input, Select

from bpe_tui.training_runner import TrainingRunner
from bpe_tui.widgets.training_form import parse_settings
from core.train.events import TrainingFinished
from core.train.run import TrainingRun
from tests.ui.app_harness import SAMPLES, SIZE, settle
from tests.ui.test_app_training import corpus_app, set_field, wait_for
from tests.ui.test_dashboard_outcomes import text_of
from tests.ui.test_form_shard_options import focus_by_tab

JAPANESE = SAMPLES / "japanese.txt"
SPECIAL = "<|endoftext|>"


async def choose_chars(pilot: Pilot) -> None:
    """Tab to the base choice and pick its next entry, as a user would."""
    await settle(pilot)
    choice = pilot.app.screen.query_one("#base", Select)
    assert choice.value == "bytes"
    count = pilot.app.screen.query_one("#min-char-count", Input)
    assert not count.display  # only the character base has a min char count
    await focus_by_tab(pilot, choice)
    await pilot.press("enter", "down", "enter")
    await pilot.pause()
    assert choice.value == "chars"
    assert count.display and count.value == "1"


async def test_chars_chosen_by_keys_trains_the_cores_character_base(tmp_path: Path) -> None:
    seen: list[Message] = []
    app = corpus_app(JAPANESE, tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await choose_chars(pilot)
        await set_field(pilot, "vocab", "1200")
        await pilot.press("ctrl+t")
        [finished] = await wait_for(pilot, seen, TrainingRunner.Finished, timeout=120)
    assert finished.spec.base == "chars" and finished.spec.min_char_count == 1
    model = finished.model
    assert model.base == "chars" and len(model.vocab) == 1200
    run = TrainingRun(JAPANESE, 1200, (SPECIAL,), base="chars")
    expected = [e for e in run.events() if isinstance(e, TrainingFinished)][-1].model
    assert model.merges == expected.merges and model.vocab == expected.vocab


async def test_a_vocab_below_the_character_base_fails_with_the_cores_reason(tmp_path: Path) -> None:
    seen: list[Message] = []
    app = corpus_app(JAPANESE, tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await choose_chars(pilot)
        await set_field(pilot, "vocab", "1000")  # enough for bytes, not for the sample's 786 characters too
        await pilot.press("ctrl+t")
        [failed] = await wait_for(pilot, seen, TrainingRunner.Failed, timeout=120)
        await settle(pilot)
        assert app.current_mode == "dashboard"
        outcome = text_of(app.screen, "#outcome")
    assert failed.message.startswith("vocab size 1,000 is below the character base's")
    assert outcome == f"failed: {failed.message}"
    assert "Traceback" not in outcome and "raise the vocab size" in outcome


def test_min_char_count_is_checked_only_with_the_character_base() -> None:
    settings, problems = parse_settings("300", "", "", "0", base="chars", min_char_count="3")
    assert problems == [] and settings is not None
    assert (settings.spec(text="x").base, settings.spec(text="x").min_char_count) == ("chars", 3)
    assert parse_settings("300", "", "", "0", base="chars", min_char_count="")[1] == [
        "min char count: empty is not a whole number"
    ]
    settings, problems = parse_settings("300", "", "", "0", base="bytes", min_char_count="0")
    assert problems == [] and settings is not None and settings.min_char_count == 1
