"""Saving: nothing modal opens by itself, ctrl+s works from any pane, and a stopped run saves what it made."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.message import Message
from textual.notifications import Notify
from textual.widgets import Input, Label, TextArea

from bpe_tui.app import BpeTuiApp
from bpe_tui.screens.boundaries import BoundariesScreen
from bpe_tui.screens.dashboard import DashboardScreen
from bpe_tui.screens.path_dialog import PathDialog
from bpe_tui.training_runner import TrainingRunner
import core.formats
from core.output_errors import OutputError
from core.formats import load_tokenizer
from tests.ui.app_harness import (
    CORPUS_ROOT,
    SIZE,
    HeldSource,
    held_app,
    settle,
    split_after_merges,
)


def notifications(seen: list[Message]) -> list[str]:
    return [m.notification.message for m in seen if isinstance(m, Notify)]


def app_with(source: HeldSource, folder: Path) -> BpeTuiApp:
    return held_app(source, corpus_root=folder)


async def test_a_run_that_finishes_while_the_user_types_opens_nothing(tmp_path: Path) -> None:
    first, rest = split_after_merges(20)
    source = HeldSource(first, rest)
    seen: list[Message] = []
    pushed: list[object] = []
    app = app_with(source, tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")  # trains story.txt; the app shows the dashboard
        await pilot.pause()
        assert app.training.running
        await pilot.press("4", "slash")
        boundaries = app.screen
        assert isinstance(boundaries, BoundariesScreen)
        field = boundaries.query_one("#boundaries-input", TextArea)
        assert app.focused is field
        original_push = app.push_screen

        def recording_push(screen, *args, **kwargs):
            pushed.append(screen)
            return original_push(screen, *args, **kwargs)

        app.push_screen = recording_push  # type: ignore[method-assign]
        await pilot.press(*"the village")
        source.release.set()  # the run finishes mid-sentence
        await settle(pilot)
        assert [m for m in seen if isinstance(m, TrainingRunner.Finished)]
        await pilot.press(*" was quiet", "enter")
        await settle(pilot)
        # Every key went to the workbench, Enter as a new line: no dialog, no file.
        assert field.text == "the village was quiet\n"
        assert app.screen is boundaries and pushed == []
        assert not [m for m in seen if isinstance(m, BpeTuiApp.Saved)] and list(tmp_path.iterdir()) == []
        assert any("ctrl+s saves it" in text for text in notifications(seen))


async def test_ctrl_s_saves_from_any_pane_even_while_typing(tmp_path: Path) -> None:
    first, rest = split_after_merges(20)
    source = HeldSource(first, rest)
    source.release.set()
    seen: list[Message] = []
    app = app_with(source, tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        finished = [m for m in seen if isinstance(m, TrainingRunner.Finished)]
        assert len(finished) == 1
        await pilot.press("4", "slash", *"abc", "ctrl+s")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, PathDialog)
        assert dialog.query_one(Input).value == str(tmp_path / "story-400.json")
        await pilot.press("ctrl+s")  # a second ctrl+s in the dialog opens no second dialog
        await pilot.pause()
        assert app.screen is dialog
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, BoundariesScreen)
        assert app.screen.query_one("#boundaries-input", TextArea).text == "abc"
        await pilot.press("escape", "5", "ctrl+s")  # from the inspector, focus on its table
        await pilot.pause()
        assert isinstance(app.screen, PathDialog)
        await pilot.press("enter")
        await settle(pilot)
        saved = [m for m in seen if isinstance(m, BpeTuiApp.Saved)]
        assert len(saved) == 1 and load_tokenizer(saved[0].path).merges == finished[0].model.merges


async def test_saving_after_a_stop_writes_the_merges_so_far_recorded_as_stopped(tmp_path: Path) -> None:
    first, rest = split_after_merges(40)
    source = HeldSource(first, rest)  # never released: the run is still merging when the user stops it
    seen: list[Message] = []
    app = held_app(source, corpus_root=tmp_path, train_on_start=True)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        # The start-up run (same recorded events, held too) is replaced by ctrl+t: that tokenizer must not
        # be what a later ctrl+s writes. (No settle here: the held run's worker lasts until it is stopped.)
        await pilot.pause()
        assert app.training.running
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen) and app.training.running
        startup = [m for m in seen if isinstance(m, TrainingRunner.Stopped)]
        assert len(startup) == 1  # ctrl+t replaced the start-up run
        await pilot.press("s")
        await settle(pilot)
        stopped = [m for m in seen if isinstance(m, TrainingRunner.Stopped) and m.run == app.training.run]
        assert len(stopped) == 1 and stopped[0].merges_done == 40
        assert any("Stopped after 40 merges; ctrl+s saves them" in text for text in notifications(seen))
        await pilot.press("ctrl+s")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, PathDialog)
        # 256 bytes + 1 special + 40 merges: the name says what the file holds.
        assert dialog.query_one(Input).value == str(tmp_path / "story-297.json")
        assert "(stopped)" in str(dialog.query_one("#path-title", Label).content)
        await pilot.press("enter")
        await settle(pilot)
    saved = load_tokenizer(tmp_path / "story-297.json")
    shown = [(m.left, m.right) for m in app.training.merges]
    assert len(shown) == 40 and saved.merges == shown
    assert saved.merge_counts == [m.count for m in app.training.merges]
    assert saved.special_tokens == ["<|endoftext|>"]
    assert saved.training is not None and saved.training.stopped_after == 40
    assert saved.training.vocab_size == app.training.spec.vocab_size
    assert saved.training.corpus_path == str(CORPUS_ROOT / "story.txt")
    assert saved.training.corpus_sha256 and saved.training.corpus_bytes == (CORPUS_ROOT / "story.txt").stat().st_size
    # The stopped tokenizer joined the session without displacing the active one.
    assert app.session.tokenizers[-1].model.merges == shown


async def test_a_stop_before_any_merge_leaves_nothing_to_save(tmp_path: Path) -> None:
    first, _ = split_after_merges(1)
    source = HeldSource(first[:-1])  # reading and counting done, no merge yet
    seen: list[Message] = []
    app = app_with(source, tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+s")  # nothing trained yet: says so
        await pilot.pause()
        assert not isinstance(app.screen, PathDialog)
        await pilot.press("ctrl+t")
        await pilot.pause()
        await pilot.press("s")
        await settle(pilot)
        assert app.training.trained is None and app.session.tokenizers == []
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
    texts = notifications(seen)
    assert any("nothing to save" in text for text in texts)
    assert sum("No trained tokenizer to save yet" in text for text in texts) == 2


async def test_a_failed_save_names_the_path_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The notice read "/sys/x.json: cannot write /sys/x.json: permission denied; ...": the core's message
    # names the path already. A folder root may write to but the file system refuses is faked here.
    def refused(model, path, *, format):
        raise OutputError(f"cannot write {path}: permission denied; write to a folder you may write to")

    monkeypatch.setattr(core.formats, "save_tokenizer", refused)
    first, rest = split_after_merges(20)
    source = HeldSource(first, rest)
    source.release.set()
    seen: list[Message] = []
    app = app_with(source, tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, PathDialog)
        await pilot.press("enter")
        await settle(pilot)
    target = tmp_path / "story-400.json"  # the dialog's default name
    assert f"cannot write {target}: permission denied; write to a folder you may write to" in notifications(seen)
