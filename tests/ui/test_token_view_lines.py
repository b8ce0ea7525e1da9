"""TokenView's up and down keys: a token wrapped over two lines does not trap the cursor."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import App, ComposeResult

from bpe_tui.widgets.token_view import TokenView


@dataclass(frozen=True)
class T:
    id: int
    token: bytes


class OneView(App[None]):
    CSS = "TokenView { width: 12; height: 6; border: none; }"

    def compose(self) -> ComposeResult:
        yield TokenView(id="tokens")


async def test_down_passes_a_token_that_continues_onto_the_next_line() -> None:
    app = OneView()
    async with app.run_test(size=(20, 8)) as pilot:
        view = app.query_one(TokenView)
        # 10 cells a line: "a" then a stray-bytes token shown as "80 80 80 80" (11 cells), then "b", "c".
        view.set_tokens([T(97, b"a"), T(300, b"\x80" * 4), T(98, b"b"), T(99, b"c")])
        view.focus()
        await pilot.pause()
        lines = view._display()
        assert [line.plain for line in lines.lines] == ["a80 80 80 ", "80bc"]
        view.cursor = 1  # the token that starts on line 0 and ends on line 1
        await pilot.press("down")
        assert view.cursor == 2  # before, the cursor stayed on the wrapped token
        await pilot.press("down")
        assert view.cursor == 2  # the last line: nowhere further down
        await pilot.press("up")
        assert view.cursor == 0
        await pilot.press("down")
        assert view.cursor == 2
