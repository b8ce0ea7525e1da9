"""The Study pane trains with the corpus form's special tokens, so each size it reports is the tokenizer the
form would train to that size."""

from __future__ import annotations

from pathlib import Path


from tests.ui.app_harness import SIZE, app_on_corpus, settle
from tests.ui.test_views_study import started_study_spec
from tests.ui.views_harness import session_with

CHAT_MARKERS = ("<|im_start|>", "<|im_end|>")


async def test_the_form_s_special_tokens_reach_the_session(tmp_path: Path) -> None:
    corpus = tmp_path / "chat.txt"
    corpus.write_text("<|im_start|>hi<|im_end|><|im_start|>there<|im_end|>", encoding="utf-8")
    app = app_on_corpus(corpus, tmp_path)
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
    session = session_with()
    session.set_special_tokens(CHAT_MARKERS)
    spec = await started_study_spec(session)
    assert spec.special_tokens == CHAT_MARKERS
