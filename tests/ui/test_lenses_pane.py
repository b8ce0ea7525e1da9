"""The Lenses pane (7): opens on its key, ↑/↓ choose a lens, ←/→ move a slider, fields apply on Enter,
and it follows the session's active tokenizer."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from rich.cells import cell_len
from textual.widgets import Input, OptionList

from bpe_tui.lenses.registry import LENSES, lens_named
from bpe_tui.lenses.spec import LensContext, LensOption, LensSpec
from bpe_tui.session import LoadedTokenizer
from bpe_tui.screens.lenses import LensesScreen
from core.analysis.lenses.fragments import FragmentsResult
from core.analysis.lenses.slider import SliderResult
from core.train.run import TrainingRun
from tests.ui.app_harness import SIZE, make_app, ready
from tests.ui.views_harness import english_500, japanese_600, session_with


async def open_lenses(pilot) -> LensesScreen:
    await ready(pilot)
    await pilot.press("7")
    await ready(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, LensesScreen)
    return screen


async def test_key_7_opens_the_pane_on_the_first_lens_computed_for_the_active_tokenizer() -> None:
    loaded = english_500()
    app = make_app(session=session_with(loaded), start_mode="inspector")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_lenses(pilot)
        assert app.current_mode == "lenses"
        assert screen.spec is LENSES[0]
        assert isinstance(app.focused, OptionList)
        result = screen.last_result
        assert isinstance(result, SliderResult)
        assert result.merges == len(loaded.model.merges)
        assert list(result.ids) == loaded.tokenizer.encode(result.text)


async def test_down_and_up_choose_a_lens() -> None:
    app = make_app(session=session_with(english_500()), start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = app.screen
        await pilot.press("down")
        await ready(pilot)
        assert screen.spec is LENSES[1]
        assert isinstance(screen.last_result, FragmentsResult)
        await pilot.press("up")
        await ready(pilot)
        assert screen.spec is LENSES[0] and isinstance(screen.last_result, SliderResult)


async def test_left_and_right_move_the_slider_and_recompute() -> None:
    loaded = english_500()
    total = len(loaded.model.merges)
    app = make_app(session=session_with(loaded), start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = app.screen
        for key, expected in [("left", total - 1), ("left", total - 2), ("right", total - 1),
                              ("shift+left", total - 1 - total // 20), ("right", total - total // 20)]:
            await pilot.press(key)
            await ready(pilot)
            assert screen.values()["merges"] == expected
            assert screen.last_result.merges == expected
        await pilot.press("shift+right", "shift+right", "right")
        await ready(pilot)
        assert screen.last_result.merges == total  # held at the top of the range


async def test_space_flips_a_toggle() -> None:
    app = make_app(session=session_with(english_500()), start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = app.screen
        await pilot.press("down")
        await ready(pilot)
        assert screen.last_result.specials is True
        assert any(f.special for f in screen.last_result.fragments)
        await pilot.press("space")
        await ready(pilot)
        assert screen.last_result.specials is False
        assert not any(f.special for f in screen.last_result.fragments)
        await pilot.press("space")
        await ready(pilot)
        assert screen.last_result.specials is True


async def test_slash_edits_the_text_and_enter_applies_it() -> None:
    loaded = english_500()
    app = make_app(session=session_with(loaded), start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = app.screen
        await pilot.press("slash")
        field = screen.query_one("#lens-field-text", Input)
        assert app.focused is field
        field.value = ""
        # "/", space, ← and [ are the pane's keys, but while the field has focus they are the field's.
        await pilot.press("t", "o", "space", "slash", "e", "n", "d", "left", "left", "left_square_bracket", "enter")
        await ready(pilot)
        assert screen.last_result.text == "to /e[nd"
        assert list(screen.last_result.ids) == loaded.tokenizer.encode("to /e[nd")
        assert isinstance(app.focused, OptionList)


async def test_the_pane_follows_the_active_tokenizer() -> None:
    english, japanese = english_500(), japanese_600()
    session = session_with(english, japanese, active=0)
    app = make_app(session=session, start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = app.screen
        assert screen.last_result.total_merges == len(english.model.merges)
        session.set_active(1)
        await ready(pilot)
        assert screen.last_result.total_merges == len(japanese.model.merges)
        assert list(screen.last_result.ids) == japanese.tokenizer.encode(screen.last_result.text)


async def test_without_a_tokenizer_the_pane_says_so() -> None:
    app = make_app(session=session_with(), start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.screen.last_result is None
        body = app.screen.query_one("#lens-body")
        assert "No tokenizer yet" in str(body.render())


@dataclass(frozen=True)
class Sizes:
    """What the two-slider test lens computes: its settings, as given."""

    width: int
    height: int
    tall: bool

    def to_json(self) -> dict[str, int | bool]:
        return {"width": self.width, "height": self.height, "tall": self.tall}


def _base_view() -> type:
    from bpe_tui.lenses.views.base import LensView

    return LensView


TWO_SLIDERS = LensSpec(
    name="two-sliders",
    title="Two sliders",
    description="A lens with two sliders and a toggle, for the keys that choose among them",
    options=(
        LensOption("width", "width", "int", default=5, minimum=0, maximum=10),
        LensOption("height", "height", "int", default=lambda context: len(context.model.merges), minimum=0,
                   maximum=lambda context: len(context.model.merges)),
        LensOption("tall", "tall", "bool", default=False),
    ),
    compute=lambda context, options: Sizes(options["width"], options["height"], options["tall"]),
    render_text=lambda result: f"{result.width} x {result.height}{' tall' if result.tall else ''}",
    view=_base_view,
)


async def test_brackets_choose_which_slider_the_arrows_move(monkeypatch) -> None:
    monkeypatch.setattr("bpe_tui.screens.lenses.LENSES", (TWO_SLIDERS,))
    loaded = english_500()
    merges = len(loaded.model.merges)
    app = make_app(session=session_with(loaded), start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = app.screen
        assert screen.last_result == Sizes(5, merges, False)
        await pilot.press("right")
        await ready(pilot)
        assert screen.last_result == Sizes(6, merges, False)
        await pilot.press("right_square_bracket", "left", "left")
        await ready(pilot)
        assert screen.last_result == Sizes(6, merges - 2, False)
        # On the toggle, ←/→ still move the first slider; space flips the toggle.
        await pilot.press("right_square_bracket", "left", "space")
        await ready(pilot)
        assert screen.last_result == Sizes(5, merges - 2, True)
        # From the toggle (third) back four: second, first, round to the toggle, second.
        await pilot.press(*["left_square_bracket"] * 4, "right")
        await ready(pilot)
        assert screen.last_result == Sizes(5, merges - 1, True)
        assert "5 x" in str(screen.query_one("#lens-body").render())


async def test_every_field_says_what_it_takes_within_its_width_at_80_columns() -> None:
    """A field's placeholder is its only label: one cut short at 80x24 lost the corpus default it names."""
    app = make_app(session=session_with(english_500()), start_mode="lenses")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        screen = app.screen
        checked = 0
        for index, spec in enumerate(LENSES):
            if index:
                await pilot.press("down")
                await ready(pilot)
            assert screen.spec is spec
            for field in screen.query("#lens-fields Input").results(Input):
                assert len(field.placeholder) <= field.content_region.width, (spec.name, field.placeholder)
                checked += 1
        assert checked == sum(option.kind in ("text", "path") for spec in LENSES for option in spec.options)


