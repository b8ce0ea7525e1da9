"""The stepper names the runner-up pair and the winner, explains ties, steps through the chosen corpus, and says
why a live run ends. Winners and runner-ups are checked against the plain reference trainer (core/reference.py).
"""

from __future__ import annotations

from textual.widgets import DataTable, Static

from bpe_tui.screens.stepper import StepperScreen
from bpe_tui.stepper_sources import CORPUS_BYTES, corpus_head
from bpe_tui.stepper_model import LiveSteps
from core.reference import count_pairs, count_words, merge_words, ranked_pairs
from tests.ui.app_harness import CORPUS_ROOT, SAMPLES, make_app, settle


def reference_rankings(text: str, steps: int) -> list[list[tuple[bytes, bytes, int]]]:
    """The reference's ranked pairs before each of the first ``steps`` merges (winner first, then the runner-up)."""
    words = count_words(text)
    rankings = []
    for _ in range(steps):
        ranked = ranked_pairs(count_pairs(words))
        rankings.append(ranked)
        words = merge_words(words, ranked[0][:2])
    return rankings


def test_runner_up_pairs_match_the_reference_trainer() -> None:
    text = (SAMPLES / "english.txt").read_text(encoding="utf-8")[:4000]
    rankings = reference_rankings(text, 40)
    steps = LiveSteps(text, max_merges=40)
    for k in range(1, 41):
        step = steps.step(k)
        winner, runner_up = rankings[k - 1][0], rankings[k - 1][1]
        assert (step.merge.left, step.merge.right, step.merge.count) == winner
        assert step.runner_up == runner_up
        assert step.merge.won_tie == (winner[2] == runner_up[2])
    back = steps.step(7)  # stepping back retrains, and still names the same runner-up
    assert back.runner_up == rankings[6][1]


def top(app) -> str:
    return str(app.screen.query_one("#stepper-top", Static).render())


async def test_a_tie_is_explained_with_the_rule_and_the_byte_strings() -> None:
    app = make_app(start_mode="stepper")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("right", "right", "right", "right", "right")  # the toy run: the next merge is a tie at 1
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, StepperScreen)
        text = (SAMPLES / "toy.txt").read_text(encoding="utf-8")
        ranked = reference_rankings(text, 6)[5]
        assert ranked[0][2] == ranked[1][2]
        table = screen.query_one("#candidates", DataTable)
        assert str(table.get_cell_at((0, 0))) == "▶ next" and str(table.get_cell_at((1, 0))) == "2nd"
        assert table.border_subtitle.startswith("tie → left ")
        assert repr(ranked[0][0]) in table.border_subtitle and repr(ranked[1][0]) in table.border_subtitle
        await pilot.press("right")
        await settle(pilot)
        lines = top(app).splitlines()
        assert lines[2].startswith("tie: equal counts: the greater pair wins;")


async def test_steps_through_the_corpus_chosen_in_the_corpus_pane_and_says_why_it_stops() -> None:
    app = make_app(start_mode="stepper")  # the harness chooses corpus_root/story.txt
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("c", "c", "c")  # toy -> english -> japanese -> corpus
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, StepperScreen) and screen.source == "corpus"
        await pilot.press("right")
        await settle(pilot)
        text = (CORPUS_ROOT / "story.txt").read_text(encoding="utf-8")
        winner, runner_up = reference_rankings(text, 1)[0][:2]
        assert "live training on story.txt" in top(app)
        assert (screen.shown.merge.left, screen.shown.merge.right, screen.shown.merge.count) == winner
        assert screen.shown.runner_up == runner_up
        await pilot.press("end")
        await settle(pilot)
        assert screen.shown.k == screen.shown.total
        assert "stops here: no pair is left to merge" in top(app)  # a 458-byte story runs out of pairs
        await pilot.press("c", "c", "end")  # tokenizer replay, then the toy run again, at its end
        await pilot.press("c")  # english
        await pilot.press("end")
        await settle(pilot)
        assert screen.source == "english" and screen.shown.k == 500
        assert "stops here: live runs end at 500 merges" in top(app)


def test_corpus_head_cuts_at_a_line_end(tmp_path) -> None:
    path = tmp_path / "big.txt"
    line = "日本語の文と English words.\n"
    path.write_text(line * (CORPUS_BYTES // len(line.encode()) + 50), encoding="utf-8")
    head = corpus_head(path)
    assert head.endswith("\n") and len(head.encode()) <= CORPUS_BYTES
    assert head == line * (len(head) // len(line))
