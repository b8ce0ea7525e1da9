"""The app's save never replaces a file unasked: an existing file takes a second Enter, after the dialog
says so; editing the path or esc keeps the file; the corpus the tokenizer was trained on is never replaced."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.message import Message
from textual.widgets import Button, Input, Static

from bpe_tui.app import BpeTuiApp
from bpe_tui.screens import path_dialog
from bpe_tui.screens.path_dialog import PathDialog
from bpe_tui.training_runner import TrainingRunner
from core.formats import load_tokenizer
from tests.ui.app_harness import (
    SIZE,
    HeldSource,
    held_app,
    held_factory,
    make_app,
    make_services,
    make_session,
    settle,
    split_after_merges,
)

OLD = b"my notes, not a tokenizer\n"


async def trained_and_asked(pilot, seen: list[Message]) -> PathDialog:
    """Train (the held run finishes at once), press ctrl+s, and return the save dialog."""
    await settle(pilot)
    await pilot.press("ctrl+t")
    await settle(pilot)
    assert [m for m in seen if isinstance(m, TrainingRunner.Finished)]
    await pilot.press("ctrl+s")
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, PathDialog)
    return dialog


def released_app(folder: Path) -> BpeTuiApp:
    first, rest = split_after_merges(20)
    source = HeldSource(first, rest)
    source.release.set()
    return held_app(source, corpus_root=folder)


def saved(seen: list[Message]) -> list[Path]:
    return [m.path for m in seen if isinstance(m, BpeTuiApp.Saved)]


async def test_an_existing_file_is_replaced_only_after_a_second_enter(tmp_path: Path) -> None:
    target = tmp_path / "story-400.json"  # the dialog's default name
    target.write_bytes(OLD)
    seen: list[Message] = []
    app = released_app(tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        dialog = await trained_and_asked(pilot, seen)
        assert dialog.query_one(Input).value == str(target)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is dialog and target.read_bytes() == OLD and saved(seen) == []
        assert "exists. Enter again replaces it" in str(dialog.query_one("#path-error", Static).content)
        assert str(dialog.query_one("#path-accept", Button).label) == "Replace"
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, PathDialog) and saved(seen) == [target]
    finished = [m for m in seen if isinstance(m, TrainingRunner.Finished)][0]
    assert load_tokenizer(target).merges == finished.model.merges


async def test_editing_the_path_or_esc_keeps_the_file(tmp_path: Path) -> None:
    target = tmp_path / "story-400.json"
    target.write_bytes(OLD)
    other = tmp_path / "story-400.jsonx"
    other.write_bytes(OLD)
    seen: list[Message] = []
    app = released_app(tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        dialog = await trained_and_asked(pilot, seen)
        await pilot.press("enter")  # asked about story-400.json
        await pilot.pause()
        await pilot.press("x", "enter")  # now story-400.jsonx: a new question, not the old answer
        await settle(pilot)
        assert app.screen is dialog and saved(seen) == []
        assert "story-400.jsonx exists" in str(dialog.query_one("#path-error", Static).content)
        await pilot.press("backspace")  # back to the first name: asked again from the start
        await pilot.pause()
        assert str(dialog.query_one("#path-error", Static).content) == ""
        assert str(dialog.query_one("#path-accept", Button).label) == "Save"
        await pilot.press("enter", "escape")
        await settle(pilot)
        assert not isinstance(app.screen, PathDialog) and saved(seen) == []
    assert target.read_bytes() == OLD and other.read_bytes() == OLD


async def test_a_new_name_saves_at_once(tmp_path: Path) -> None:
    seen: list[Message] = []
    app = released_app(tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await trained_and_asked(pilot, seen)
        await pilot.press("enter")
        await settle(pilot)
        assert saved(seen) == [tmp_path / "story-400.json"]


async def test_the_corpus_it_was_trained_on_is_never_replaced(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(OLD)
    first, rest = split_after_merges(20)
    source = HeldSource(first, rest)
    source.release.set()
    services = make_services(source_factory=held_factory(source), corpus_root=tmp_path)
    seen: list[Message] = []
    app = make_app(session=make_session(corpus), services=services)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        dialog = await trained_and_asked(pilot, seen)
        assert app.training.trained is not None and app.training.trained.spec.corpus_path == corpus
        dialog.query_one(Input).value = str(corpus)
        await pilot.press("enter", "enter")  # even asked twice
        await settle(pilot)
        assert app.screen is dialog and saved(seen) == []
        assert "never replaced" in str(dialog.query_one("#path-error", Static).content)
        await pilot.press("escape")
    assert corpus.read_bytes() == OLD


async def test_a_folder_one_may_not_write_in_is_refused_in_the_dialog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It was refused only after the dialog had closed, by a notice: the typed path was gone, to type again.
    # Tests run as root, who may write in a chmod 555 folder, so the permission is faked.
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    monkeypatch.setattr(path_dialog.os, "access", lambda path, mode: Path(path) != locked and real_access(path, mode))
    seen: list[Message] = []
    app = released_app(tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        dialog = await trained_and_asked(pilot, seen)
        dialog.query_one(Input).value = str(locked / "tok.json")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is dialog and saved(seen) == []
        assert dialog.query_one(Input).value == str(locked / "tok.json")
        assert str(dialog.query_one("#path-error", Static).content) == (
            f"{locked}: you may not write in this folder; choose another"
        )


async def test_editing_the_path_takes_back_the_message_about_the_old_one(tmp_path: Path) -> None:
    seen: list[Message] = []
    app = released_app(tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        dialog = await trained_and_asked(pilot, seen)
        dialog.query_one(Input).value = str(tmp_path / "nowhere" / "tok.json")
        await pilot.press("enter")
        await settle(pilot)
        assert "no such folder" in str(dialog.query_one("#path-error", Static).content)
        await pilot.press("x")
        await pilot.pause()
        assert str(dialog.query_one("#path-error", Static).content) == ""


async def test_the_offered_name_holds_nothing_that_drives_the_terminal(tmp_path: Path) -> None:
    # The dialog's field shows the path as it is: an ESC in the corpus's name reached the terminal.
    corpus = tmp_path / "esc\x1b[31mred.txt"
    corpus.write_text("some text\n" * 20, encoding="utf-8")
    first, rest = split_after_merges(20)
    source = HeldSource(first, rest)
    source.release.set()
    services = make_services(source_factory=held_factory(source), corpus_root=tmp_path)
    seen: list[Message] = []
    app = make_app(session=make_session(corpus), services=services)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        dialog = await trained_and_asked(pilot, seen)
        assert dialog.query_one(Input).value == str(tmp_path / "esc_[31mred-400.json")
