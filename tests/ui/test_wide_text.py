"""Text a terminal lays out differently from plain Latin, seen in the real app at fixed sizes: every line the
app draws must take exactly the cells it was given, counted as a terminal counts them.

``bpe_tui.text.cell_width`` is that count (glibc's ``wcwidth``, as xterm, VTE and tmux use): a kanji takes
two cells, a nonspacing mark none, a spacing mark such as the Devanagari vowel sign ``ि`` one.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual import events
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input, Static

from bpe_tui.screens.inspector import InspectorScreen
from bpe_tui.screens.stepper import StepperScreen
from bpe_tui.session import LoadedTokenizer
from bpe_tui.text import cell_width
from bpe_tui.widgets.progress_panel import ProgressPanel
from bpe_tui.widgets.token_view import TokenView
from bpe_tui.widgets.vocab_table import VocabTable
from core.formats import save_tokenizer
from core.train.run import TrainingRun
from tests.ui.app_harness import make_app, make_session, recorded_run, settle
from tests.ui.test_workbench import gpt2
from tests.ui.views_harness import ViewsApp, session_with

HINDI = "हिन्दी भारत की राजभाषा है। यह देवनागरी लिपि में लिखी जाती है। हिन्दी विश्व की प्रमुख भाषाओं में से एक है। "
"""Devanagari, with spacing vowel signs (ि ा ी ो) that each take a cell on a terminal."""

SKIN_TONES = "thumbs 👍🏽 up 👋🏿 " * 12
"""Emoji with skin tones, which wcwidth (and tmux) draw as two wide characters."""


@cache
def trained_on(text: str) -> LoadedTokenizer:
    """A small tokenizer trained on ``text``: its characters are whole tokens, not bytes drawn in hex."""
    run = TrainingRun.from_text(text * 4, 400, [], workers=1)
    for _ in run.events():
        pass
    return LoadedTokenizer.from_model(run.result(), name="trained-400")


async def paste_into_workbench(app: App, pilot: Pilot, text: str) -> None:
    """Paste ``text`` into the workbench's field, leave it, and wait until its tokens are drawn."""
    await pilot.press("slash")
    app.post_message(events.Paste(text))
    await pilot.pause()
    await pilot.press("escape")
    await settle(pilot)


def workbench_lines(app: App) -> tuple[int, list[str]]:
    """The main token view's width and the text of each of its lines as drawn."""
    view = app.screen.query_one("#boundaries-tokens", TokenView)
    region = view.scrollable_content_region
    return region.width, [view.render_line(y).text for y in range(region.height)]


@pytest.mark.parametrize("text", [HINDI * 3, SKIN_TONES], ids=["vowel signs", "skin tones"])
async def test_the_workbench_fills_each_line_and_never_runs_under_the_border(text: str) -> None:
    # Rich counted a spacing mark as no cell and 👍🏽 as two, where wcwidth (and tmux) count one and four, so
    # each folded line was wider on the terminal than the view: its end was drawn under the border, hidden.
    app = make_app(session=session_with(trained_on(text)), start_mode="boundaries")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await paste_into_workbench(app, pilot, text)
        width, lines = workbench_lines(app)
        drawn = [line for line in lines if line.strip()]
        assert len(drawn) >= 3
        assert [cell_width(line) for line in lines] == [width] * len(lines)


async def test_vocabulary_rows_with_vowel_signs_keep_their_columns() -> None:
    # Each vowel sign in a token pushed the rest of its row (length, rank, count, parents) a cell right.
    app = ViewsApp(InspectorScreen, session_with(trained_on(HINDI)))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        app.screen.query_one(Input).value = "e0 a4"  # tokens of Devanagari bytes: its vowel signs first
        await pilot.pause(0.3)
        await settle(pilot)
        table = app.screen.query_one(VocabTable)
        header = table.render_line(0).text
        rows = [table.render_line(y).text for y in range(1, table.scrollable_content_region.height)]
        marked = [row for row in rows if any(unicodedata.category(ch) == "Mc" for ch in row)]
        assert len(marked) == 2  # ा and ि (ी is e0 a5 80): GPT-2's pattern cuts words before vowel signs
        assert {cell_width(row) for row in marked} == {cell_width(header)}


async def test_emoji_in_the_workbench_take_the_same_cells_in_every_terminal() -> None:
    # ❤️ is one cell in xterm, VTE and tmux, two in kitty and in Rich's count, and the fold counted one: a
    # line holding a few was cut at the view's edge, its last characters never drawn.
    app = make_app(session=session_with(gpt2()), start_mode="boundaries")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await paste_into_workbench(app, pilot, "I ❤️ tokens, ✔️ done ☀️ " * 12)
        width, lines = workbench_lines(app)
        assert "\\ufe0f" in lines[0]
        assert [(cell_len(line), cell_width(line)) for line in lines] == [(width, width)] * len(lines)


async def test_a_long_token_leaves_room_for_its_ranges_in_the_detail_line() -> None:
    # The detail line wrapped before a token longer than what was left of it, onto a second line the pane
    # has no room for: a rule of 120 '=' (or a long run of kanji) showed "token 1/2  id 263" and nothing else.
    app = make_app(session=session_with(trained_on("=" * 120 + "\n")), start_mode="boundaries")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await paste_into_workbench(app, pilot, "=" * 120 + "\n")
        view = app.screen.query_one("#boundaries-tokens", TokenView)
        assert len(view.tokens[0].token) == 120
        detail = app.screen.query_one("#token-detail", Static)
        shown = detail.render_line(0).text
        assert shown.startswith("token 1/2  id ") and "=" * 20 + "…" in shown
        assert "chars 0–120  bytes 0–120: 3d 3d" in shown and shown.endswith("…")
        assert cell_width(shown) == 78


