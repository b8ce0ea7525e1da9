"""The structural diff: against a tokenizer trained by Hugging Face ``tokenizers`` on the same corpus, GPT-2's
files, a rank file and hand-checked toys; tie verdicts are checked by recounting with ``core.reference``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from tests.data_paths import GPT2_VOCAB, SAMPLES

from core import reference
from core.analysis.diff import (
    corpus_word_counts, counting_differences, encoding_diff, pair_counts_after, shared_prefix, structural_diff
)
from core.errors import CorpusError
from core.formats import load_tokenizer, save_tokenizer
from core.formats.byte_alphabet import decode_bytes
from core.model import BPEModel
from core.train.reading import count_pretokens
from core.train.run import TrainingRun

CORPUS = SAMPLES / "english.txt"
VOCAB_SIZE = 600


def hf_trained(corpus: Path, vocab_size: int, folder: Path) -> Path:
    """A byte-level BPE trained by HF tokenizers (GPT-2 split, no prefix space, all 256 bytes), saved as JSON."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers, trainers

    tokenizer = tokenizers.Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tokenizer.train([str(corpus)], trainer)
    path = folder / "tokenizer.json"
    tokenizer.save(str(path))
    return path


def ours_trained(corpus: Path, vocab_size: int) -> BPEModel:
    run = TrainingRun(corpus, vocab_size, [], workers=1)
    for _ in run.events():
        pass
    return run.result()


def reference_pair_counts(text: str, merges: list[tuple[bytes, bytes]]) -> dict[tuple[bytes, bytes], int]:
    """Pair counts after ``merges``, by the plain reference: merge every word, one merge at a time, recount."""
    words = reference.count_words(text)
    for pair in merges:
        words = reference.merge_words(words, pair)
    return reference.count_pairs(words)


@pytest.fixture(scope="module")
def ours_and_hf(tmp_path_factory: pytest.TempPathFactory) -> tuple[BPEModel, BPEModel]:
    folder = tmp_path_factory.mktemp("hf")
    return ours_trained(CORPUS, VOCAB_SIZE), load_tokenizer(hf_trained(CORPUS, VOCAB_SIZE, folder))


def test_hf_trained_tokenizer_first_diverges_at_a_tie(ours_and_hf: tuple[BPEModel, BPEModel]) -> None:
    ours, hf = ours_and_hf
    text = CORPUS.read_text(encoding="utf-8")
    diff = structural_diff(ours, hf, word_counts=count_pretokens(text, [], ours.pattern))
    divergence = diff.first_divergence
    assert divergence is not None and divergence.rank == diff.shared_prefix
    assert 0 < diff.shared_prefix < len(ours.merges)
    assert ours.merges[: diff.shared_prefix] == hf.merges[: diff.shared_prefix]
    assert divergence.a == ours.merges[divergence.rank] != divergence.b == hf.merges[divergence.rank]
    counts = reference_pair_counts(text, ours.merges[: diff.shared_prefix])
    best = max(counts.values())
    assert counts[divergence.a] == counts[divergence.b] == best  # both were the most frequent pair: a tie
    assert (divergence.tie, divergence.source) == (True, "corpus")
    assert divergence.count_a == divergence.count_b == best


def test_without_a_corpus_the_runner_up_recorded_by_training_tells_the_tie(
    ours_and_hf: tuple[BPEModel, BPEModel]
) -> None:
    ours, hf = ours_and_hf
    divergence = structural_diff(ours, hf).first_divergence
    assert divergence is not None and (divergence.tie, divergence.source) == (True, "runner-up")
    reversed_divergence = structural_diff(hf, ours).first_divergence
    assert reversed_divergence is not None
    assert (reversed_divergence.tie, reversed_divergence.source) == (None, "unknown")  # HF records no counts


def test_overlap_and_moved_ids_are_by_token_bytes(ours_and_hf: tuple[BPEModel, BPEModel]) -> None:
    ours, hf = ours_and_hf
    diff = structural_diff(ours, hf)
    tokens_ours, tokens_hf = set(ours.vocab.values()), set(hf.vocab.values())
    assert (diff.overlap.shared, diff.overlap.only_a, diff.overlap.only_b) == (
        len(tokens_ours & tokens_hf), len(tokens_ours - tokens_hf), len(tokens_hf - tokens_ours)
    )
    ids_hf = {token: token_id for token_id, token in hf.vocab.items()}
    assert diff.moved.count == sum(1 for i, t in ours.vocab.items() if t in ids_hf and ids_hf[t] != i)


