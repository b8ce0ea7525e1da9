"""The corpus form's shard options: the text field and the skip-bad-records toggle, set by keys, reach the
run, the corpus pane's counts and the Study pane, and the errors about bad records name them."""

from __future__ import annotations

import json
from pathlib import Path

from textual.message import Message
from textual.notifications import Notify
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Checkbox, Input

from bpe_tui.__main__ import main
from bpe_tui.screens.corpus import CorpusScreen
from bpe_tui.study_process import StudySpec, study_run
from bpe_tui.training_runner import TrainingRunner
from core import reference
from core.analysis.study import StudyFinished
from core.formats import load_tokenizer
from core.train.run import train_bpe
from tests.core.corpus.corpus_cases import SPECIAL, joined_text, sample_documents
from tests.ui.app_harness import SIZE, settle
from tests.ui.test_app_training import corpus_app, errors, wait_for, wait_for_state
from tests.ui.test_views_study import started_study_spec
from tests.ui.views_harness import session_with

DOCUMENTS = sample_documents()[:60]


def json_lines(path: Path, records: list[object]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


async def focus_by_tab(pilot: Pilot, widget: Widget) -> None:
    """Tab along the pane until ``widget`` has focus, as a user would."""
    for _ in range(12):
        if pilot.app.focused is widget:
            return
        await pilot.press("tab")
    assert pilot.app.focused is widget


async def type_text_field(pilot: Pilot, value: str) -> None:
    field = pilot.app.screen.query_one("#text-field", Input)
    await focus_by_tab(pilot, field)
    await pilot.press("end", *["backspace"] * len(field.value), *value)
    await pilot.pause()
    assert field.value == value


def last_summary(seen: list[Message], path: Path):
    return [m for m in seen if isinstance(m, CorpusScreen.ShardsScanned) and m.path == path][-1].summary


def notices(seen: list[Message], title: str) -> list[str]:
    return [m.notification.message for m in seen if isinstance(m, Notify) and m.notification.title == title]


async def test_a_content_field_is_counted_and_trained_once_set(tmp_path: Path) -> None:
    corpus = json_lines(tmp_path / "docs.jsonl", [{"id": i, "content": d} for i, d in enumerate(DOCUMENTS)])
    seen: list[Message] = []
    app = corpus_app(corpus, tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        assert app.screen.query_one("#shard-options").display  # a .jsonl is read as shards
        failed = [m.reason for m in seen if isinstance(m, CorpusScreen.ScanFailed)][-1]  # no first record to preview
        assert "line 1: no 'text' field (fields: 'id', 'content')" in failed
        assert "set the text field" in failed and "--text-field" not in failed
        await type_text_field(pilot, "content")
        await wait_for_state(pilot, lambda: last_summary(seen, corpus).complete
                             and last_summary(seen, corpus).records == len(DOCUMENTS), "the re-count by 'content'")
        assert last_summary(seen, corpus).problem is None
        assert (app.session.text_field, app.session.skip_bad_records) == ("content", False)
        await pilot.press("ctrl+t")
        finished = await wait_for(pilot, seen, TrainingRunner.Finished, timeout=60)
        assert finished[0].spec.text_field == "content"
        merges = finished[0].model.merges
    assert not errors(seen)
    assert main(["train", str(corpus), "--vocab-size", "1000", "--special-token", SPECIAL, "--text-field", "content",
                 "-o", str(tmp_path / "cli.json")]) == 0
    assert merges == load_tokenizer(tmp_path / "cli.json").merges
    assert merges == reference.train(joined_text(DOCUMENTS), 1000, [SPECIAL])[1]


async def test_a_bad_record_names_the_toggle_and_the_toggle_skips_it(tmp_path: Path) -> None:
    records: list[object] = [{"text": d} for d in DOCUMENTS[:30]] + [{"text": 7}] + [{"text": d} for d in DOCUMENTS[30:]]
    corpus = json_lines(tmp_path / "bad.jsonl", records)
    seen: list[Message] = []
    app = corpus_app(corpus, tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        failed = await wait_for(pilot, seen, TrainingRunner.Failed, timeout=60)
        assert "line 31: the 'text' value is a number" in failed[0].message
        assert failed[0].message.endswith("skip bad records") and "--skip" not in failed[0].message
        assert any("skip bad records" in message for message in errors(seen))
        await pilot.press("1")  # back to the corpus pane
        await settle(pilot)
        toggle = app.screen.query_one("#skip-bad-records", Checkbox)
        await focus_by_tab(pilot, toggle)
        await pilot.press("space")
        await pilot.pause()
        assert toggle.value and app.session.skip_bad_records
        await pilot.press("ctrl+t")
        finished = await wait_for(pilot, seen, TrainingRunner.Finished, timeout=60)
        assert finished[0].spec.skip_bad_records
        model = finished[0].model
        progress = app.training.progress
        assert progress is not None and progress.shards is not None and progress.shards.skipped == 1
    assert any("Skipped 1 bad record." in message for message in notices(seen, "Training finished"))
    # The run trained on the good records alone: as the library trains on them joined into one text file
    # (the test above holds the same records to core.reference).
    joined = tmp_path / "good.txt"
    joined.write_text(joined_text(DOCUMENTS), encoding="utf-8")
    assert model.merges == train_bpe(joined, 1000, [SPECIAL])[1]


def test_a_text_field_left_empty_is_refused_as_the_cli_refuses_it() -> None:
    from bpe_tui.widgets.training_form import parse_settings

    settings, problems = parse_settings("300", SPECIAL, "", "0", text_field="")
    assert settings is None and problems == ["text field '' must be a non-empty field or column name"]
    settings, problems = parse_settings("300", SPECIAL, "", "0", text_field="body", skip_bad_records=True)
    assert settings is not None and problems == []
    spec = settings.spec(corpus_path=Path("c.jsonl"))
    assert (spec.text_field, spec.skip_bad_records) == ("body", True)


async def test_the_study_pane_reads_the_corpus_as_the_form_says(tmp_path: Path) -> None:
    corpus = json_lines(tmp_path / "docs.jsonl", [{"content": d} for d in DOCUMENTS[:20]] + ["not an object"])
    session = session_with()
    session.set_corpus(corpus)
    session.set_corpus_reading("content", True)
    spec = await started_study_spec(session)
    assert (spec.corpus_path, spec.text_field, spec.skip_bad_records) == (corpus, "content", True)
    run = study_run(StudySpec(corpus, (258, 260), special_tokens=(SPECIAL,), text_field="content", skip_bad_records=True))
    [finished] = [event for event in run.events() if isinstance(event, StudyFinished)]
    expected = reference.train(joined_text(DOCUMENTS[:20]), 260, [SPECIAL])[1]
    assert [size.vocab for size in finished.study.sizes] == [258, 260]
    assert run.run.merges == expected


async def test_the_shard_counts_read_invalid_utf8_by_the_forms_errors(tmp_path: Path) -> None:
    """With errors 'replace' chosen, training reads a record of invalid UTF-8 as U+FFFD, but the pane's scan
    read strictly: it stopped there with 'fix the record or skip bad records' and never counted the rest."""
    good = [json.dumps({"text": d}).encode() + b"\n" for d in DOCUMENTS]
    corpus = tmp_path / "latin1.jsonl"
    corpus.write_bytes(b"".join(good[:10]) + b'{"text": "caf\xe9"}\n' + b"".join(good[10:]))
    seen: list[Message] = []
    app = corpus_app(corpus, tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        await wait_for_state(pilot, lambda: last_summary(seen, corpus).complete, "the strict count")
        assert "line 11: invalid UTF-8" in (last_summary(seen, corpus).problem or "")
        assert last_summary(seen, corpus).records == 10
        app.session.set_corpus_reading("text", False, "replace")  # as the form's errors choice sets it
        await wait_for_state(pilot, lambda: last_summary(seen, corpus).complete
                             and last_summary(seen, corpus).problem is None, "the count by 'replace'")
        assert last_summary(seen, corpus).records == len(DOCUMENTS) + 1
