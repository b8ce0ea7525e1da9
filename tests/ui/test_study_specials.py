"""The Study pane trains with the corpus form's special tokens, so each size it reports is the tokenizer the
form would train to that size."""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from bpe_tui.screens.study import StudyScreen
from tests.ui.app_harness import SIZE, make_app, make_services, make_session, settle
from tests.ui.test_app_training import wait_for_state
from tests.ui.test_views_study import SilentSource
from tests.ui.views_harness import ViewsApp, session_with

CHAT_MARKERS = ("<|im_start|>", "<|im_end|>")


async def test_the_form_s_special_tokens_reach_the_session(tmp_path: Path) -> None:
    corpus = tmp_path / "chat.txt"
    corpus.write_text("<|im_start|>hi<|im_end|><|im_start|>there<|im_end|>", encoding="utf-8")
    app = make_app(session=make_session(corpus), services=make_services(corpus_root=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.session.special_tokens == ("<|endoftext|>",)  # the form's default
        app.screen.query_one("#specials").value = " ".join(CHAT_MARKERS)
        await settle(pilot)
        assert app.session.special_tokens == CHAT_MARKERS
        app.screen.query_one("#specials").value = ""
        await settle(pilot)
        assert app.session.special_tokens == ()


async def test_a_study_trains_with_the_session_s_special_tokens() -> None:
    # The pane trained with <|endoftext|> whatever the form said: with chat markers in the form, the markers
    # were merged as text and every size differed from the tokenizer the form trains.
    sources, factory = SilentSource.recorder()

    session = session_with()
    session.set_special_tokens(CHAT_MARKERS)
    app: App = ViewsApp(lambda session: StudyScreen(session, source_factory=factory), session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await wait_for_state(pilot, lambda: bool(sources) and sources[0].polled.is_set(), "the study to start")
        await pilot.press("s")
        await settle(pilot)
    assert sources[0].spec.special_tokens == CHAT_MARKERS
