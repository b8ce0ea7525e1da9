"""The text workbench (pane 4) in the real app: pasted code, live counts and coverage, copying, the Inspector.

GPT-2 (bundled in samples/gpt2) is the active tokenizer, so every number is checked against tiktoken's
GPT-2 encoding built from the same files, not against what the pane computed.
"""

from __future__ import annotations

import json
from functools import cache

from textual import events
from textual.widgets import Input, Static, TextArea

from bpe_tui.screens.boundaries import BoundariesScreen
from bpe_tui.screens.inspector import InspectorScreen
from bpe_tui.screens.windows_dialog import WindowsDialog
from bpe_tui.session import LoadedTokenizer
from bpe_tui.widgets.merge_tree import MergeTreeView
from bpe_tui.widgets.text_stats import TextStatsTable
from bpe_tui.widgets.token_view import TokenView
from bpe_tui.widgets.vocab_table import VocabTable
from core.formats import load_tokenizer
from tests.core.encode.tokenizer_cases import tiktoken_gpt2
from tests.data_paths import GPT2_DIR
from tests.ui.app_harness import make_app, settle
from tests.ui.views_harness import session_with

CODE = 'def area(r):\n\t"""Circle."""\n\tif r < 0:\n\t\traise ValueError(r)\n    return 3.14159 * r ** 2\n\n'
PASTED = CODE * 12 + "# 東京タワー 🗼\n"


@cache
def gpt2() -> LoadedTokenizer:
    return LoadedTokenizer.from_model(load_tokenizer(GPT2_DIR), name="gpt2")


def workbench_app():
    return make_app(session=session_with(gpt2()), start_mode="boundaries")


async def paste(pilot, text: str) -> TextArea:
    """Paste ``text`` into the workbench as a terminal would (one Paste event), then leave the text."""
    await pilot.press("slash")
    area = pilot.app.screen.query_one("#boundaries-input", TextArea)
    pilot.app.post_message(events.Paste(text))  # the app hands it to the focused widget, as from a terminal
    await pilot.pause()
    await pilot.press("escape")
    await settle(pilot)
    return area


def cell(table: TextStatsTable, row: str, column: str) -> str:
    return str(table.get_cell(row, column))


async def test_pasted_code_keeps_tabs_and_newlines_and_is_measured_as_tiktoken_counts() -> None:
    app = workbench_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        area = await paste(pilot, PASTED)
        screen = app.screen
        assert isinstance(screen, BoundariesScreen)
        assert area.text == PASTED  # tabs, indentation and newlines as pasted
        assert app.session.workbench_text == PASTED
        assert screen.source == "typed"
        main = screen.query_one("#boundaries-tokens", TokenView)
        assert main.has_focus
        ids = tiktoken_gpt2().encode_ordinary(PASTED)
        assert [span.id for span in main.tokens] == ids
        table = screen.query_one(TextStatsTable)
        assert cell(table, "your text", "chars") == f"{len(PASTED):,}"
        assert cell(table, "your text", "bytes") == f"{len(PASTED.encode()):,}"
        assert cell(table, "your text", "tokens") == f"{len(ids):,}"
        assert cell(table, "your text", "bytes/token") == f"{len(PASTED.encode()) / len(ids):.2f}"
        window = b"".join(tiktoken_gpt2().decode_tokens_bytes(ids[:128]))
        line = str(screen.query_one("#boundaries-coverage", Static).render())
        assert len(ids) > 128 and len(ids) < 1024
        expected = f"window 128: {len(window.decode('utf-8', 'ignore')):,} ch {len(window):,} B"
        assert line.startswith(expected + " · 1,024: whole text · 8,192: whole text")


async def test_typing_redraws_the_boundaries() -> None:
    app = workbench_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"if x:", "enter", "tab", *"pass")
        await pilot.press("escape")
        await settle(pilot)
        main = app.screen.query_one("#boundaries-tokens", TokenView)
        assert [span.id for span in main.tokens] == tiktoken_gpt2().encode_ordinary("if x:\n\tpass")


