"""Pilot tests of the boundaries pane: what it tokenizes, its keys, typed text, split characters, failures."""

from __future__ import annotations

from textual.widgets import Static, TextArea

from bpe_tui.boundaries_text import detail_line, shown
from bpe_tui.screens.boundaries import BoundariesScreen
from bpe_tui.session import LoadedTokenizer
from bpe_tui.widgets.text_stats import TextStatsTable
from bpe_tui.widgets.token_view import TokenView
from tests.ui.app_harness import SIZE, settle
from core.encode.spans import TokenSpan
from tests.ui.views_harness import ViewsApp, bilingual_800, session_with


def joined(view: TokenView) -> bytes:
    return b"".join(span.token for span in view.tokens)


async def test_opens_on_the_english_sample() -> None:
    session = session_with(bilingual_800())
    app = ViewsApp(BoundariesScreen, session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BoundariesScreen)
        assert screen.source == "english"
        main = screen.query_one("#boundaries-tokens", TokenView)
        assert joined(main) == shown(session.sample_texts()["english"]).encode()
        assert main.cursor == 0 and main.has_focus
        stats = screen.query_one(TextStatsTable)
        assert stats.row_count == 2
        english = session.sample_texts()["english"]
        assert str(stats.get_cell("english", "bytes")) == f"{len(english.encode()):,}"


async def test_keys_cycle_samples_toggle_ids_and_side_by_side() -> None:
    app = ViewsApp(BoundariesScreen, session_with(bilingual_800()))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BoundariesScreen)
        await pilot.press("s")
        await settle(pilot)
        assert screen.source == "japanese"
        main = screen.query_one("#boundaries-tokens", TokenView)
        assert joined(main).decode() == shown(app.session.sample_texts()["japanese"])
        await pilot.press("i")
        assert all(view.show_ids for view in screen.query(TokenView))
        await pilot.press("v")
        await settle(pilot)
        assert screen.side_by_side and screen.has_class("-side-by-side")
        english = screen.query_one("#boundaries-en-tokens", TokenView)
        japanese = screen.query_one("#boundaries-ja-tokens", TokenView)
        assert english.has_focus
        assert joined(japanese).decode() == shown(app.session.sample_texts()["japanese"])
        assert joined(english).decode() == shown(app.session.sample_texts()["english"])


async def test_cursor_moves_and_describes_a_split_character() -> None:
    app = ViewsApp(BoundariesScreen, session_with(bilingual_800()))
    seen: list[object] = []
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        await pilot.press("s")  # japanese: this small tokenizer splits many kanji
        await settle(pilot)
        main = app.screen.query_one("#boundaries-tokens", TokenView)
        split_at = next(i for i, span in enumerate(main.tokens) if span.starts_mid_char or span.ends_mid_char)
        for _ in range(split_at):
            await pilot.press("right")
        await pilot.pause()
        assert main.cursor == split_at
        highlighted = [m for m in seen if isinstance(m, TokenView.Highlighted) and m.token_view is main]
        assert highlighted[-1].index == split_at
        detail = str(app.screen.query_one("#token-detail", Static).render())
        assert "splits a character" in detail
        assert main.tokens[split_at].token.hex(" ") in detail
        await pilot.press("end")
        assert main.cursor == len(main.tokens) - 1
        await pilot.press("home")
        assert main.cursor == 0


async def test_the_header_says_how_much_is_drawn_within_80_columns() -> None:
    # The start-up run's long name came first and "(first 5,527 characters drawn)" was cut to "(first".
    loaded = LoadedTokenizer.from_model(bilingual_800().model, name="trained: samples (english + japanese) 1000")
    app = ViewsApp(BoundariesScreen, session_with(loaded))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        header = app.screen.query_one("#boundaries-header", Static)
        assert header.content_region.width == 78
        assert "characters drawn)" in str(header.render())[:78]


def test_a_split_character_is_said_within_80_columns() -> None:
    # The flag came last and was cut to "splits a" at 80x24 (78 cells inside the padding).
    span = TokenSpan(562, b"\xe5\x90", 0, 2, 0, 1, starts_mid_char=False, ends_mid_char=True, is_special=False)
    line = detail_line(0, 33, span).plain
    assert "splits a character" in line[:78]
    assert line.endswith("chars 0–1  bytes 0–2: e5 90")


async def test_typed_text_replaces_the_sample_and_clearing_it_goes_back() -> None:
    app = ViewsApp(BoundariesScreen, session_with(bilingual_800()))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BoundariesScreen)
        await pilot.press("slash")
        field = screen.query_one("#boundaries-input", TextArea)
        assert field.has_focus
        await pilot.press(*"Hi [b]x", "space", "ぁ")
        await pilot.press("escape")  # leaving the text encodes it at once, without the typing delay
        await settle(pilot)
        assert screen.source == "typed"
        main = screen.query_one("#boundaries-tokens", TokenView)
        assert joined(main) == "Hi [b]x ぁ".encode()
        assert main.has_focus
        assert app.session.workbench_text == "Hi [b]x ぁ"
        await pilot.press("slash")
        field.clear()
        await pilot.press("escape")
        await settle(pilot)
        assert screen.source == "english"
        assert app.session.workbench_text == ""


async def test_without_a_tokenizer_it_says_so() -> None:
    app = ViewsApp(BoundariesScreen, session_with())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "No tokenizer yet" in str(app.screen.query_one("#token-detail", Static).render())
        assert app.screen.query_one("#boundaries-tokens", TokenView).tokens == ()


async def test_a_tokenizer_added_later_is_picked_up() -> None:
    session = session_with()
    app = ViewsApp(BoundariesScreen, session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session.add_tokenizer(bilingual_800())
        from bpe_tui.messages import SessionChanged

        app.screen.post_message(SessionChanged("added"))
        await settle(pilot)
        assert app.screen.query_one("#boundaries-tokens", TokenView).tokens


class BrokenTokenizer:
    """Raises on encode, standing in for a tokenizer file that loads but cannot encode."""

    def encode_with_spans(self, text: str) -> list[object]:
        raise ValueError("merge table is inconsistent")

    def encode(self, text: str) -> list[int]:
        raise ValueError("merge table is inconsistent")


async def test_an_encoding_failure_is_a_notification() -> None:
    good = bilingual_800()
    broken = LoadedTokenizer(name="broken", model=good.model, tokenizer=BrokenTokenizer())  # type: ignore[arg-type]
    app = ViewsApp(BoundariesScreen, session_with(broken))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        messages = [notification.message for notification in app._notifications]
        assert any("merge table is inconsistent" in message for message in messages)
        assert app.screen.query_one("#boundaries-tokens", TokenView).tokens == ()
