"""``min_count`` (``bpe-tui train --min-count C``): pre-tokens rarer than C in the whole corpus are dropped
before merging. The fast trainer must equal ``core.reference`` on the pruned counts whichever way it reads
(one process, two workers, a Dask cluster), the pruning is recorded in the saved file, and C < 1 is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bpe_tui.__main__ import main
from core import reference
from core.errors import SettingsError
from core.formats import load_tokenizer
from core.train import dask_counting
from core.train.events import TrainingFinished
from core.train.run import TrainingRun, train_bpe
from tests.core.corpus.corpus_cases import SPECIAL, joined_text, sample_documents, write_shard
from tests.core.test_reference_equality import plain, pool_reading, shared_reading

TEXT = joined_text(sample_documents())


def test_a_toy_corpus_pruned_by_hand(tmp_path: Path) -> None:
    """``ab ab ab cd`` is ``ab`` once, `` ab`` twice and `` cd`` once. All kept: ``a b`` (3) is merged, then
    `` ab`` (2), then the tie of `` c`` and ``cd`` (1 each) goes to the greater ``cd``, then `` cd``. With
    min count 2 only `` ab`` is left: ``a b`` and `` ab`` (2 each, ``a`` > `` ``), then no pair."""
    corpus = tmp_path / "toy.txt"
    corpus.write_text("ab ab ab cd", encoding="utf-8")
    assert train_bpe(corpus, 260, [])[1] == [(b"a", b"b"), (b" ", b"ab"), (b"c", b"d"), (b" ", b"cd")]
    assert train_bpe(corpus, 260, [], min_count=2)[1] == [(b"a", b"b"), (b" ", b"ab")]
    assert reference.train("ab ab ab cd", 260, min_count=2)[1] == [(b"a", b"b"), (b" ", b"ab")]


@pytest.mark.parametrize(
    ("workers", "route"), [(1, plain), (2, shared_reading), (2, pool_reading)], ids=["1-worker", "2-shared", "2-pool"]
)
@pytest.mark.parametrize("min_count", [2, 5])
def test_the_fast_trainer_equals_the_reference_on_pruned_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int, route: Callable[[pytest.MonkeyPatch], None],
    min_count: int,
) -> None:
    route(monkeypatch)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    run = TrainingRun(corpus, 400, [SPECIAL], workers=workers, min_count=min_count)
    [finished] = [event for event in run.events() if isinstance(event, TrainingFinished)]
    assert (finished.model.vocab, finished.model.merges) == reference.train(TEXT, 400, [SPECIAL], min_count=min_count)
    pretokens = reference.count_pretokens(TEXT, [SPECIAL])
    assert run.pretokens_pruned == sum(1 for n in pretokens.values() if n < min_count) > 0


def test_the_character_base_is_built_from_the_kept_pre_tokens(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    vocab, merges = train_bpe(corpus, 1500, [SPECIAL], base="chars", min_char_count=2, min_count=3)
    assert (vocab, merges) == reference.train(TEXT, 1500, [SPECIAL], base="chars", min_char_count=2, min_count=3)
    # Pruning changed the result: the same run without it (test_char_base holds that run to the reference).
    assert (vocab, merges) != train_bpe(corpus, 1500, [SPECIAL], base="chars", min_char_count=2)


def test_a_dask_cluster_prunes_the_added_up_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each shard's counts are added up before pruning: a pre-token seen once in each of three shards stays."""
    monkeypatch.setattr(dask_counting, "LOCAL_PROCESSES", False)  # threads: the same client and futures
    documents = sample_documents()
    for index in range(3):
        write_shard(tmp_path / "corpus", f"part-{index}.jsonl", documents[index::3])
    text = joined_text([d for index in range(3) for d in documents[index::3]])
    vocab, merges = train_bpe(tmp_path / "corpus", 400, [SPECIAL], dask="local:2", min_count=3)
    assert (vocab, merges) == reference.train(text, 400, [SPECIAL], min_count=3)


def test_the_saved_file_records_the_pruning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    assert main(["train", str(corpus), "--vocab-size", "400", "--special-token", SPECIAL, "--min-count", "2",
                 "-o", str(tmp_path / "pruned.json")]) == 0
    assert main(["train", str(corpus), "--vocab-size", "400", "--special-token", SPECIAL,
                 "-o", str(tmp_path / "full.json")]) == 0
    dropped = sum(1 for n in reference.count_pretokens(TEXT, [SPECIAL]).values() if n < 2)
    assert f"dropped {dropped:,} unique pre-tokens seen fewer than 2 times (--min-count)" in capsys.readouterr().err
    pruned, full = load_tokenizer(tmp_path / "pruned.json"), load_tokenizer(tmp_path / "full.json")
    assert pruned.training is not None and full.training is not None
    assert (pruned.training.min_count, pruned.training.pretokens_pruned) == (2, dropped)
    assert (full.training.min_count, full.training.pretokens_pruned) == (None, None)
    assert "min_count" not in (tmp_path / "full.json").read_text(encoding="utf-8")  # files of full runs unchanged
    assert pruned.merges == reference.train(TEXT, 400, [SPECIAL], min_count=2)[1] != full.merges
    assert main(["inspect", str(tmp_path / "pruned.json")]) == 0
    assert f"min_frequency=0, min_count=2 ({dropped:,} pre-tokens dropped)" in capsys.readouterr().out


@pytest.mark.parametrize("value", [0, -1, 1.5, True, "2"])
def test_a_min_count_below_1_or_not_whole_is_refused(tmp_path: Path, value: object) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low low", encoding="utf-8")
    with pytest.raises(SettingsError, match=r"^min count .* must be a whole number >= 1 \(1 keeps every pre-token\)$"):
        TrainingRun(corpus, 300, min_count=value)  # type: ignore[arg-type]


def test_the_cli_refuses_it_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low low", encoding="utf-8")
    assert main(["train", str(corpus), "--vocab-size", "300", "--min-count", "0", "-o", str(tmp_path / "t.json")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "bpe-tui train: error: min count 0 must be a whole number >= 1 (1 keeps every pre-token)"
    ]
    assert not (tmp_path / "t.json").exists()