def test_moved_ids_against_gpt2_files() -> None:
    ours = ours_trained(CORPUS, 300)
    gpt2 = load_tokenizer(GPT2_VOCAB)
    diff = structural_diff(ours, gpt2)
    ids_gpt2 = {decode_bytes(text): token_id for text, token_id in json.loads(GPT2_VOCAB.read_text("utf-8")).items()}
    token, id_ours, id_gpt2 = diff.moved.examples[0]
    assert (token, id_ours, id_gpt2) == (b"\x00", 0, ids_gpt2[b"\x00"])  # GPT-2 numbers printable bytes first
    assert diff.shared_prefix == shared_prefix(ours.merges, gpt2.merges) < 5


def test_a_rank_file_of_the_same_tokenizer_does_not_diverge(tmp_path: Path) -> None:
    ours = ours_trained(CORPUS, 400)
    rank_file = save_tokenizer(ours, tmp_path / "t.tiktoken", format="tiktoken")[0]
    diff = structural_diff(ours, load_tokenizer(rank_file))
    assert diff.shared_prefix == len(ours.merges) and diff.first_divergence is None
    assert (diff.overlap.only_a, diff.overlap.only_b, diff.moved.count) == (0, 0, 0)


def test_toy_divergence_that_is_not_a_tie() -> None:
    # "low" x3 and "lower" x2: after (l, o) the pair (lo, w) counts 5 and (w, e) counts 2.
    base = {i: bytes([i]) for i in range(256)}
    a = BPEModel(base | {256: b"lo", 257: b"low"}, [(b"l", b"o"), (b"lo", b"w")])
    b = BPEModel(base | {256: b"lo", 257: b"we"}, [(b"l", b"o"), (b"w", b"e")])
    diff = structural_diff(a, b, word_counts={"low": 3, "lower": 2})
    divergence = diff.first_divergence
    assert diff.shared_prefix == 1
    assert divergence is not None and (divergence.tie, divergence.count_a, divergence.count_b) == (False, 5, 2)
    assert (diff.overlap.shared, diff.overlap.only_a, diff.overlap.only_b) == (257, 1, 1)


def test_one_merge_list_a_prefix_of_the_other() -> None:
    base = {i: bytes([i]) for i in range(256)}
    a = BPEModel(base | {256: b"lo"}, [(b"l", b"o")])
    b = BPEModel(base | {256: b"lo", 257: b"low"}, [(b"l", b"o"), (b"lo", b"w")])
    divergence = structural_diff(a, b, word_counts={"low": 1}).first_divergence
    assert divergence is not None and (divergence.rank, divergence.a, divergence.b, divergence.tie) == (
        1, None, (b"lo", b"w"), None
    )
    assert structural_diff(a, a).first_divergence is None


def test_pair_counts_after_equal_the_reference_on_a_real_corpus() -> None:
    text = (SAMPLES / "mixed.txt").read_text(encoding="utf-8")
    merges = ours_trained(SAMPLES / "mixed.txt", 330).merges
    for prefix in (0, 17, len(merges)):
        assert pair_counts_after(count_pretokens(text, [], reference.GPT2_PATTERN), merges[:prefix]) == (
            reference_pair_counts(text, merges[:prefix])
        )


def test_encoding_diff_of_equal_and_different_splits() -> None:
    assert encoding_diff([b"a", b"b"], [b"a", b"b"]).same
    shorter = encoding_diff([b"ab"], [b"a", b"b"])
    assert (shorter.same, shorter.first_difference, shorter.cuts_only_a, shorter.cuts_only_b) == (False, 0, 0, 1)


def trained(corpus: Path, vocab_size: int, special_tokens: tuple[str, ...] = (), **options: object) -> BPEModel:
    options.setdefault("workers", 1)
    run = TrainingRun(corpus, vocab_size, list(special_tokens), **options)
    for _ in run.events():
        pass
    return run.result()


def reference_counts_of(
    words: Counter[reference.Word], merges: list[tuple[bytes, bytes]]
) -> Counter[tuple[bytes, bytes]]:
    for pair in merges:
        words = reference.merge_words(words, pair)
    return reference.count_pairs(words)


@pytest.mark.parametrize("min_char_count", [1, 3])
def test_the_recount_starts_from_characters_for_a_character_base(min_char_count: int) -> None:
    # A character base merges characters (a rare one cuts its pre-token): a recount from bytes found A's own
    # first merge 0 times, and B's byte pair thousands of times, and called it "not a tie" the wrong way round.
    corpus = SAMPLES / "japanese.txt"
    chars = trained(corpus, 1400, base="chars", min_char_count=min_char_count)
    byte_level = trained(corpus, 300)
    text = corpus.read_text(encoding="utf-8")
    word_counts = count_pretokens(text, [], chars.pattern)
    divergence = structural_diff(chars, byte_level, word_counts=word_counts).first_divergence
    assert divergence is not None and divergence.rank == 0 and divergence.source == "corpus"
    words = reference.count_char_words(text, min_char_count=min_char_count)
    counts = reference_counts_of(words, [])
    assert divergence.count_a == counts[chars.merges[0]] == chars.merge_count(0) > 0
    assert divergence.count_b == counts[byte_level.merges[0]] == 0  # bytes of a character are never a pair here
    assert divergence.tie is False


