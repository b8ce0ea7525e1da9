"""Reference tokenizers in the app: GPT-2 beside the first trained tokenizer, tiktoken's cached encodings by name."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Static

from bpe_tui.launch import sort_paths
from bpe_tui.screens.compare import CompareScreen
from bpe_tui.screens.path_dialog import PathDialog
from tests.core.encode.tokenizer_cases import tiktoken_gpt2
from tests.core.formats.test_tiktoken_cache import fake_cache
from tests.ui.app_harness import make_app, make_session, settle


async def test_first_run_of_compare_shows_the_trained_tokenizer_beside_gpt2() -> None:
    app = make_app(session=make_session(), train_on_start=True, start_mode="dashboard", reference_on_start=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        names = [loaded.name for loaded in app.session.tokenizers]
        assert len(names) == 2 and "gpt2" in names
        active = app.session.active_tokenizer()
        assert active is not None and active.name != "gpt2"  # GPT-2 joins without taking the trained one's place
        gpt2 = app.session.tokenizers[names.index("gpt2")]
        assert gpt2.tokenizer.encode("Hello, world") == tiktoken_gpt2().encode_ordinary("Hello, world")
        await pilot.press("6")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        header = screen.query_one("#compare-header", Static).render_line(0).text  # as shown: long names are cut
        assert f" A  {active.name[:30]}" in header and " B  gpt2" in header
        assert "nothing to compare" not in str(screen.query_one("#compare-view").render())


async def test_a_cached_encoding_opens_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    environ, _ = fake_cache(tmp_path, monkeypatch)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", environ["TIKTOKEN_CACHE_DIR"])
    app = make_app(start_mode="inspector")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert "cl100k_base" in app.reference_tokenizers() and "o200k_base" not in app.reference_tokenizers()
        await pilot.press("ctrl+o")
        dialog = app.screen
        assert isinstance(dialog, PathDialog)
        assert "or cl100k_base by name" in str(dialog.query_one("#path-title").render())
        dialog.query_one(Input).value = "cl100k_base"
        await pilot.press("enter")
        await settle(pilot)
        active = app.session.active_tokenizer()
        assert active is not None and active.name == "cl100k_base"
        assert active.model.special_tokens == ["<|endoftext|>", "<|fim_prefix|>"]


async def test_an_encoding_not_in_the_cache_is_a_notification(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    app = make_app(start_mode="inspector", tokenizer_paths=[Path("o200k_base")])
    seen: list[object] = []
    async with app.run_test(size=(100, 30), message_hook=seen.append) as pilot:
        await settle(pilot)
        assert app.session.tokenizers == []
        messages = [getattr(m, "notification", None) for m in seen]
        texts = [n.message for n in messages if n is not None]
        assert any("o200k_base is not in tiktoken's cache" in text and "never downloads" in text for text in texts)


def test_the_launcher_takes_a_reference_name_as_a_tokenizer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    tokenizers, corpora = sort_paths([Path("cl100k_base")])
    assert tokenizers == [Path("cl100k_base")] and corpora == []
    (tmp_path / "o200k_base").write_text("some text", encoding="utf-8")  # a file of that name is a file
    tokenizers, corpora = sort_paths([Path("o200k_base")])
    assert tokenizers == [] and corpora == [tmp_path / "o200k_base"]


async def test_ctrl_o_on_an_encoding_not_in_the_cache_says_how_to_cache_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The dialog only knew the cached names, so "cl100k_base" was a path: "cl100k_base: no such file".
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    app = make_app(start_mode="inspector")
    seen: list[object] = []
    async with app.run_test(size=(100, 30), message_hook=seen.append) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o")
        dialog = app.screen
        assert isinstance(dialog, PathDialog)
        assert "by name" not in str(dialog.query_one("#path-title").render())  # none is cached
        dialog.query_one(Input).value = "cl100k_base"
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, PathDialog)
        texts = [n.message for n in (getattr(m, "notification", None) for m in seen) if n is not None]
        assert any("cl100k_base is not in tiktoken's cache" in text and "never downloads" in text for text in texts)
