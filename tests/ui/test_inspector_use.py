"""The inspector as used for real: a single hex byte finds its token, counts are never cut, the longest tokens open their trees."""

from __future__ import annotations

from rich.cells import cell_len
from textual.widgets import Input, OptionList

from bpe_tui.screens.inspector import InspectorScreen
from bpe_tui.session import LoadedTokenizer
from bpe_tui.widgets.merge_tree import MergeTreeView
from bpe_tui.widgets.vocab_table import VocabTable
from core.analysis.vocab_stats import longest_tokens
from core.model import BPEModel
from tests.ui.app_harness import SIZE, settle
from tests.ui.views_harness import ViewsApp, bilingual_800, session_with


async def search(pilot, text: str) -> VocabTable:
    await pilot.press("slash", *text)
    await pilot.pause(0.3)
    await settle(pilot)
    await pilot.press("enter")  # back to the table
    return pilot.app.screen.query_one(VocabTable)


async def test_a_single_hex_byte_finds_its_token() -> None:
    app = ViewsApp(InspectorScreen, session_with(bilingual_800()))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = await search(pilot, "0a")
        tokens = [table.current_row.token] if table.current_row else []
        assert b"\n" in tokens, "the newline byte's token is the first match"
        assert table.has_focus
        tree = app.screen.query_one(MergeTreeView)
        assert tree.root.data == b"\n"


def big_counts() -> LoadedTokenizer:
    """A tokenizer whose first merge was counted 4,993,210 times, as on a large corpus."""
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"th", 257: b"the"}
    model = BPEModel(vocab, [(b"t", b"h"), (b"th", b"e")], merge_counts=[4_993_210, 1_234_567_890], name="big")
    return LoadedTokenizer.from_model(model)


async def test_large_counts_are_never_cut_off() -> None:
    for size in (SIZE, (200, 30), (80, 24)):
        app = ViewsApp(InspectorScreen, session_with(big_counts()))
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            table = app.screen.query_one(VocabTable)
            table.scroll_to(x=0, animate=False, immediate=True)
            await pilot.pause()
            lines = [table.render_line(y).text for y in range(table.scrollable_content_region.height)]
            shown = "\n".join(lines)
            if size[0] >= 100:  # the count column is on screen without scrolling sideways
                assert "4,993,210" in shown and "1,234,567,890" in shown
            assert "…" not in "".join(line.split("th")[0] for line in lines)  # no number column was cut


async def test_enter_on_a_longest_token_opens_its_merge_tree() -> None:
    loaded = bilingual_800()
    longest = longest_tokens(loaded.model, 8)
    app = ViewsApp(InspectorScreen, session_with(loaded))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        await pilot.press("l")
        entries = screen.query_one("#longest-tokens", OptionList)
        assert entries.has_focus and entries.option_count == len(longest)
        await pilot.press("down", "enter")
        await pilot.pause()
        tree = screen.query_one(MergeTreeView)
        assert tree.has_focus and tree.root.data == longest[1][1]
        assert all(cell_len(str(child.label)) > 0 for child in tree.root.children)
        # The search field was never touched.
        assert screen.query_one("#vocab-search", Input).value == ""


def test_the_summary_says_a_tokenizer_was_stopped() -> None:
    import dataclasses

    from bpe_tui.screens.inspector import summary_content
    from core.model import TrainingInfo

    loaded = big_counts()
    model = dataclasses.replace(loaded.model, training=TrainingInfo(1000, stopped_after=2))
    text = summary_content(LoadedTokenizer.from_model(model), "0" * 64).plain
    assert "stopped by the user after 2 merges" in text
    assert "stopped" not in summary_content(loaded, "0" * 64).plain


def test_the_summary_says_a_file_loaded_without_its_fingerprint_is_unverified() -> None:
    # The README's way to load an edited file is to delete its fingerprint; the pane showed it as checked.
    import dataclasses

    from bpe_tui.screens.inspector import summary_content

    loaded = big_counts()
    model = dataclasses.replace(loaded.model, fingerprint_verified=False)
    text = summary_content(LoadedTokenizer.from_model(model), "0" * 64).plain
    assert "fingerprint 0000000000000000 (unverified)" in text
    assert "unverified" not in summary_content(loaded, "0" * 64).plain