@pytest.mark.parametrize("name, options, rows, column", [
    ("fragments", {"text": "吾輩は猫である。 Hello 名前はまだ無い"}, r".* B  ", " B  "),
    ("replay", {"word": " 名前は"}, r"start|rank", "  ·"),
    ("bytes", {"text": "名前は 日本 x"}, r" *\d+ [0-9a-f]{2}( [0-9a-f]{2})* +\S+$", " "),
])
def test_lens_view_columns_line_up_in_cells_after_japanese(name: str, options: dict[str, str], rows: str,
                                                           column: str) -> None:
    # Columns were padded with str.ljust, which counts a kanji as one cell of its two, and the bytes lens
    # gave every token's hex 12 characters, which a token of two kanji (17) overflows.
    run = TrainingRun.from_text("名前は 名前は 吾輩は 日本語 " * 3, 256 + 40, [], workers=1)
    for _ in run.events():
        pass
    spec = lens_named(name)
    result = spec.compute(LensContext(LoadedTokenizer.from_model(run.result(), name="ja")),
                          {option.name: option.default for option in spec.options} | options)
    lines = [line for line in spec.view()(spec).render_result(result).plain.splitlines()
             if re.match(rows, line)]
    assert len(lines) >= 3
    assert len({cell_len(line[: line.rindex(column)]) for line in lines}) == 1, lines


async def test_delete_merges_default_rank_follows_the_text_typed() -> None:
    # The rank defaulted to the earliest merge of the lens's own sentence, whatever text was typed.
    loaded = english_500()
    app = make_app(session=session_with(loaded), start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_lenses(pilot)
        for _ in range(LENSES.index(lens_named("delete-merge"))):
            await pilot.press("down")
        await ready(pilot)
        await pilot.press("slash")
        screen.query_one("#lens-field-text", Input).value = "running quickly"
        await pilot.press("enter")
        await ready(pilot)
        result = screen.last_result
        used = set(loaded.tokenizer.decode_tokens_bytes(loaded.tokenizer.encode("running quickly")))
        made = [a + b for a, b in loaded.model.merges]
        assert result.rank == min(made.index(token) for token in used if token in made)
        assert result.changed_tokens >= 1


async def test_the_footer_shows_only_the_keys_the_lens_chosen_takes() -> None:
    # The footer kept the first lens's keys: on Fragments (a toggle) and Vocabulary sums (nothing to set) it
    # offered '←/→ Slide' and '/ Edit text', which did nothing, and no 'space Toggle' on Fragments.
    from tests.ui.test_key_footer import footer_keys

    app = make_app(session=session_with(english_500()), start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert {"left", "slash"} <= {key.key for key in footer_keys(app)}  # the merge slider: both
        for name, shown, hidden in (("fragments", {"space", "slash"}, {"left"}), ("vocab", set(), {"left", "slash", "space"})):
            while pilot.app.screen.spec is not lens_named(name):
                await pilot.press("down")
                await ready(pilot)
            keys = {key.key for key in footer_keys(app)}
            assert shown <= keys and not hidden & keys, name
