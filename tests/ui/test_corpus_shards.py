"""The corpus pane with shards: a folder's shards, records and bytes; ``f`` picks a folder; training on it."""

from __future__ import annotations

from pathlib import Path

from textual.message import Message
from textual.widgets import DirectoryTree

from bpe_tui.screens.corpus import CorpusScreen
from bpe_tui.training_runner import TrainingRunner
from core import reference
from tests.core.corpus.corpus_cases import SPECIAL, joined_text, sample_documents, write_shard
from tests.ui.app_harness import SIZE, make_app, make_session, settle, tree_loaded
from tests.ui.test_app_training import errors, real_services, train, wait_for

DOCUMENTS = sample_documents()[:90]


def shards_folder(root: Path) -> Path:
    write_shard(root / "web", "a.jsonl.gz", DOCUMENTS[:40])
    write_shard(root / "web", "b.parquet", DOCUMENTS[40:])
    (root / "web" / "notes.md").write_text("not a shard", encoding="utf-8")
    return root / "web"


async def test_a_folder_shows_its_shards_records_and_bytes(tmp_path: Path) -> None:
    folder = shards_folder(tmp_path)
    seen: list[Message] = []
    app = make_app(session=make_session(folder), services=real_services(tmp_path))
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        scanned = [m for m in seen if isinstance(m, CorpusScreen.ShardsScanned)]
        final = scanned[-1].summary
        assert final.complete and final.problem is None
        assert [(Path(s.shard.path).name, s.records) for s in final.shards] == [("a.jsonl.gz", 40), ("b.parquet", 50)]
        assert final.text_bytes == sum(len(d.encode("utf-8")) for d in DOCUMENTS)
        assert final.corpus.ignored == 1
        previews = [m for m in seen if isinstance(m, CorpusScreen.PreviewRead) and m.path == folder]
        assert previews and previews[-1].text.startswith("── a.jsonl.gz · record 1 ──\n" + DOCUMENTS[0][:20])


async def test_f_picks_the_highlighted_folder(tmp_path: Path) -> None:
    folder = shards_folder(tmp_path)
    (tmp_path / "story.txt").write_text("a plain corpus", encoding="utf-8")
    app = make_app(session=make_session(tmp_path / "story.txt"), services=real_services(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await tree_loaded(pilot)
        tree = app.screen.query_one(DirectoryTree)
        tree.focus()
        line = next(n.line for n in tree.root.children if n.data.path == folder)
        tree.cursor_line = line
        await pilot.pause()
        assert app.session.corpus_path == tmp_path / "story.txt"  # highlighting a folder alone picks nothing
        await pilot.press("f")
        await settle(pilot)
        assert app.session.corpus_path == folder


async def test_train_on_a_folder_of_shards(tmp_path: Path) -> None:
    folder = shards_folder(tmp_path)
    seen: list[Message] = []
    app = make_app(session=make_session(folder), services=real_services(tmp_path))
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await train(pilot, 300, workers=2)
        finished = await wait_for(pilot, seen, TrainingRunner.Finished, timeout=60)
        model = finished[0].model
        assert (model.vocab, model.merges) == reference.train(joined_text(DOCUMENTS), 300, [SPECIAL])
        assert not errors(seen)


async def test_a_bad_shard_is_shown_in_the_stats(tmp_path: Path) -> None:
    (tmp_path / "bad.jsonl").write_bytes(b'{"text": "fine"}\n{"text": 3}\n')
    seen: list[Message] = []
    app = make_app(session=make_session(tmp_path / "bad.jsonl"), services=real_services(tmp_path))
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        final = [m for m in seen if isinstance(m, CorpusScreen.ShardsScanned)][-1].summary
        assert final.complete and final.records == 1
        assert final.problem == f"{tmp_path / 'bad.jsonl'}: line 2: the 'text' value is a number, not a string; " \
                                "fix the record or skip bad records"


async def test_the_dashboard_shows_shard_progress_while_reading() -> None:
    """A run held while reading shards: the dashboard's rates line says shards, documents and workers."""
    from core.train.events import PhaseProgress, ShardsRead
    from tests.ui.app_harness import CORPUS_ROOT, FrozenProbe, HeldSource, held_factory, make_services
    from tests.ui.test_dashboard_outcomes import text_of

    first = [ShardsRead(0, 5, 0, 0, 2), PhaseProgress("reading", 0, 1000),
             ShardsRead(2, 5, 300, 1, 2), PhaseProgress("reading", 400, 1000)]
    services = make_services(source_factory=held_factory(HeldSource(first)), probe_factory=lambda pid: FrozenProbe(pid))
    app = make_app(session=make_session(CORPUS_ROOT / "story.txt"), services=services)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+t")
        for _ in range(100):  # the runner's worker posts the progress; wait for that state, not for time
            await pilot.pause(0.02)
            if "shards" in text_of(app.screen, "#rates"):
                break
        assert text_of(app.screen, "#rates").startswith("2/5 shards · 300 documents · 1 skipped · 2 workers · RSS ")
        await pilot.press("s")
        await settle(pilot)