async def test_a_name_with_an_emoji_presentation_selector_has_it_written_out(tmp_path: Path) -> None:
    # A file named "❤️ tokens.json": tmux draws ❤️ a cell narrower than the app counted, so the header and the
    # corpus pane's boxes (whose titles hold the name) were drawn out of line.
    path = tmp_path / "❤️ tokens.json"
    save_tokenizer(recorded_run()[-1].model, path, format="bpe-tui")  # type: ignore[attr-defined]
    app = make_app(session=make_session(), tokenizer_paths=[path], start_mode="inspector")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.sub_title == "active: ❤\\ufe0f tokens"


class PanelApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ProgressPanel()


async def test_a_long_longest_token_leaves_room_for_its_length() -> None:
    # The line wrapped before a token longer than the rest of it, onto a second line it has no room for: a
    # run of 300 kanji showed "longest token:" and nothing more.
    app = PanelApp()
    async with app.run_test(size=(80, 10)) as pilot:
        panel = app.query_one(ProgressPanel)
        panel.show_longest("長い行".encode() * 100)
        await pilot.pause()
        shown = panel.query_one("#longest", Static).render_line(0).text
        assert shown.startswith("longest token: 長い行長い行") and "…  (900 bytes: e9 95 b7" in shown
        assert cell_width(shown) == 76


RULES = "=" * 256 + "\n" + "-" * 256 + "\n"
"""Two rules of equal length: their runs merge in ties up to tokens of 256 bytes."""


async def test_a_merge_of_long_tokens_is_told_in_a_few_lines(tmp_path: Path) -> None:
    # The merge line held the two tokens and their merge whole, and a tie's reason their whole byte strings:
    # at 80x24 a merge of two 128-byte rules took the whole screen, the candidates and the sentence pushed off.
    corpus = tmp_path / "rules.txt"
    corpus.write_text(RULES * 3, encoding="utf-8")
    app = make_app(session=make_session(corpus), start_mode="stepper")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("c", "c", "c")  # toy -> english -> japanese -> the corpus
        await settle(pilot)
        await pilot.press("end")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, StepperScreen) and screen.source == "corpus"
        await pilot.press("left")  # the merge of the two 128-byte '=' tokens, a tie with the '-' ones
        await settle(pilot)
        merge = screen.shown.merge
        assert merge is not None and len(merge.token) == 256 and merge.won_tie
        top_lines = str(screen.query_one("#stepper-top", Static).render()).splitlines()
        assert top_lines[2].startswith("tie: equal counts: the greater pair wins; left ")
        assert "=…" in top_lines[1] and "'…" in top_lines[2]
        assert screen.query_one("#stepper-top").size.height <= 5
        assert screen.query_one("#candidates").size.height >= 8


async def test_compare_names_every_tokenizer_it_compares_within_80_columns() -> None:
    # The header held the names whole and wrapped: with two long names B's went onto a second line the
    # header has no room for, so nothing said which tokenizer B was.
    first = LoadedTokenizer.from_model(trained_on(HINDI).model, name="日本語とヒンディー語のコーパスで学習したトークナイザー")
    second = LoadedTokenizer.from_model(trained_on(SKIN_TONES).model, name="trained: samples (english + japanese) 1000")
    app = make_app(session=session_with(first, second), start_mode="compare")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        header = app.screen.query_one("#compare-header", Static)
        shown = header.render_line(0).text
        assert " A  日本語と" in shown and " B  trained:" in shown
        assert cell_width(shown) <= 78


async def test_a_lone_combining_mark_in_the_vocabulary_sits_on_a_dotted_circle() -> None:
    # A token that is a lone virama (्) was drawn on the gap before the token column: no cell of its own,
    # nothing the cursor could show, and it could not be seen for what it was.
    app = ViewsApp(InspectorScreen, session_with(trained_on(HINDI)))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        app.screen.query_one(Input).value = "e0 a5 8d"  # the virama's bytes
        await pilot.pause(0.3)
        await settle(pilot)
        table = app.screen.query_one(VocabTable)
        rows = [table.render_line(y).text for y in range(1, table.row_count + 1)]
        lone = [row for row in rows if row.split()[1:2] == ["◌\u094d"]]
        assert len(lone) == 1 and cell_width(lone[0]) == cell_width(table.render_line(0).text)


async def test_the_study_header_names_a_long_corpus(tmp_path: Path) -> None:
    # The header wrapped before a name longer than the rest of its line, onto a second line it has no room
    # for: it read "study  corpus:" and nothing more.
    corpus = tmp_path / ("青空文庫の作品を集めたコーパス_" * 3 + ".txt")
    corpus.write_text("日本語の文。\n", encoding="utf-8")
    app = make_app(session=make_session(corpus), start_mode="study")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        shown = app.screen.query_one("#study-header", Static).render_line(0).text
        assert shown.startswith("study  corpus: 青空文庫の作品を集めた") and shown.endswith("…")
