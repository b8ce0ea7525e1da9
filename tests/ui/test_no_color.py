"""NO_COLOR set: every line goes through a monochrome filter, which needs a style on each segment.

A terminal user with ``NO_COLOR`` in their environment (a common setting) saw the app crash on the first
visit to the workbench: the token view ended each line with a segment that had no style. Once it drew,
neighbouring tokens could share a grey; ``bpe_tui.no_color.TokenGreys`` keeps them apart.
"""

from __future__ import annotations

from itertools import combinations

from rich.color import ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import Monochrome

from bpe_tui.no_color import TokenGreys
from bpe_tui.render import PALETTE, SPECIAL_PALETTE, SPLIT_PALETTE
from bpe_tui.widgets.token_view import TokenView
from tests.ui.app_harness import SIZE, app_trained_by, make_app, ready, recorded_run, replay_factory, settle
from tests.ui.views_harness import english_500, session_with


async def test_every_pane_draws_under_no_color(monkeypatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = app_trained_by(replay_factory(recorded_run()), train_on_start=True)
    assert any(isinstance(f, Monochrome) for f in app._filters)  # what NO_COLOR turns on
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.training.trained is not None
        # Every pane, then the workbench's views: typed text, ids, English beside Japanese, the samples.
        for key in (*"2345678", "4", "/", *"hi あ", "escape", "i", "v", "v", "s", "5", "3", "t", "6"):
            await pilot.press(key)
            await ready(pilot)
            assert app._exception is None, f"after {key!r}: {app._exception!r}"
        assert app.current_mode == "compare"


def greys_sent(line_filter, system: ColorSystem = ColorSystem.EIGHT_BIT) -> list[int]:
    """The 256-colour grey a terminal is sent for each palette background once ``line_filter`` has run."""
    segments = [Segment("x", Style.parse(entry)) for entry in PALETTE]
    return [segment.style.bgcolor.downgrade(system).number for segment in line_filter.apply(segments, Color(0, 0, 0))]


def test_token_backgrounds_keep_greys_two_steps_apart_under_no_color() -> None:
    # Any two palette entries can be neighbours (pick_style only avoids a repeat), so every pair must differ.
    greys = greys_sent(TokenGreys())
    assert min(abs(a - b) for a, b in combinations(greys, 2)) >= 2
    assert all(232 <= grey <= 255 for grey in greys)  # on the grey ramp: no colour is left


def test_textual_monochrome_alone_runs_tokens_together() -> None:
    """Why TokenGreys exists: Textual's own filter draws two palette entries in the very same grey."""
    greys = greys_sent(Monochrome())
    assert len(set(greys)) < len(greys)


def test_the_app_draws_through_token_greys_only_under_no_color(monkeypatch) -> None:
    assert not any(isinstance(f, Monochrome) for f in make_app().get_line_filters())
    monkeypatch.setenv("NO_COLOR", "1")
    filters = make_app().get_line_filters()
    assert [type(f) for f in filters if isinstance(f, Monochrome)] == [TokenGreys]


TOKEN_BACKGROUNDS = {Style.parse(entry).bgcolor.triplet for entry in (*PALETTE, *SPLIT_PALETTE, *SPECIAL_PALETTE)}


async def test_neighbouring_tokens_differ_under_no_color_at_16_colours(monkeypatch) -> None:
    # NO_COLOR in tmux or screen (TERM=screen) or with TERM=xterm: the six token greys fell on two ANSI colours,
    # so "ar"/"row" and the four tokens of "Point" in the English sample were drawn as one.
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.delenv("COLORTERM", raising=False)
    app = make_app(session=session_with(english_500()), start_mode="boundaries")
    assert app.console.color_system == "standard"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.screen.query_one("#boundaries-views TokenView", TokenView)
        boundaries = 0
        for y in range(view.size.height):
            source = view.render_line(y)
            sent = source
            for line_filter in app.get_line_filters():  # what the compositor does before the terminal gets it
                sent = sent.apply_filter(line_filter, Color(0, 0, 0))
            before = [segment.style.bgcolor for segment in source for _ in segment.text]
            after = [segment.style.bgcolor.downgrade(ColorSystem.STANDARD).number for segment in sent for _ in segment.text]
            for x in range(1, len(before)):
                if before[x - 1] != before[x] and {before[x - 1].triplet, before[x].triplet} <= TOKEN_BACKGROUNDS:
                    boundaries += 1
                    assert after[x - 1] != after[x], f"line {y}, cell {x}: two tokens drawn on one grey"
        assert boundaries > 100
