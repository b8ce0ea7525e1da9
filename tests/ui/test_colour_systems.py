"""Token colours as terminals draw them: neighbours differ at truecolor, 256 and 16 colours.

Textual writes each style through Rich's ``Color.downgrade`` for the terminal's colour system
(``Strip.render_ansi``), so these tests downgrade the rendered segments' colours the same way. Over ssh,
in tmux without ``COLORTERM`` or with ``TERM=xterm-256color`` the first palettes collapsed from six
backgrounds to three (and to one at 16 colours), and neighbouring tokens ran together.
"""

from __future__ import annotations

from itertools import combinations
from types import SimpleNamespace

import pytest
from rich.color import Color, ColorSystem, ColorType
from rich.console import Console
from rich.style import Style
from textual.content import Content

from bpe_tui.render import CURSOR_STYLE, PALETTE, SPECIAL_PALETTE, SPLIT_PALETTE, layout_tokens
from bpe_tui.widgets.compare_view import align_tokenizations, render_aligned
from core.analysis.compare import boundary_diff
from tests.ui.app_harness import SAMPLES
from tests.ui.views_harness import bilingual_800, english_500, japanese_600

SYSTEMS = (ColorSystem.TRUECOLOR, ColorSystem.EIGHT_BIT, ColorSystem.STANDARD)
BACKGROUNDS = (*PALETTE, *SPLIT_PALETTE, *SPECIAL_PALETTE, CURSOR_STYLE)


def background(style: str) -> Color:
    color = Style.parse(style).bgcolor
    assert color is not None
    return color


def drawn(color: Color | None, system: ColorSystem) -> object:
    """What a terminal of ``system`` is sent for ``color``: a colour number, or RGB at truecolor (None: default).

    Not the downgraded ``Color`` itself: it keeps its original name, so two colours sent as the same
    256-colour number would still compare unequal.
    """
    if color is None:
        return None
    sent = color.downgrade(system)
    return tuple(sent.triplet) if sent.type == ColorType.TRUECOLOR else sent.number


def cells(content: Content) -> list[Style]:
    """The rich style of each character of ``content``, as rendered into segments."""
    styles: list[Style] = []
    for segment in content.render_segments():
        styles.extend([segment.style or Style()] * len(segment.text))
    assert len(styles) == len(content.plain)
    return styles


def sample(name: str) -> str:
    return (SAMPLES / f"{name}.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda system: system.name)
def test_every_token_background_is_its_own_colour_at_every_colour_system(system: ColorSystem) -> None:
    # pick_style keeps neighbours on different palette entries; that shows only if entries stay apart.
    codes = [drawn(background(style), system) for style in BACKGROUNDS]
    clashes = [(a, b) for (a, x), (b, y) in combinations(zip(BACKGROUNDS, codes), 2) if x == y]
    assert clashes == []


def test_the_first_palette_did_collapse() -> None:
    """The check above fails for the palette that hurt users (three 256-colour backgrounds of six)."""
    old = ("#1f3a5f", "#4b2d66", "#1e5236", "#6b4318", "#1b5158", "#5e2340")
    assert len({Color.parse(c).downgrade(ColorSystem.EIGHT_BIT).number for c in old}) == 3


@pytest.mark.parametrize(
    ("tokenizer", "text_name"),
    [(english_500, "english"), (japanese_600, "japanese"), (bilingual_800, "english"), (bilingual_800, "japanese")],
)
def test_neighbouring_tokens_are_drawn_apart(tokenizer, text_name: str) -> None:
    """Every token boundary of the whole sample, with and without ids, at each colour system."""
    spans = tokenizer().tokenizer.encode_with_spans(sample(text_name))
    for show_ids in (False, True):
        layout = layout_tokens(spans, show_ids=show_ids)
        styles = cells(layout.content)  # rendering takes seconds for a whole sample: once, for every system
        offsets = layout.offsets
        for system in SYSTEMS:
            for index in range(1, len(spans)):
                before, after = styles[offsets[index] - 1], styles[offsets[index]]
                assert drawn(before.bgcolor, system) != drawn(after.bgcolor, system), (
                    f"{system.name}: {spans[index - 1].token!r} and {spans[index].token!r} share a background"
                )


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda system: system.name)
def test_the_cursor_stands_out_from_both_neighbours(system: ColorSystem) -> None:
    spans = bilingual_800().tokenizer.encode_with_spans(sample("mixed")[:150])
    layout = layout_tokens(spans)
    offsets = layout.offsets
    for cursor in range(len(spans) - 1):
        styles = cells(layout.with_cursor(cursor))
        left, right = offsets[cursor], offsets[cursor + 1]
        assert drawn(styles[left].bgcolor, system) != drawn(styles[right].bgcolor, system)
        if left:
            assert drawn(styles[left - 1].bgcolor, system) != drawn(styles[left].bgcolor, system)


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda system: system.name)
def test_every_mark_is_legible_on_its_token(system: ColorSystem) -> None:
    """Glyphs, escapes and ids never take their token's background colour (a special token's included)."""
    text = sample("mixed") + " a\tb\x07<|endoftext|>\n" + sample("japanese")[:200]
    spans = bilingual_800().tokenizer.encode_with_spans(text)
    assert any(span.is_special for span in spans)
    # A special token holding whitespace and a control character, as a user may declare one.
    odd_special = SimpleNamespace(id=257, token=b"<| a\tb\x07 |>", is_special=True)
    content = layout_tokens([*spans, odd_special, odd_special, *spans[:3]], show_ids=True).content
    for ch, style in zip(content.plain, cells(content)):
        if ch.strip() and style.bgcolor is not None:
            assert drawn(style.color, system) != drawn(style.bgcolor, system), (ch, style)


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda system: system.name)
def test_compare_rows_draw_neighbouring_tokens_apart(system: ColorSystem) -> None:
    text = sample("english")[:600] + sample("japanese")[:300]
    chosen = [english_500(), japanese_600(), bilingual_800()]
    tokenizations = [loaded.tokenizer.encode_with_spans(text) for loaded in chosen]
    aligned = align_tokenizations(
        text, tokenizations, [[span.id for span in spans] for spans in tokenizations], boundary_diff(tokenizations).differing
    )
    for row, spans in zip(aligned.styles, tokenizations):
        starts = {span.byte_start for span in spans}
        offset = 0
        for position, ch in enumerate(text):
            if position and offset in starts:
                assert drawn(background(row[position - 1]), system) != drawn(background(row[position]), system)
            offset += len(ch.encode())
    for line in render_aligned(aligned, 80):  # the rows render with those colours, not the theme's
        assert all(segment.style is not None for segment in line.render_segments() if segment.text.strip())


