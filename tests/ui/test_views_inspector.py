"""The inspector: vocabulary rows and filters (pure), then the pane driven by a pilot."""

from __future__ import annotations

from textual.widgets import Input, Static

from bpe_tui.screens.inspector import InspectorScreen
from bpe_tui.widgets.merge_tree import MergeTreeView, node_label
from bpe_tui.widgets.vocab_table import VocabRow, VocabTable, build_rows, filter_rows
from core.analysis.merge_tree import MergeIndex, MergeNode
from core.model import BPEModel
from tests.ui.app_harness import SIZE, settle
from tests.ui.views_harness import ViewsApp, bilingual_800, session_with


def toy_model() -> BPEModel:
    vocab = {i: bytes([i]) for i in range(256)}
    merges = [(b"\xe3", b"\x81"), (b"\xe3\x81", b"\xae"), (b" ", b"t"), (b" t", b"he")]
    for left, right in merges:
        vocab[len(vocab)] = left + right
    vocab[len(vocab)] = b"<|endoftext|>"
    return BPEModel(vocab=vocab, merges=merges, merge_counts=[9, 7, 5, None], special_tokens=["<|endoftext|>"])


def test_build_rows_formats_every_column() -> None:
    model = toy_model()
    rows = build_rows(model, MergeIndex(model))
    assert len(rows) == 261
    assert rows[256] == VocabRow(256, b"\xe3\x81", "\\xe3\\x81", 0, "\\xe3 + \\x81", 9, "\ufffd")
    assert rows[257] == VocabRow(257, "の".encode(), "の", 1, "\\xe3\\x81 + \\xae", 7, "の")
    assert rows[259] == VocabRow(259, b" the", "·the", 3, "·t + he", None, " the")
    assert rows[260].rank is None and rows[260].parents == ""
    assert rows[10].shown == "↵"


def test_filter_rows_by_text_id_and_hex() -> None:
    model = toy_model()
    rows = build_rows(model, MergeIndex(model))
    assert filter_rows(rows, "THE") == [259]
    assert filter_rows(rows, "の") == [257]
    assert filter_rows(rows, "e3 81") == [256, 257]
    assert filter_rows(rows, "260") == [260]
    assert filter_rows(rows, "zzz") == []
    assert len(filter_rows(rows, "")) == 261
    assert filter_rows(rows, "²") == filter_rows(rows, "1" * 5000) == []  # were int()'s ValueError in the search box


def test_node_labels_never_parse_markup() -> None:
    assert node_label(MergeNode(b"[b]x", 300, 4, 12)).plain == "[b]x  #300  merge 4  count 12"
    assert node_label(MergeNode(b"<|endoftext|>", 260, None, None), special=True).plain.endswith("special")
    assert node_label(MergeNode(b"ab", 7, None, None)).plain.endswith("no merge makes it")


async def test_inspector_shows_summary_table_and_tree() -> None:
    loaded = bilingual_800()
    app = ViewsApp(InspectorScreen, session_with(loaded))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        summary = str(screen.query_one("#inspector-summary", Static).render())
        merges = len(loaded.model.merges)
        assert f"{loaded.model.vocab_size} tokens = 256 bytes + {merges} merges + 1 special" in summary
        assert "fingerprint" in summary and "<|endoftext|>" in summary
        table = screen.query_one(VocabTable)
        assert table.total_count == loaded.model.vocab_size
        assert table.has_focus
        first_merge = loaded.model.vocab_size - len(loaded.model.merges)
        assert table.current_row is not None and table.current_row.id == first_merge
        tree = screen.query_one(MergeTreeView)
        assert tree.root.data == loaded.model.merges[0][0] + loaded.model.merges[0][1]
        assert [child.data for child in tree.root.children] == list(loaded.model.merges[0])
        await pilot.press("end")
        await pilot.pause()
        last = table.current_row
        assert last is not None and last.id == max(loaded.model.vocab)
        assert tree.root.data == last.token
        leaves = []
        stack = [tree.root]
        while stack:
            node = stack.pop()
            if node.children:
                stack.extend(node.children)
            else:
                leaves.append(node.data)
        assert all(len(leaf) == 1 for leaf in leaves)
        assert b"".join(sorted(leaves)) == bytes(sorted(last.token))


async def test_search_filters_after_a_pause_and_escape_returns() -> None:
    app = ViewsApp(InspectorScreen, session_with(bilingual_800()))
    seen: list[object] = []
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        screen = app.screen
        await pilot.press("slash")
        assert screen.query_one("#vocab-search", Input).has_focus
        await pilot.press("e", "3", "space", "8", "1")
        await pilot.pause(0.3)
        await settle(pilot)
        table = screen.query_one(VocabTable)
        assert 0 < table.visible_count < table.total_count
        applied = [m for m in seen if isinstance(m, InspectorScreen.FilterApplied)]
        assert applied and applied[-1].query == "e3 81"
        row = table.current_row
        assert row is not None and b"\xe3\x81" in row.token
        await pilot.press("escape")
        assert table.has_focus
        await pilot.press("t")
        assert screen.query_one(MergeTreeView).has_focus


async def test_no_match_and_no_tokenizer() -> None:
    app = ViewsApp(InspectorScreen, session_with(bilingual_800()))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.query_one("#vocab-search", Input).value = "no such token anywhere"
        await pilot.pause(0.3)
        await settle(pilot)
        assert app.screen.query_one(VocabTable).visible_count == 0
        assert "no token matches" in str(app.screen.query_one(MergeTreeView).root.label)
    empty = ViewsApp(InspectorScreen, session_with())
    async with empty.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "No tokenizer yet" in str(empty.screen.query_one("#inspector-summary", Static).render())
        assert empty.screen.query_one(VocabTable).total_count == 0


async def test_the_count_column_is_whole_at_80_columns() -> None:
    # At 80x24 the table showed the first digit of each count ("2" for 23,837) under no header.
    loaded = bilingual_800()
    app = ViewsApp(InspectorScreen, session_with(loaded))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(VocabTable)
        width = table.scrollable_content_region.width
        header = table.render_line(0).text
        assert header.split()[-1] == "count" and len(header.rstrip()) <= width
        row = table.current_row
        assert row is not None and row.count is not None
        assert table.render_line(1).text.split()[4] == f"{row.count:,}"
