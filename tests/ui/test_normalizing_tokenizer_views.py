"""The workbench's and Compare's counts for a tokenizer that normalizes its text (Qwen2's NFC), on text typed
decomposed (as macOS writes file names): its tokens hold fewer bytes than the text, and the panes measured
the window coverage by the tokens' bytes, which no longer added up ('could not tokenize the text')."""

from __future__ import annotations

import unicodedata
from dataclasses import replace

from bpe_tui.boundaries_text import measure_text
from bpe_tui.screens.compare import compare_texts
from bpe_tui.session import LoadedTokenizer
from tests.ui.views_harness import bilingual_800

DECOMPOSED = "cafe\u0301 か\u3099っこう\nre\u0301sume\u0301"


def nfc_800() -> LoadedTokenizer:
    loaded = bilingual_800()
    return LoadedTokenizer.from_model(replace(loaded.model, normalizer="NFC"), name="nfc-800")


def test_the_workbench_measures_decomposed_text_as_typed() -> None:
    measured = measure_text(nfc_800(), DECOMPOSED, (1, 4096))
    first, whole = measured.coverage
    assert whole.whole and whole.chars == len(DECOMPOSED) and whole.bytes == len(DECOMPOSED.encode("utf-8"))
    assert first.tokens == 1 and 0 < first.bytes < whole.bytes
    assert measured.ids == tuple(nfc_800().tokenizer.encode(unicodedata.normalize("NFC", DECOMPOSED)))


def test_compare_lines_up_a_normalizing_tokenizer_with_one_that_does_not() -> None:
    comparison = compare_texts([nfc_800(), bilingual_800()], DECOMPOSED, windows=(4096,))
    assert all(len(row) == len(DECOMPOSED) for row in comparison.aligned.styles)


async def test_the_workbench_draws_decomposed_text_with_a_normalizing_tokenizer() -> None:
    """The workbench of a Qwen2-style tokenizer on decomposed text: the tokens drawn, no 'could not tokenize'."""
    from textual.notifications import Notify

    from tests.ui.app_harness import SIZE, make_app, settle
    from tests.ui.test_wide_text import paste_into_workbench, workbench_lines
    from tests.ui.views_harness import session_with

    seen: list[object] = []
    app = make_app(session=session_with(nfc_800()), start_mode="boundaries")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        await paste_into_workbench(app, pilot, DECOMPOSED)
        assert any("caf" in line for line in workbench_lines(app)[1])
    errors = [m.notification.message for m in seen if isinstance(m, Notify) and m.notification.severity == "error"]
    assert errors == []