def test_a_256_colour_console_sends_the_different_colours() -> None:
    """End to end through Rich: `その`, `町`, `の図` (they shared one colour) come out as three codes."""
    spans = japanese_600().tokenizer.encode_with_spans("その町の図")
    console = Console(color_system="256", force_terminal=True, width=80)
    with console.capture() as capture:
        console.print(layout_tokens(spans).content, end="")
    codes = [part.split("m", 1)[0] for part in capture.get().split("\x1b[")[1:] if "48;5;" in part]
    backgrounds = [code.split("48;5;")[1].split(";")[0] for code in codes]
    assert len(backgrounds) == len(spans) >= 3
    assert all(a != b for a, b in zip(backgrounds, backgrounds[1:]))


def sent_cells(app, view) -> list[tuple[int | None, int | None]]:
    """(text, background) ANSI numbers of every cell of ``view`` as a 16-colour terminal is sent them."""
    from textual.color import Color as TextualColor

    sent: list[tuple[int | None, int | None]] = []
    for y in range(view.size.height):
        strip = view.render_line(y)
        for line_filter in app.get_line_filters():  # what the compositor does before the terminal gets it
            strip = strip.apply_filter(line_filter, TextualColor(0, 0, 0))
        for segment in strip:
            style = segment.style or Style()
            codes = [None if c is None else c.downgrade(ColorSystem.STANDARD).number for c in (style.color, style.bgcolor)]
            sent.extend([(codes[0], codes[1])] * len(segment.text))
    return sent


@pytest.mark.parametrize("term", ["xterm", "screen", "linux"])
async def test_tokens_drawn_light_by_16_colour_terminals_get_dark_text(monkeypatch, term: str) -> None:
    # ANSI green, yellow and cyan are bright in terminals (xterm's #00cd00, #cdcd00, #00cdcd): the palette's
    # light text on them read at 1.7-2.2:1 there.
    from bpe_tui.widgets.token_view import TokenView
    from tests.ui.app_harness import make_app, settle
    from tests.ui.views_harness import session_with

    monkeypatch.setenv("TERM", term)
    monkeypatch.delenv("COLORTERM", raising=False)
    app = make_app(session=session_with(english_500()), start_mode="boundaries")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        cells_sent = sent_cells(app, app.screen.query_one("#boundaries-views TokenView", TokenView))
        on_light = [text for text, ground in cells_sent if ground in (2, 3, 6)]
        assert len(on_light) > 100 and set(on_light) == {0}
        assert {text for text, ground in cells_sent if ground in (4, 5)} - {0} != set()  # blue, magenta: light


async def test_256_colour_terminals_keep_the_light_text(monkeypatch) -> None:
    from bpe_tui.widgets.token_view import TokenView
    from tests.ui.app_harness import make_app, settle
    from tests.ui.views_harness import session_with

    monkeypatch.setenv("TERM", "xterm-256color")
    app = make_app(session=session_with(english_500()), start_mode="boundaries")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert not any(type(f).__name__ == "DarkTextOnAnsi" for f in app.get_line_filters())
        cells_sent = sent_cells(app, app.screen.query_one("#boundaries-views TokenView", TokenView))
        assert {text for text, ground in cells_sent if ground in (2, 3, 6)} - {0} != set()


async def test_cursors_on_the_themes_primary_get_dark_text_at_16_colours(monkeypatch) -> None:
    # textual-dark's primary is sent as ANSI cyan: the file tree's and every table's cursor were white on it.
    from textual.widgets import DirectoryTree

    from tests.ui.app_harness import make_app, ready

    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.delenv("COLORTERM", raising=False)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        cells_sent = sent_cells(app, app.screen.query_one(DirectoryTree))
        on_cyan = [text for text, ground in cells_sent if ground == 6]
        assert on_cyan and set(on_cyan) == {0}