def test_the_recount_drops_the_pre_tokens_a_min_count_dropped() -> None:
    # Pruned pre-tokens add nothing to the counts A's training compared; counting them made B's pair look
    # more frequent than the pair A picked.
    corpus = SAMPLES / "english.txt"
    pruned, whole = trained(corpus, 300, min_count=2), trained(corpus, 300)
    text = corpus.read_text(encoding="utf-8")
    diff = structural_diff(pruned, whole, word_counts=count_pretokens(text, [], pruned.pattern))
    divergence = diff.first_divergence
    assert divergence is not None and divergence.source == "corpus"
    words = reference.byte_words(reference.prune(reference.count_pretokens(text), 2))
    counts = reference_counts_of(words, pruned.merges[: diff.shared_prefix])
    assert divergence.count_a == counts[divergence.a] == pruned.merge_count(divergence.rank)
    assert divergence.count_b == counts[divergence.b] < divergence.count_a
    assert divergence.tie is False


def test_recorded_counts_of_one_corpus_counted_otherwise_do_not_make_a_tie() -> None:
    # With <|endoftext|> a special token, A never counts the "te" inside it; B does. Both recorded 40 at the
    # rank where they part, which the diff called a tie, but in A's counts B's pair had 25: the special
    # token, not the tie rule, made them differ.
    corpus = SAMPLES / "english.txt"
    with_special, without = trained(corpus, 400, ("<|endoftext|>",)), trained(corpus, 400)
    diff = structural_diff(with_special, without)
    divergence = diff.first_divergence
    assert divergence is not None and (divergence.count_a, divergence.count_b) == (40, 40)
    text = corpus.read_text(encoding="utf-8")
    words = reference.count_words(text, ["<|endoftext|>"])
    counts = reference_counts_of(words, with_special.merges[: diff.shared_prefix])
    assert counts[divergence.a] > counts[divergence.b]  # the truth: not a tie
    assert (divergence.tie, divergence.source) == (None, "other settings")
    assert divergence.other_settings == ("special tokens",)
    recounted = structural_diff(
        with_special, without, word_counts=count_pretokens(text, ["<|endoftext|>"], with_special.pattern)
    ).first_divergence
    assert recounted is not None and (recounted.tie, recounted.count_a, recounted.count_b) == (
        False, counts[divergence.a], counts[divergence.b]
    )
    assert counting_differences(trained(corpus, 300, min_count=2), without) == ("min count",)
    assert counting_differences(trained(corpus, 300, workers=2), without) == ()  # workers change nothing


def test_a_corpus_trained_with_errors_replace_is_recounted_as_it_was_read(tmp_path: Path) -> None:
    # A trained on a file with invalid UTF-8 (errors="replace") could not be recounted on that very file:
    # diff --corpus refused it as not UTF-8. It is now read as A's training read it.
    corpus = tmp_path / "latin1.txt"
    corpus.write_bytes(("caf\xe9 " * 40 + "the cat sat " * 30).encode("latin-1"))
    replaced = trained(corpus, 270, errors="replace")
    clean = trained(SAMPLES / "english.txt", 270)
    divergence = structural_diff(replaced, clean, word_counts=corpus_word_counts(corpus, replaced)).first_divergence
    assert divergence is not None and divergence.rank == 0
    assert divergence.count_a == replaced.merge_count(0)
    with pytest.raises(CorpusError, match="invalid UTF-8"):
        corpus_word_counts(corpus, clean)  # trained strictly: the file is refused, as training would


def test_errors_replace_on_a_valid_corpus_counts_it_alike() -> None:
    # A corpus read strictly is valid UTF-8, so "replace" reads it the same: recorded counts still compare.
    corpus = SAMPLES / "english.txt"
    strict, replace = trained(corpus, 300), trained(corpus, 300, errors="replace")
    assert counting_differences(strict, replace) == ()


def test_a_text_corpus_is_counted_in_pieces_not_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # diff --corpus read a text file whole, as bytes and then as a str: a corpus of many gigabytes (CS336's
    # OpenWebText) ran out of memory. It is read in pieces cut where pre-tokens end; the counts are the same.
    text = (SAMPLES / "english.txt").read_text(encoding="utf-8") * 25  # over a megabyte: more than one piece
    corpus = tmp_path / "big.txt"
    corpus.write_text(text, encoding="utf-8")
    model = trained(SAMPLES / "english.txt", 260, ("<|endoftext|>",))

    def whole_file(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("the whole corpus was read at once")

    monkeypatch.setattr(Path, "read_bytes", whole_file)
    monkeypatch.setattr(Path, "read_text", whole_file)
    assert corpus_word_counts(corpus, model) == count_pretokens(text, ["<|endoftext|>"], model.pattern)
