"""Special tokens are drawn as one token in a style of their own: by ``render``, in Boundaries and in Compare."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from hypothesis import given
from hypothesis import strategies as st

from bpe_tui.render import CURSOR_STYLE, PALETTE, SPECIAL_PALETTE, SPLIT_PALETTE, token_styles
from bpe_tui.screens.boundaries import BoundariesScreen
from bpe_tui.screens.compare import compare_texts
from bpe_tui.session import LoadedTokenizer
from bpe_tui.widgets.compare_view import render_aligned
from bpe_tui.widgets.token_view import TokenView
from core.train.run import TrainingRun
from tests.ui.app_harness import SAMPLES, SIZE, settle
from tests.ui.views_harness import ViewsApp, bilingual_800, session_with

EOT = "<|endoftext|>"


@dataclass(frozen=True)
class T:
    id: int
    token: bytes
    is_special: bool = False


@cache
def without_specials() -> LoadedTokenizer:
    """A tokenizer trained on the same samples with no special token: the separator is plain text to it."""
    text = "\n".join((SAMPLES / f"{name}.txt").read_text(encoding="utf-8") for name in ("english", "japanese"))
    run = TrainingRun.from_text(text, 600, [], workers=1)
    for _ in run.events():
        pass
    return LoadedTokenizer.from_model(run.result(), name="no-specials-600")


def test_the_special_palette_is_no_other_colour() -> None:
    assert not set(SPECIAL_PALETTE) & {*PALETTE, *SPLIT_PALETTE, CURSOR_STYLE}
    assert len(set(SPECIAL_PALETTE)) == 2


def test_special_tokens_take_the_special_style_and_neighbours_differ() -> None:
    tokens = [T(65, b"a"), T(256, EOT.encode(), True), T(256, EOT.encode(), True), T(10, b"\n"), T(300, b"\xe3\x81")]
    styles = token_styles(tokens)
    assert styles[0] in PALETTE and styles[3] in PALETTE and styles[4] in SPLIT_PALETTE
    assert styles[1] in SPECIAL_PALETTE and styles[2] in SPECIAL_PALETTE and styles[1] != styles[2]


@given(st.lists(st.tuples(st.integers(0, 60), st.binary(min_size=1, max_size=4), st.booleans()), max_size=40))
def test_neighbours_never_share_a_colour_with_specials(items: list[tuple[int, bytes, bool]]) -> None:
    tokens = [T(token_id, token, special) for token_id, token, special in items]
    styles = token_styles(tokens)
    assert all(a != b for a, b in zip(styles, styles[1:]))
    assert all((style in SPECIAL_PALETTE) == token.is_special for token, style in zip(tokens, styles))


async def test_boundaries_draw_the_separator_as_one_special_token() -> None:
    app = ViewsApp(BoundariesScreen, session_with(bilingual_800()))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")  # the Japanese sample: several separators on the first screens
        await settle(pilot)
        view = app.screen.query_one("#boundaries-tokens", TokenView)
        layout = view._layout
        assert layout is not None
        tokens = view.tokens
        text = b"".join(span.token for span in tokens).decode()
        specials = [index for index, span in enumerate(tokens) if span.is_special]
        assert len(specials) == text.count(EOT) >= 2
        for index in specials:
            assert tokens[index].token == EOT.encode()
            start, end = layout.offsets[index], layout.offsets[index + 1]
            assert layout.content.plain[start:end] == EOT
            backgrounds = [span.style for span in layout.content.spans if (span.start, span.end) == (start, end)]
            assert len(backgrounds) == 1 and backgrounds[0] in SPECIAL_PALETTE
        # Every other token has an ordinary (or split) colour.
        styles_at: dict[tuple[int, int], list[object]] = {}
        for span in layout.content.spans:
            styles_at.setdefault((span.start, span.end), []).append(span.style)
        special_indices = set(specials)
        others = {
            style
            for index in range(len(tokens))
            if index not in special_indices
            for style in styles_at.get((layout.offsets[index], layout.offsets[index + 1]), [])
        }
        assert others and not others & set(SPECIAL_PALETTE)


def test_compare_draws_the_separator_as_one_special_span_where_it_is_special() -> None:
    text = f"one two{EOT}three\n"
    comparison = compare_texts([bilingual_800(), without_specials()], text)
    start = text.index(EOT)
    separator = range(start, start + len(EOT))
    special_row, plain_row = comparison.aligned.styles
    assert {special_row[i] for i in separator} <= set(SPECIAL_PALETTE) and len({special_row[i] for i in separator}) == 1
    assert special_row[start - 1] not in SPECIAL_PALETTE and special_row[separator[-1] + 1] not in SPECIAL_PALETTE
    # Without the special token the separator is text in several ordinary tokens.
    assert not {plain_row[i] for i in separator} & set(SPECIAL_PALETTE) and len({plain_row[i] for i in separator}) > 1

    row_a = render_aligned(comparison.aligned, 80)[0]
    assert row_a.plain.startswith("A one·two" + EOT)
    offset = len("A ") + start
    styles = {span.style for span in row_a.spans if span.start >= offset and span.end <= offset + len(EOT)}
    assert len(styles) == 1 and styles <= set(SPECIAL_PALETTE)