async def test_copy_ids_and_tokens_of_the_whole_text() -> None:
    app = workbench_app()
    text = "The café's 日本語 text\n" * 400  # longer than the part drawn: the copy holds all of it
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await paste(pilot, text)
        ids = tiktoken_gpt2().encode_ordinary(text)
        await pilot.press("c")
        assert app.clipboard == " ".join(map(str, ids))
        await pilot.press("C")
        tokens = tiktoken_gpt2().decode_tokens_bytes(ids)
        assert json.loads(app.clipboard) == [token.decode("utf-8", "backslashreplace") for token in tokens]
        # GPT-2 cuts 日本語 inside characters: those tokens are written with \xNN escapes, whole ones as text.
        split = [token for token in tokens if len(token.decode("utf-8", "ignore").encode()) < len(token)]
        assert split and all("\\x" in token.decode("utf-8", "backslashreplace") for token in split)
        assert '" café"' in app.clipboard  # whole characters stay readable, not \\u escapes


async def test_enter_on_a_token_opens_its_inspector_row_and_merge_tree() -> None:
    app = workbench_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await paste(pilot, "Tokenization matters")
        await pilot.press("right")  # the second token: GPT-2 reads "Token", "ization", " matters"
        ids = tiktoken_gpt2().encode_ordinary("Tokenization matters")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, InspectorScreen)
        table = app.screen.query_one(VocabTable)
        assert table.has_focus
        assert table.current_row is not None and table.current_row.id == ids[1]
        tree = app.screen.query_one(MergeTreeView)
        assert tree.root.data == tiktoken_gpt2().decode_single_token_bytes(ids[1])


async def test_a_sample_is_a_starting_point_and_windows_can_be_changed() -> None:
    app = workbench_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("s", "s", "s")  # english -> japanese -> mixed -> toy
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BoundariesScreen) and screen.source == "toy"
        await pilot.press("e")
        area = screen.query_one("#boundaries-input", TextArea)
        assert area.has_focus and area.text == app.session.sample_texts()["toy"]
        await pilot.press("end", *" extra")
        await pilot.press("escape")
        await settle(pilot)
        assert screen.source == "typed"
        text = app.session.sample_texts()["toy"]
        first_line, _, rest = text.partition("\n")
        edited = first_line + " extra" + ("\n" + rest if "\n" in text else "")
        assert app.session.workbench_text == edited
        ids = tiktoken_gpt2().encode_ordinary(edited)
        await pilot.press("w")
        assert isinstance(app.screen, WindowsDialog)
        field = app.screen.query_one(Input)
        field.value = "3 lots"
        await pilot.press("enter")
        assert isinstance(app.screen, WindowsDialog)
        assert "'lots' is not a number of tokens" in str(app.screen.query_one("#windows-error", Static).render())
        field.value = "3 5"
        await pilot.press("enter")
        await settle(pilot)
        assert app.session.context_windows == (3, 5)
        line = str(app.screen.query_one("#boundaries-coverage", Static).render())
        three = b"".join(tiktoken_gpt2().decode_tokens_bytes(ids[:3]))
        five = b"".join(tiktoken_gpt2().decode_tokens_bytes(ids[:5]))
        assert line.startswith(
            f"window 3: {len(three.decode())} ch {len(three)} B · 5: {len(five.decode())} ch {len(five)} B"
        )


async def test_while_typing_the_footer_offers_the_way_out_not_the_token_keys() -> None:
    # Typing in the text box, the footer offered '/ Type' and '⏎ Inspect' (Enter types a line break there,
    # '/' a slash) and never esc, the only way out (tab types a tab).
    from tests.ui.test_key_footer import footer_keys

    app = workbench_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert {"slash", "enter"} <= {key.key for key in footer_keys(app)}
        await pilot.press("slash", "a", "enter", "slash")
        await settle(pilot)
        assert app.screen.query_one("#boundaries-input", TextArea).text == "a\n/"
        shown = {key.key: key.description for key in footer_keys(app)}
        assert shown.get("escape") == "Done" and not {"slash", "enter"} & set(shown)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen.focused, TokenView)
        assert {"slash", "enter"} <= {key.key for key in footer_keys(app)} and "escape" not in {key.key for key in footer_keys(app)}
