"""The corpus form offers the errors choice of ``bpe-tui train --errors``, so the advice of the invalid-UTF-8
error ("train with errors 'replace'") is something the user can do in the app, by keys alone."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from textual.message import Message
from textual.widgets import Select

from bpe_tui.screens.corpus import CorpusScreen
from bpe_tui.study_process import StudySpec, study_run
from bpe_tui.training_spec import training_run
from bpe_tui.widgets.training_form import parse_settings
from core.analysis.study import StudyFinished
from core.errors import CorpusError
from core.train.events import MergeMade
from tests.ui.app_harness import SIZE, app_on_corpus, settle
from tests.ui.test_views_study import started_study_spec
from tests.ui.views_harness import session_with


def requested(seen: list[Message]) -> list[CorpusScreen.TrainingRequested]:
    return list({id(m): m for m in seen if isinstance(m, CorpusScreen.TrainingRequested)}.values())


async def test_replace_is_chosen_by_keys_and_reaches_the_run(tmp_path: Path) -> None:
    corpus = tmp_path / "latin1.txt"
    corpus.write_bytes(b"\xff\xff\xff")  # three bytes that are not UTF-8
    seen: list[Message] = []
    app = app_on_corpus(corpus, tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        choice = app.screen.query_one("#errors", Select)
        assert choice.value == "strict"
        for _ in range(8):  # tab along the form from the tree until the choice has focus
            if app.focused is choice:
                break
            await pilot.press("tab")
        assert app.focused is choice
        await pilot.press("enter", "down", "enter")  # open the list, pick the next entry
        await pilot.pause()
        assert choice.value == "replace"
        assert app.session.errors == "replace"  # the Study pane reads the corpus by it too
        await pilot.press("ctrl+t")
        await settle(pilot)
    [request] = requested(seen)
    assert request.spec.errors == "replace"
    # The run reads each bad byte as U+FFFD (EF BF BD): three in one pre-token give (EF,BF) and (BF,BD)
    # three times each; the tie goes to the greater pair, (EF,BF).
    merges = [e for e in training_run(request.spec).events() if isinstance(e, MergeMade)]
    assert (merges[0].left, merges[0].right, merges[0].count) == (b"\xef", b"\xbf", 3)


def test_strict_still_refuses_the_file(tmp_path: Path) -> None:
    corpus = tmp_path / "latin1.txt"
    corpus.write_bytes(b"ab \xff")
    settings, problems = parse_settings("300", "", "", "0")
    assert settings is not None and settings.errors == "strict" and problems == []
    with pytest.raises(CorpusError, match="byte offset 3.*errors 'replace'"):
        list(training_run(settings.spec(corpus_path=corpus)).events())


async def test_the_study_pane_reads_the_corpus_by_the_forms_errors(tmp_path: Path) -> None:
    # The study's error advises errors 'replace' as training's does; chosen in the form, it reaches the study.
    corpus = tmp_path / "latin1.txt"
    corpus.write_bytes("café crème, déjà vu; low lower lowest\n".encode("latin-1") * 20)
    with pytest.raises(CorpusError, match="errors 'replace'"):
        list(study_run(StudySpec(corpus, (270,))).events())
    session = session_with()
    session.set_corpus(corpus)
    session.set_corpus_reading("text", False, "replace")
    spec = await started_study_spec(session)
    assert spec.errors == "replace"
    small = replace(spec, sizes=(260,))  # the pane's sizes are more than this small corpus has pairs for
    [finished] = [event for event in study_run(small).events() if isinstance(event, StudyFinished)]
    assert finished.study.sizes[0].vocab == 260 and finished.study.sizes[0].tokens["corpus"] > 0
