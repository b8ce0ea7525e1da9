"""The start-up tokenizer keeps ``<|endoftext|>`` whole, as the corpus form's defaults would; the corpus pane warns
about ``<|name|>`` markers that are not special tokens, and trains anyway."""

from __future__ import annotations

from pathlib import Path

from textual.message import Message
from textual.notifications import Notify

from bpe_tui.startup_run import startup_text
from bpe_tui.screens.corpus import CorpusScreen
from bpe_tui.training_spec import TrainingSpec, training_run
from bpe_tui.widgets.corpus_stats import CorpusStatsView
from bpe_tui.widgets.training_form import default_settings
from core.encode.tokenizer import Tokenizer
from core.model import BPEModel
from tests.ui.app_harness import SAMPLES, SIZE, app_on_corpus, app_trained_by, recorded_run, replay_factory, settle

EOT = "<|endoftext|>"


def requested(seen: list[Message]) -> list[TrainingSpec]:
    """The specs of the ``TrainingRequested`` messages seen (each once, though it is seen again as it bubbles)."""
    messages = {id(m): m for m in seen if isinstance(m, CorpusScreen.TrainingRequested)}
    return [m.spec for m in messages.values()]


def trained(spec: TrainingSpec) -> BPEModel:
    """Train ``spec`` in this process, exactly as the app's training process would."""
    run = training_run(spec)
    for _ in run.events():
        pass
    return run.result()


async def startup_spec() -> TrainingSpec:
    """The spec the app hands its training source when it starts on the bundled samples."""
    factory = replay_factory(recorded_run())
    app = app_trained_by(factory, train_on_start=True, start_mode=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
    assert len(factory.specs) == 1
    return factory.specs[0]


async def test_the_start_up_run_treats_the_separator_as_a_special_token() -> None:
    spec = await startup_spec()
    assert spec.special_tokens == (EOT,)
    assert EOT in spec.text and spec.text.count(EOT) == 15 + 9
    model = trained(spec)
    assert model.special_tokens == [EOT]
    assert model.vocab_size == default_settings().vocab_size

    # No token but the special one holds the separator's name or its brackets.
    others = [token for token in model.vocab.values() if token != EOT.encode()]
    assert [t for t in others if b"endoftext" in t or b"<|" in t or b"|>" in t] == []
    # And no merged piece of the separator exists only because of it: each one also occurs in the
    # documents themselves, where the trainer can see it.
    documents = spec.text.split(EOT)
    merged = [model.vocab[token_id] for token_id in range(256, len(model.vocab))]
    pieces = {token for token in merged if token in EOT.encode() and token != EOT.encode()}
    assert all(any(token.decode() in document for document in documents) for token in pieces), pieces

    tokenizer = Tokenizer.from_model(model)
    special_id = tokenizer.special_token_ids[EOT]
    assert tokenizer.encode(EOT) == [special_id]
    assert tokenizer.encode(f"a{EOT}b").count(special_id) == 1


async def test_the_form_with_its_defaults_trains_the_start_up_tokenizer(tmp_path: Path) -> None:
    start_up = await startup_spec()
    corpus = tmp_path / "samples.txt"
    samples = {name: (SAMPLES / f"{name}.txt").read_text(encoding="utf-8") for name in ("english", "japanese")}
    corpus.write_text(startup_text(samples), encoding="utf-8")
    assert corpus.read_text(encoding="utf-8") == start_up.text

    seen: list[Message] = []
    app = app_on_corpus(corpus, tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")  # the form untouched: its defaults
        await settle(pilot)
    specs = requested(seen)
    assert len(specs) == 1
    from_form = specs[0]
    assert from_form.corpus_path == corpus and from_form.text is None
    settings = ("vocab_size", "special_tokens", "workers", "min_frequency")
    assert [getattr(from_form, name) for name in settings] == [getattr(start_up, name) for name in settings]

    a, b = trained(start_up), trained(from_form)
    assert a.merges == b.merges and a.vocab == b.vocab and a.special_tokens == b.special_tokens


# ------------------------------------------------------------------------------- the corpus pane's warning


def warnings(seen: list[Message]) -> list[str]:
    return [m.notification.message for m in seen if isinstance(m, Notify) and m.notification.severity == "warning"]


async def scan_then_train(corpus: Path) -> tuple[list[Message], str]:
    """Choose ``corpus`` in the corpus pane, let the scan finish, press ctrl+t; the messages and the stats text."""
    seen: list[Message] = []
    app = app_on_corpus(corpus, corpus.parent)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        stats_text = app.screen.query_one(CorpusStatsView).render().plain
        await pilot.press("ctrl+t")
        await settle(pilot)
    return seen, stats_text


async def test_unlisted_markers_are_counted_in_the_pane_and_training_goes_on(tmp_path: Path) -> None:
    corpus = tmp_path / "chat.txt"
    corpus.write_text(f"<|im_start|>user hi<|im_end|>{EOT}<|im_start|>bot hello<|im_end|>\n" * 5, encoding="utf-8")
    seen, stats_text = await scan_then_train(corpus)
    final = [m for m in seen if isinstance(m, CorpusScreen.StatsScanned) and m.stats.complete][-1]
    assert final.special_tokens == (EOT,)
    assert final.stats.markers.counts == (("<|im_end|>", 10), ("<|im_start|>", 10))
    assert "20 <|…|> markers are not special tokens" in stats_text and "specials field" in stats_text
    notices = warnings(seen)
    assert len(notices) == 1 and "20 <|…|> markers" in notices[0] and "specials field" in notices[0]
    assert len(requested(seen)) == 1


async def test_no_warning_when_the_markers_are_special_tokens(tmp_path: Path) -> None:
    corpus = tmp_path / "docs.txt"
    corpus.write_text(f"one document{EOT}another, with <| no marker |> in it{EOT}\n" * 5, encoding="utf-8")
    seen, stats_text = await scan_then_train(corpus)
    final = [m for m in seen if isinstance(m, CorpusScreen.StatsScanned) and m.stats.complete][-1]
    assert not final.stats.markers
    assert "<|…|>" not in stats_text and warnings(seen) == []
    assert len(requested(seen)) == 1


async def test_clearing_the_specials_field_makes_the_separator_a_forgotten_marker(tmp_path: Path) -> None:
    corpus = tmp_path / "docs.txt"
    corpus.write_text(f"one{EOT}two{EOT}three", encoding="utf-8")
    seen: list[Message] = []
    app = app_on_corpus(corpus, tmp_path)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        assert "<|…|>" not in app.screen.query_one(CorpusStatsView).render().plain
        app.screen.query_one("#specials").value = ""
        await settle(pilot)
        stats_text = app.screen.query_one(CorpusStatsView).render().plain
        assert f"2 <|…|> markers are not special tokens ({EOT} ×2)" in stats_text
