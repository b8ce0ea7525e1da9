"""Opening files: ``bpe-tui PATH...`` arguments, the open dialog, and bad files becoming notifications."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from textual.message import Message
from textual.notifications import Notify
from textual.widgets import Input

from bpe_tui import launch
from bpe_tui.app import BpeTuiApp
from bpe_tui.launch import launch_app, sort_paths
from bpe_tui.screens.path_dialog import PathDialog
from core.formats import save_tokenizer
from tests.ui.app_harness import CORPUS_ROOT, SAMPLES, SIZE, make_app, make_session, recorded_run, settle


@pytest.fixture
def tokenizer_file(tmp_path: Path) -> Path:
    path = tmp_path / "english-400.json"
    save_tokenizer(recorded_run()[-1].model, path, format="bpe-tui")  # type: ignore[attr-defined]
    return path


def notices(seen: list[Message], severity: str) -> list[str]:
    return [m.notification.message for m in seen if isinstance(m, Notify) and m.notification.severity == severity]


def test_missing_path_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert launch_app(["/no/such/file.txt"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such file" in err and "Traceback" not in err


def test_unknown_option_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert launch_app(["--frobnicate"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bpe-tui: error:")


def test_unknown_theme_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert launch_app(["--no-train", "--theme", "no-such-theme"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no-such-theme" in err and "textual-dark" in err


def test_paths_are_sorted_into_tokenizers_and_corpora(tokenizer_file: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json", encoding="utf-8")
    tokenizers, corpora = sort_paths([tokenizer_file, SAMPLES / "english.txt", broken, tmp_path])
    assert tokenizers == [tokenizer_file.resolve(), broken.resolve(), tmp_path.resolve()]
    assert corpora == [(SAMPLES / "english.txt").resolve()]


def test_launch_builds_the_app_from_arguments(monkeypatch: pytest.MonkeyPatch, tokenizer_file: Path) -> None:
    built: list[BpeTuiApp] = []
    monkeypatch.setattr(BpeTuiApp, "run", lambda self, *a, **k: built.append(self))
    monkeypatch.setattr(launch, "terminal_problem", lambda *streams: None)  # as in a terminal
    assert launch_app([str(tokenizer_file), str(CORPUS_ROOT / "story.txt"), "--theme", "textual-light"]) == 0
    app = built[0]
    assert app._tokenizer_paths == [tokenizer_file.resolve()]
    assert app.session.corpus_path == (CORPUS_ROOT / "story.txt").resolve()
    assert not app._train_on_start  # a tokenizer was given: no start-up run
    assert app.theme == "textual-light"
    assert launch.TOKENIZER_SUFFIXES  # the rule is documented in one place


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("stdin", "stderr", "term", "names"),
    [
        (io.StringIO(), io.StringIO(), "xterm-256color", "stdin and stderr are not one"),  # a notebook's !bpe-tui
        (io.StringIO(), Terminal(), "xterm-256color", "stdin is not one"),  # echo text | bpe-tui
        (Terminal(), Terminal(), "dumb", "TERM=dumb"),  # Emacs' M-x shell
    ],
    ids=["no terminal", "piped stdin", "dumb"],
)
def test_without_a_terminal_the_app_says_so_instead_of_waiting(
    monkeypatch: pytest.MonkeyPatch, stdin: io.StringIO, stderr: io.StringIO, term: str, names: str
) -> None:
    started: list[BpeTuiApp] = []
    monkeypatch.setattr(BpeTuiApp, "run", lambda self, *a, **k: started.append(self))
    monkeypatch.setattr("sys.stdin", stdin)
    monkeypatch.setenv("TERM", term)
    monkeypatch.setattr("sys.stderr", stderr)
    assert launch_app(["--no-train"]) == 2
    assert not started
    err = stderr.getvalue()
    assert err.count("\n") == 1 and err.startswith("bpe-tui: error:") and names in err


async def test_tokenizer_from_the_command_line_is_loaded(tokenizer_file: Path) -> None:
    seen: list[Message] = []
    app = make_app(tokenizer_paths=[tokenizer_file], start_mode="stepper")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        loaded = app.session.active_tokenizer()
        assert loaded is not None and loaded.source == tokenizer_file
        assert loaded.model.merges == recorded_run()[-1].model.merges  # type: ignore[attr-defined]
        assert not notices(seen, "error")


async def test_two_files_of_one_stem_get_names_told_apart(tokenizer_file: Path, tmp_path: Path) -> None:
    # english-400.json and english-400.tiktoken were both "english-400" in lists and the compare header.
    ranks = tmp_path / "english-400.tiktoken"
    save_tokenizer(recorded_run()[-1].model, ranks, format="tiktoken")  # type: ignore[attr-defined]
    app = make_app(tokenizer_paths=[tokenizer_file, ranks], start_mode="stepper")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        loaded = [loaded for loaded in app.session.tokenizers if loaded.source in (tokenizer_file, ranks)]
        assert len(loaded) == 2 and loaded[0].name != loaded[1].name
        # The two load side by side: the one that arrives second takes its file's whole name.
        assert all(each.name in ("english-400", each.source.name) for each in loaded if each.source)


@pytest.mark.parametrize(
    "content",
    [b"{ not json", b"\x89PNG\r\n\x1a\n....", b'{"type": "bpe-tui", "version": 1}', b""],
    ids=["corrupt", "png", "incomplete", "empty"],
)
async def test_a_bad_tokenizer_file_is_a_notification_not_a_crash(tmp_path: Path, content: bytes) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    seen: list[Message] = []
    app = make_app(tokenizer_paths=[bad], start_mode="stepper")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        assert notices(seen, "error"), "expected an error notification"
        assert app.session.tokenizers == []
        await pilot.press("1")  # still alive and responding
        await pilot.pause()
        assert app.current_mode == "corpus"


async def test_open_dialog_loads_a_file_and_rejects_a_missing_one(tokenizer_file: Path) -> None:
    seen: list[Message] = []
    app = make_app(session=make_session(), start_mode="stepper")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, PathDialog)
        dialog.query_one(Input).value = str(tokenizer_file.parent / "missing.json")
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog  # stays open and says why
        dialog.query_one(Input).value = str(tokenizer_file)
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, PathDialog)
        assert [t.source for t in app.session.tokenizers] == [tokenizer_file]
        await pilot.press("ctrl+o")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, PathDialog) and len(app.session.tokenizers) == 1


async def test_names_with_markup_characters_are_shown_as_text(tmp_path: Path, tokenizer_file: Path) -> None:
    bad = tmp_path / "[bold]bad[red].json"
    bad.write_text("{ not json", encoding="utf-8")
    good = tmp_path / "[red]good[x].json"
    good.write_bytes(tokenizer_file.read_bytes())
    seen: list[Message] = []
    app = make_app(tokenizer_paths=[bad, good], start_mode="stepper")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        assert any("[bold]bad[red].json" in message for message in notices(seen, "error"))
        assert any("[red]good[x]" in message for message in notices(seen, "information"))
        assert "[red]good[x]" in app.sub_title
        await pilot.press("ctrl+p")  # the palette lists the tokenizer by name, brackets and all
        await pilot.pause(0.3)
        await pilot.press("escape")
        await pilot.pause()
        assert app.is_running


async def test_open_dialog_explains_an_impossible_path(tmp_path: Path) -> None:
    app = make_app(session=make_session(), start_mode="stepper")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o")
        await pilot.pause()
        dialog = app.screen
        dialog.query_one(Input).value = str(tmp_path / ("x" * 400))
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog and app.is_running


async def test_the_samples_tree_lists_the_corpora_but_not_the_gpt2_tokenizer() -> None:
    from bpe_tui.screens.corpus import CorpusTree
    from tests.ui.app_harness import tree_loaded

    app = make_app(session=make_session())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await tree_loaded(pilot)
        await pilot.press("s")
        tree = app.screen.query_one(CorpusTree)
        for _ in range(200):  # the tree lists its new root in its own worker
            names = {child.data.path.name for child in tree.root.children if child.data is not None}
            if tree.path == SAMPLES and "english.txt" in names and not tree.loading:
                break
            await pilot.pause(0.02)
        assert (SAMPLES / "gpt2" / "vocab.json").is_file()  # the folder is there, and not listed
        assert {"english.txt", "japanese.txt", "mixed.txt", "toy.txt"} <= names and "gpt2" not in names
        assert "word_counts.txt" not in names  # a lens's word-frequency file, not a corpus
        assert "parallel.txt" not in names  # the budget lens's sentence pair, not a corpus
