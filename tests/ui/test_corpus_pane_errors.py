"""The corpus pane's message for a file it cannot use names the path once, in one line, with the fix."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest
from textual.content import Content
from textual.message import Message
from textual.notifications import Notify
from textual.widgets import DirectoryTree, Static

from bpe_tui.screens.corpus import CorpusScreen
from bpe_tui.widgets.corpus_stats import CorpusStatsView
from core.formats import save_tokenizer
from tests.ui.app_harness import SIZE, app_on_corpus, recorded_run, settle


def unusable(kind: str, folder: Path) -> tuple[Path, str]:
    """A corpus path of ``kind`` and the words its message must hold."""
    if kind == "fifo":
        path = folder / "pipe.txt"
        os.mkfifo(path)
        return path, "is a named pipe (FIFO), not a regular file; copy its content to a regular file first"
    if kind == "folder":
        path = folder / "texts.txt"
        path.mkdir()
        # A folder is a corpus of shards; this one holds none.
        return path, ("the folder holds no corpus shard (.txt, .jsonl, .json, .parquet or .arrow, optionally .gz, .bz2, "
                      ".xz or .zst); give a folder of shards or a file")
    if kind == "gzip":  # the pane said 'not valid UTF-8 ...: training refuses it unless errors is replace'
        path = folder / "web.txt"
        path.write_bytes(gzip.compress(b"some text\n" * 100))
        return path, "holds gzip-compressed data, though its name does not end in .gz; rename it 'web.txt.gz'"
    return folder / "gone.txt", "no such file; check the path"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("kind", ["fifo", "folder", "missing", "gzip"])
async def test_a_file_that_cannot_be_used_is_named_once(kind: str, tmp_path: Path) -> None:
    path, words = unusable(kind, tmp_path)
    seen: list[Message] = []
    app = app_on_corpus(path, tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        shown = str(app.screen.query_one(CorpusStatsView).content)
        assert shown == f"{path}: {words}"
        await pilot.press("ctrl+t")  # training it is refused with the same line
        await settle(pilot)
    refusals = [m.notification.message for m in seen if isinstance(m, Notify) and m.notification.severity == "error"]
    assert refusals == [f"{path}: {words}"]


async def test_a_corpus_name_is_shown_as_typed(tmp_path: Path) -> None:
    # "[bold]" would be read as markup (and vanish); ESC would reach the terminal as it is.
    path = tmp_path / "[bold]odd\x1b[2J.txt"
    path.write_text("some text\n", encoding="utf-8")
    app = app_on_corpus(path, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        title = app.screen.query_one("#preview-box").border_title  # as markup, the form Textual keeps it in
        assert Content.from_markup(str(title)).plain == r"Preview · [bold]odd\x1b[2J.txt"


async def test_the_tree_shows_file_names_as_typed(tmp_path: Path) -> None:
    # The tree wrote names raw: ESC reached the terminal, and a byte that is not UTF-8 broke the row's width.
    (tmp_path / "[bold]odd\x1b[31m.txt").write_text("some text\n", encoding="utf-8")
    (tmp_path / os.fsdecode(b"bad\xffname.txt")).write_text("some text\n", encoding="utf-8")
    app = app_on_corpus(None, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one("#tree", DirectoryTree)
        labels = sorted(node.label.plain for node in tree.root.children)
        assert labels == [r"[bold]odd\x1b[31m.txt", r"bad\xffname.txt"]


async def test_a_stale_scan_failure_leaves_the_chosen_files_stats(tmp_path: Path) -> None:
    # Walking the tree fast past a file that cannot be read (a tokenizer .json read as JSON lines) left its
    # error over the stats of the file the cursor stopped on: the cancelled scan still posted its failure.
    good = tmp_path / "good.txt"
    good.write_text("plain text\n", encoding="utf-8")
    app = app_on_corpus(good, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert str(screen.query_one(CorpusStatsView).content).startswith("good.txt")
        screen.post_message(CorpusScreen.ScanFailed(tmp_path / "passed.json", "passed.json: not valid JSON"))
        await settle(pilot)
        assert str(screen.query_one(CorpusStatsView).content).startswith("good.txt")


async def test_a_tokenizer_file_chosen_as_corpus_says_so(tmp_path: Path) -> None:
    # A tokenizer .json is read as JSON lines, and its error said "fix the record or skip bad records".
    path = tmp_path / "tok.json"
    save_tokenizer(recorded_run()[-1].model, path, format="hf")  # type: ignore[attr-defined]
    app = app_on_corpus(path, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = str(app.screen.query_one(CorpusStatsView).content)
        assert shown == f"{path}: is a tokenizer file, not a corpus; ctrl+o opens it as a tokenizer"


async def test_a_corpus_name_is_written_out_in_stats_study_and_stepper(tmp_path: Path) -> None:
    # The stats line, the study header and the stepper's top line wrote the name raw: ESC reached the terminal.
    path = tmp_path / "esc\x1b[31mred.txt"
    path.write_text("low lower newest\n" * 20, encoding="utf-8")
    written = r"esc\x1b[31mred.txt"
    app = app_on_corpus(path, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert str(app.screen.query_one(CorpusStatsView).content).startswith(f"{written}  ")
        await pilot.press("8")
        await settle(pilot)
        assert f"corpus: {written} " in str(app.screen.query_one("#study-header", Static).render())
        await pilot.press("3", "c", "c", "c")  # the stepper's sources: english, japanese, the corpus
        await settle(pilot)
        assert f"live training on {written}" in str(app.screen.query_one("#stepper-top", Static).render())


def test_a_utf16_corpus_is_named_with_its_fix(tmp_path: Path) -> None:
    """The pane said 'training refuses it unless errors is 'replace'' of a UTF-16 file, which trains on noise."""
    from bpe_tui.widgets.corpus_stats import stats_content
    from core.analysis.corpus_stats import corpus_stats

    path = tmp_path / "ja16.txt"
    path.write_bytes("吾輩は猫である。".encode("utf-16"))
    shown = stats_content(corpus_stats(path)).plain
    assert "UTF-16 byte-order mark: convert it to UTF-8" in shown and "replace" not in shown
    path.write_bytes("吾輩は猫である。".encode("shift_jis"))
    shown = stats_content(corpus_stats(path)).plain
    assert "looks like Shift_JIS, not UTF-8: convert it" in shown and "replace" not in shown


async def test_the_preview_writes_presentation_selectors_out(tmp_path: Path) -> None:
    # tmux draws ❤️ one cell wide where Rich counts two, so the preview box's right border moved on that line.
    path = tmp_path / "chat.txt"
    path.write_text("I ❤\ufe0f it ☺\ufe0e\n", encoding="utf-8")
    app = app_on_corpus(path, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = str(app.screen.query_one("#preview", Static).content)
    assert shown == "I ❤\\ufe0f it ☺\\ufe0e\n"
