"""Corpora from anywhere: the path box (~, Tab completion, recent files) and ctrl+o on a text file.

The recent-files list is always a file under tmp_path (through XDG_CONFIG_HOME or the app's services), never
the user's own; HOME points at tmp_path where ``~`` is typed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from bpe_tui.path_completion import complete_path
from bpe_tui.recent_files import MAX_RECENT, load_recent, recent_file, remember
from bpe_tui.screens.corpus_offer import CorpusOfferDialog
from bpe_tui.screens.path_dialog import PathDialog
from bpe_tui.widgets.path_box import PathBox
from tests.ui.app_harness import SAMPLES, app_on_corpus, make_app, make_services, ready, settle


def test_recent_files_live_under_xdg_config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    store = recent_file()
    assert store == tmp_path / "cfg" / "bpe-tui" / "recent.json"
    assert load_recent(store) == []
    files = [tmp_path / f"c{i}.txt" for i in range(MAX_RECENT + 2)]
    for path in files:
        remember(store, path)
    remember(store, files[3])  # used again: first, not twice
    kept = load_recent(store)
    assert kept[0] == files[3] and len(kept) == MAX_RECENT and len(set(kept)) == MAX_RECENT
    assert kept[1:4] == [files[-1], files[-2], files[-3]]
    assert json.loads(store.read_text(encoding="utf-8"))["corpora"][0] == str(files[3])


@pytest.mark.parametrize("content", ["{not json", '{"corpora": 3}', '["a"]', '{"corpora": [1, null, "", "/x.txt"]}'])
def test_a_damaged_recent_file_is_read_as_far_as_it_makes_sense(tmp_path: Path, content: str) -> None:
    store = tmp_path / "recent.json"
    store.write_text(content, encoding="utf-8")
    assert load_recent(store) == ([Path("/x.txt")] if "/x.txt" in content else [])


def test_completion_expands_tilde_but_keeps_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "corpora").mkdir()
    (tmp_path / "corpora" / "wiki_en.txt").write_text("x", encoding="utf-8")
    (tmp_path / "corpora" / "wiki_ja.txt").write_text("x", encoding="utf-8")
    (tmp_path / "corpora" / ".hidden.txt").write_text("x", encoding="utf-8")
    assert complete_path("~/cor").text == "~/corpora/"
    shared = complete_path("~/corpora/w")
    assert shared.text == "~/corpora/wiki_" and shared.matches == ("wiki_en.txt", "wiki_ja.txt")
    assert complete_path("~/corpora/wiki_j").text == "~/corpora/wiki_ja.txt"
    assert complete_path("~/corpora/").matches == ("wiki_en.txt", "wiki_ja.txt")  # no hidden files
    assert complete_path("~/corpora/.h").matches == (".hidden.txt",)
    assert complete_path("~/nowhere/x") .matches == ()


async def test_a_typed_path_with_tilde_and_tab_becomes_the_corpus_and_a_recent_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    corpus = tmp_path / "texts" / "my_corpus.txt"
    corpus.parent.mkdir()
    corpus.write_text("a corpus far from the working folder\n" * 20, encoding="utf-8")
    store = tmp_path / "cfg" / "recent.json"
    app = make_app(services=make_services(recent_store=store), start_mode="corpus")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("p", *"~/te", "tab", *"my", "tab")
        box = app.screen.query_one(PathBox)
        assert box.value == "~/texts/my_corpus.txt"
        await pilot.press("enter")
        await settle(pilot)
        assert app.session.corpus_path == corpus
        assert load_recent(store) == [corpus]
        await pilot.press("p")
        box.value = "~/texts/nothing_here"
        await pilot.press("enter")
        assert "no such file or folder" in str(app.screen.query_one("#corpus-path-hint", Static).render())
    # A new session finds it among the recent files: ↑ in the path box.
    app = make_app(services=make_services(recent_store=store), start_mode="corpus")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("p", "up")
        assert app.screen.query_one(PathBox).value == "~/texts/my_corpus.txt"


async def test_ctrl_o_on_an_english_text_offers_it_as_the_corpus(tmp_path: Path) -> None:
    store = tmp_path / "recent.json"
    app = make_app(services=make_services(recent_store=store), start_mode="inspector")
    seen: list[object] = []
    async with app.run_test(size=(100, 30), message_hook=seen.append) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o")
        assert isinstance(app.screen, PathDialog)
        app.screen.query_one(Input).value = str(SAMPLES / "english.txt")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, CorpusOfferDialog)
        texts = [n.message for n in (getattr(m, "notification", None) for m in seen) if n is not None]
        assert not [text for text in texts if "rank" in text]  # not reported as a bad rank file
        await pilot.press("enter")
        await settle(pilot)
        assert app.current_mode == "corpus"
        assert app.session.corpus_path == SAMPLES / "english.txt"
        assert load_recent(store) == [SAMPLES / "english.txt"]
        assert app.session.tokenizers == []


async def test_tab_goes_from_the_tree_to_the_form_past_a_long_preview(tmp_path: Path) -> None:
    # A preview taller than its box is scrollable, and was focusable: tab landed on it (nothing showed it),
    # and the vocab size typed next ("3...") switched to the stepper.
    long_text = tmp_path / "long.txt"
    long_text.write_text("a line of text\n" * 400, encoding="utf-8")
    app = app_on_corpus(long_text, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        assert app.focused is not None and app.focused.id == "tree"
        await pilot.press("tab")
        assert isinstance(app.focused, Input) and app.focused.id == "vocab"


async def test_tab_lists_matching_names_as_typed(tmp_path: Path) -> None:
    # The list under the path box wrote names raw: an ESC in one reached the terminal and broke the row.
    (tmp_path / "esc\x1b[31mred.txt").write_text("x\n", encoding="utf-8")
    (tmp_path / "empty.txt").write_text("x\n", encoding="utf-8")
    app = make_app(services=make_services(corpus_root=tmp_path), start_mode="corpus")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("p")
        app.screen.query_one(PathBox).value = f"{tmp_path}/e"
        await pilot.press("tab")
        await pilot.pause()
        hint = app.screen.query_one("#corpus-path-hint", Static).render()
        assert str(hint) == r"2: empty.txt  esc\x1b[31mred.txt"


async def test_ctrl_o_offer_and_its_notice_write_a_name_out(tmp_path: Path) -> None:
    # The offer and the "Corpus: ..." notice wrote the file's name raw: an ESC in it reached the terminal.
    text = tmp_path / "esc\x1b[31mred.txt"
    text.write_text("Some plain English text, far from any tokenizer format.\n" * 20, encoding="utf-8")
    app = make_app(services=make_services(recent_store=tmp_path / "recent.json"), start_mode="inspector")
    seen: list[object] = []
    async with app.run_test(size=(100, 30), message_hook=seen.append) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o")
        app.screen.query_one(Input).value = str(text)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, CorpusOfferDialog)
        assert str(app.screen.query_one("#offer-title").render()).startswith(r"esc\x1b[31mred.txt is plain text")
        await pilot.press("enter")
        await settle(pilot)
    texts = [n.message for n in (getattr(m, "notification", None) for m in seen) if n is not None]
    assert rf"Corpus: {tmp_path}/esc\x1b[31mred.txt" in texts
