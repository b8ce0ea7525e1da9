"""The merge stepper driven by keys: live runs on the samples, and replaying a loaded tokenizer."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.message import Message
from textual.notifications import Notify
from textual.widgets import Static

from bpe_tui.screens.stepper import StepperScreen
from bpe_tui.session import LoadedTokenizer
from bpe_tui.stepper_model import LiveSteps, ReplaySteps
from core.model import BPEModel
from tests.ui.app_harness import SAMPLES, SIZE, make_app, make_session, recorded_run, settle


def stepper(app) -> StepperScreen:
    screen = app.screen
    assert isinstance(screen, StepperScreen)
    return screen


async def test_step_forward_back_and_jump_on_the_toy_corpus() -> None:
    app = make_app(start_mode="stepper")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = stepper(app)
        assert screen.shown is not None and screen.shown.k == 0
        assert screen.shown.candidates[0][:2] == (b"o", b"w")
        await pilot.press("right", "right", "right")
        await settle(pilot)
        assert screen.shown.k == 3
        assert [screen.shown.model.merges[i][0] + screen.shown.model.merges[i][1] for i in range(3)] == [
            b"ow",
            b"low",
            b" low",
        ]
        assert screen.shown.merge.token == b" low" and screen.shown.merge.count == 4
        await pilot.press("left")
        await settle(pilot)
        assert screen.shown.k == 2 and screen.shown.merge.token == b"low"
        await pilot.press("end")
        await settle(pilot)
        total = screen.shown.total
        assert total is not None and screen.shown.k == total
        await pilot.press("right")
        await settle(pilot)
        assert screen.shown.k == total  # no step past the end
        await pilot.press("home")
        await settle(pilot)
        assert screen.shown.k == 0 and screen.shown.merge is None


async def test_page_keys_and_sources() -> None:
    app = make_app(start_mode="stepper")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = stepper(app)
        await pilot.press("c")  # english live run
        await settle(pilot)
        assert screen.source == "english" and screen.shown.k == 0
        await pilot.press("pagedown", "pagedown", "pageup")
        await settle(pilot)
        assert screen.shown.k == 10
        reference = LiveSteps((SAMPLES / "english.txt").read_text(encoding="utf-8"), max_merges=10).step(10)
        assert screen.shown.model.merges == reference.model.merges
        assert screen.shown.candidates == reference.candidates
        await pilot.press("t")  # segment another sample's sentence
        await settle(pilot)
        assert screen.text_name() == "japanese"


async def test_play_advances_and_pauses() -> None:
    app = make_app(start_mode="stepper")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = stepper(app)
        await pilot.press("space")
        assert screen.playing
        await pilot.pause(1.0)
        await pilot.press("space")
        await settle(pilot)
        assert not screen.playing
        assert screen.shown.k >= 1


async def test_replaying_a_tokenizer_shows_recorded_counts(tmp_path: Path) -> None:
    finished = recorded_run()[-1]
    model: BPEModel = finished.model  # type: ignore[attr-defined]
    no_counts = BPEModel(model.vocab, model.merges, model.special_tokens, name="no-counts")
    session = make_session()
    session.add_tokenizer(LoadedTokenizer.from_model(model, name="recorded"))
    app = make_app(session=session, start_mode="stepper")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = stepper(app)
        for _ in range(4):  # toy, english, japanese, the chosen corpus, then the tokenizer
            await pilot.press("c")
        await settle(pilot)
        assert screen.source == "tokenizer"
        await pilot.press("right", "right")
        await settle(pilot)
        step = screen.shown
        assert step.k == 2 and step.merge.count == model.merge_counts[1]
        assert [m.rank for m in step.nearby] == list(range(0, 7))
        assert step.model.merges == model.merges[:2]
        # A tokenizer whose file kept no counts shows none rather than inventing them.
        session.add_tokenizer(LoadedTokenizer.from_model(no_counts, name="no-counts"))
        await settle(pilot)
        assert screen.shown.merge is not None and screen.shown.merge.count is None


def test_replay_steps_clamp_and_use_prefixes() -> None:
    model: BPEModel = recorded_run()[-1].model  # type: ignore[attr-defined]
    steps = ReplaySteps(model)
    assert steps.step(-5).k == 0 and steps.step(10**6).k == len(model.merges)
    tokenizer = steps.step(5).tokenizer()
    assert tokenizer.decode(tokenizer.encode("the keeper")) == "the keeper"


def test_live_steps_going_back_retrains_to_the_same_state() -> None:
    text = (SAMPLES / "japanese.txt").read_text(encoding="utf-8")
    jumped = LiveSteps(text, max_merges=60)
    far = jumped.step(60)
    back = jumped.step(30)  # never stood at 30: retrained
    walked = LiveSteps(text, max_merges=60)
    for k in range(31):
        here = walked.step(k)
    assert back.candidates == here.candidates and back.model.merges == here.model.merges
    assert far.model.merges[:30] == back.model.merges


@pytest.mark.parametrize(("content", "reason"), [(b"", "empty"), (b"caf\xe9\n", "not UTF-8 text")])
async def test_a_corpus_it_cannot_step_through_is_named_on_the_top_line_once(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    # The top line said "choose a text file" of a text file, and each step key stacked another notice.
    corpus = tmp_path / "notes.txt"
    corpus.write_bytes(content)
    seen: list[Message] = []
    app = make_app(session=make_session(corpus), start_mode="stepper")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        await pilot.press("c", "c", "c")  # english, japanese, the chosen corpus
        await settle(pilot)
        screen = stepper(app)
        assert screen.source == "corpus" and screen.shown is None
        await pilot.press("right", "right", "right")
        await settle(pilot)
        top = str(screen.query_one("#stepper-top", Static).render())
        assert top == f"notes.txt: {reason}; choose another text file in the corpus pane (1)."
    assert not [m for m in seen if isinstance(m, Notify)]
