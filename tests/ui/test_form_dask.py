"""The corpus form's Dask field (``bpe-tui train --dask``): typed by keys it reaches the training process,
which counts on a local cluster and trains the reference merges; a bad address and a machine without the
``dask`` extra are refused before any run, with the CLI's own one-line errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from textual.message import Message
from textual.pilot import Pilot
from textual.widgets import Input

from bpe_tui.__main__ import main
from bpe_tui.screens.corpus import CorpusScreen
from bpe_tui.training_runner import TrainingRunner
from bpe_tui.widgets.training_form import parse_settings
from core import reference
from tests.core.corpus.corpus_cases import SPECIAL, joined_text, sample_documents
from tests.ui.app_harness import SIZE, settle
from tests.ui.test_app_training import corpus_app, errors, set_field, wait_for, wait_for_state
from tests.ui.test_form_shard_options import focus_by_tab

DOCUMENTS = sample_documents()[:60]


def shards(folder: Path, count: int = 3) -> Path:
    """A folder of ``count`` JSON-lines shards holding ``DOCUMENTS`` between them, in file-name order."""
    folder.mkdir()
    for index in range(count):
        records = DOCUMENTS[index * len(DOCUMENTS) // count:(index + 1) * len(DOCUMENTS) // count]
        (folder / f"part-{index}.jsonl").write_text(
            "".join(json.dumps({"text": record}) + "\n" for record in records), encoding="utf-8"
        )
    return folder


async def type_dask(pilot: Pilot, address: str) -> None:
    """Tab to the Dask field and type ``address`` key by key, as a user would."""
    field = pilot.app.screen.query_one("#dask", Input)
    await focus_by_tab(pilot, field)
    await pilot.press(*address)
    await pilot.pause()
    assert field.value == address


def cli_error(capsys: pytest.CaptureFixture[str], corpus: Path, address: str, output: Path) -> str:
    """What ``bpe-tui train --dask ADDRESS`` says on stderr, without its ``bpe-tui train: error:`` prefix."""
    capsys.readouterr()
    status = main(["train", str(corpus), "--vocab-size", "300", "--dask", address, "-o", str(output)])
    lines = capsys.readouterr().err.splitlines()
    assert status == 2 and len(lines) == 1 and not output.exists()
    prefix = "bpe-tui train: error: "
    assert lines[0].startswith(prefix)
    return lines[0][len(prefix):]


async def test_a_local_cluster_typed_in_the_form_counts_the_run(tmp_path: Path) -> None:
    """``local:2`` typed by keys (its ``2`` is text, not the dashboard's pane key) reaches the child's run: the
    shards are counted by the cluster's two workers, not by the three worker processes the form also asks
    for, and the merges are the reference's on the documents joined by the special token."""
    corpus = shards(tmp_path / "corpus")
    seen: list[Message] = []
    app = corpus_app(corpus, tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        await set_field(pilot, "vocab", "330")
        await set_field(pilot, "workers", "3")
        await type_dask(pilot, "local:2")
        assert app.current_mode == "corpus"
        await pilot.press("ctrl+t")
        [finished] = await wait_for(pilot, seen, TrainingRunner.Finished, timeout=120)
        await wait_for_state(pilot, lambda: app.training.progress is not None, "the run's progress")
        progress = app.training.progress
        assert progress is not None and progress.shards is not None
        shards_read = progress.shards
    assert not errors(seen)
    requested = [m for m in seen if isinstance(m, CorpusScreen.TrainingRequested)][-1]  # seen as it bubbles
    assert requested.spec.dask == "local:2" and requested.spec.workers == 3
    assert finished.spec == requested.spec
    assert (shards_read.done, shards_read.total, shards_read.workers) == (3, 3, 2)
    assert (finished.model.vocab, finished.model.merges) == reference.train(joined_text(DOCUMENTS), 330, [SPECIAL])


async def form_refusals(corpus: Path, folder: Path, address: str) -> list[str]:
    """The errors the form shows when ``address`` is typed in the Dask field and ``ctrl+t`` pressed; checks
    that no run was asked for."""
    seen: list[Message] = []
    app = corpus_app(corpus, folder)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        await type_dask(pilot, address)
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.current_mode == "corpus"  # nothing started
    assert not [m for m in seen if isinstance(m, CorpusScreen.TrainingRequested)]
    return errors(seen)


async def test_an_address_not_understood_is_refused_with_the_clis_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = shards(tmp_path / "corpus")
    shown = await form_refusals(corpus, tmp_path, "10.0.0.5:8786")
    expected = cli_error(capsys, corpus, "10.0.0.5:8786", tmp_path / "cli.json")
    assert expected.startswith("--dask '10.0.0.5:8786' is not understood; give a scheduler address")
    assert shown == [expected]


async def test_without_the_dask_extra_the_form_says_which_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = shards(tmp_path / "corpus")
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if dask.distributed were not installed
    shown = await form_refusals(corpus, tmp_path, "local")
    expected = cli_error(capsys, corpus, "local", tmp_path / "cli.json")
    assert expected == "--dask needs the dask.distributed package; install it with: pip install 'bpe-tui[dask]'"
    assert shown == [expected]


def test_a_blank_field_counts_here_and_an_address_is_kept_as_typed() -> None:
    for blank in ("", "   "):
        settings, problems = parse_settings("300", SPECIAL, "", "0", dask=blank)
        assert problems == [] and settings is not None and settings.spec(text="x").dask is None
    settings, problems = parse_settings("300", SPECIAL, "", "0", dask=" tcp://10.0.0.5:8786 ")
    assert problems == [] and settings is not None
    assert settings.spec(corpus_path=Path("c.jsonl")).dask == "tcp://10.0.0.5:8786"
    settings, problems = parse_settings("300", SPECIAL, "", "0", dask="local:0")
    assert settings is None and problems == ["--dask local:0: a local cluster needs at least 1 worker"]
