"""Corpus export: the ids equal ``Tokenizer.encode`` of the whole file for any chunking and worker count."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tests.core.export.export_cases import ADVERSARIAL, export_ids
from tests.core.formats.format_cases import SPECIAL, encoder, gpt2_model, small_model, train_small
from tests.data_paths import shared_path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import CorpusError, SettingsError
from core.export.run import (
    ExportFinished,
    ExportProgress,
    chunk_ranges,
    export_corpus,
    export_events,
    first_safe_cut,
    npy_header,
)
from core.output_errors import OutputError
from core.model import BPEModel
from core.pretokenize.cuts import AFTER_WHITESPACE, BEFORE_WHITESPACE
from core.pretokenize.patterns import GPT2_PATTERN

@pytest.fixture(scope="module")
def small():
    return small_model()


@pytest.mark.parametrize("workers", [1, 2, 3])
@pytest.mark.parametrize("chunk_bytes", [1, 7, 64, 1000])
def test_adversarial_text_any_chunking(tmp_path: Path, small, workers: int, chunk_bytes: int) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(ADVERSARIAL.encode("utf-8"))
    ids = export_ids(small, corpus, tmp_path / "ids.npy", workers=workers, chunk_bytes=chunk_bytes)
    assert ids.tolist() == encoder(small).encode(ADVERSARIAL)


def test_chunks_really_are_cut(tmp_path: Path, small) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(ADVERSARIAL.encode("utf-8"))
    ranges = list(chunk_ranges(corpus, [SPECIAL], GPT2_PATTERN, 7))
    assert len(ranges) > 100
    assert ranges[0][0] == 0 and ranges[-1][1] == corpus.stat().st_size
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))


@pytest.mark.parametrize("workers", [1, 2])
def test_pattern_without_a_rule_is_cut_only_at_special_tokens(tmp_path: Path, workers: int) -> None:
    model = train_small(pattern=r"\p{L}+|\p{N}+|[^\p{L}\p{N}]+", vocab_size=330)
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(ADVERSARIAL.encode("utf-8"))
    ids = export_ids(model, corpus, tmp_path / "ids.npy", workers=workers, chunk_bytes=5)
    assert ids.tolist() == encoder(model).encode(ADVERSARIAL)
    data = ADVERSARIAL.encode()
    ranges = list(chunk_ranges(corpus, [SPECIAL], model.pattern, 5))
    assert len(ranges) > 10
    for start, _ in ranges[1:]:
        assert data[:start].endswith(SPECIAL.encode()) or data.startswith(SPECIAL.encode(), start)


def test_special_tokens_with_spaces_and_overlaps(tmp_path: Path) -> None:
    specials = ["<a b>", "<a b><a b>", "xx", "\n\n"]
    base = small_model()
    vocab = dict(base.vocab)
    for special in specials:
        vocab[max(vocab) + 1] = special.encode()
    model = BPEModel(vocab, base.merges, specials)
    text = "q <a b><a b><a b> r<a b> xxx  xx\n\n\nz \n\n <a b><a b>" * 20
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text, encoding="utf-8", newline="")
    for chunk_bytes in (1, 2, 3, 5, 11):
        ids = export_ids(model, corpus, tmp_path / "ids.npy", workers=1, chunk_bytes=chunk_bytes)
        assert ids.tolist() == encoder(model).encode(text), chunk_bytes


PIECES = st.sampled_from([" ", "  ", "\n", "\r\n", "\t", "\u3000", "a", "ab", "The", "'s", "'ll", "1", "23", ".", "!?",
                          "日本", "語", "🎉", "\u200d", SPECIAL, "<|", "|>", "é", "\x00", "\x1b"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=st.lists(PIECES, max_size=60), chunk_bytes=st.integers(1, 40))
def test_generated_text(tmp_path: Path, pieces: list[str], chunk_bytes: int) -> None:
    text = "".join(pieces)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text, encoding="utf-8", newline="")
    ids = export_ids(small_model(), corpus, tmp_path / "ids.npy", chunk_bytes=chunk_bytes)
    assert ids.tolist() == encoder(small_model()).encode(text)


def test_cut_rules() -> None:
    # GPT-2's: before the space that follows a letter; never after whitespace (``\s+(?!\S)`` gives it to the
    # next word).
    assert first_safe_cut(b"ab   cd", 1, 7, [], BEFORE_WHITESPACE) == 2
    assert first_safe_cut(b"ab   cd", 3, 7, [], BEFORE_WHITESPACE) is None
    # Words with their trailing whitespace: after the last space of a run, never before the first.
    assert first_safe_cut(b"ab   cd", 1, 7, [], AFTER_WHITESPACE) == 5
    assert first_safe_cut(b"ab   cd", 1, 5, [], AFTER_WHITESPACE) is None
    # Not inside a special token that contains a space; at either edge of an isolated one.
    assert first_safe_cut(b"q<a b>z", 2, 7, [b"<a b>"], BEFORE_WHITESPACE) == 6
    assert first_safe_cut(b"q<a b>z", 1, 7, [b"<a b>"], AFTER_WHITESPACE) == 1
    # Overlapping occurrences (which one matches depends on what came before): no cut there at all.
    assert first_safe_cut(b"x<s><s>y", 2, 8, [b"<s>", b"<s><s>"], None) is None
    assert first_safe_cut(b"x<s><s>y<s>z", 2, 12, [b"<s>", b"<s><s>"], None) == 8


@pytest.mark.parametrize(("first", "most"), [(1, 1), (1, 8), (3, 64), (4096, 1 << 20)])
def test_chunks_end_at_the_earliest_safe_cut_however_far_the_search_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: int, most: int
) -> None:
    import core.pretokenize.cuts

    monkeypatch.setattr(core.pretokenize.cuts, "_FIRST_SEARCH_BYTES", first)
    monkeypatch.setattr(core.pretokenize.cuts, "_MAX_SEARCH_BYTES", most)
    # Long stretches with no safe cut (one word; a run of spaces; a special token inside a word) between
    # places that have one, so the search must read past several blocks before it finds one.
    text = ("a" * 5000 + " b" + " " * 3000 + "c" + SPECIAL + "d" * 2000 + " e\n") * 3
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text, encoding="utf-8", newline="")
    data = text.encode("utf-8")
    ranges = list(chunk_ranges(corpus, [SPECIAL], GPT2_PATTERN, 100))
    assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
    for (start, end), (following, _) in zip(ranges, ranges[1:]):
        assert end == following
        # Every byte between the target and the cut was searched: the cut is the first safe one after it.
        expected = first_safe_cut(data, start + 100, len(data), [SPECIAL.encode()], BEFORE_WHITESPACE)
        assert end == expected


def test_gpt2_samples_workers_identical(tmp_path: Path, samples_dir: Path) -> None:
    model = gpt2_model()
    corpus = tmp_path / "corpus.txt"
    text = "".join((samples_dir / f"{n}.txt").read_text(encoding="utf-8") for n in ("english", "japanese", "mixed"))
    corpus.write_text(text, encoding="utf-8", newline="")
    one = export_ids(model, corpus, tmp_path / "one.npy", workers=1, chunk_bytes=4096)
    two = export_ids(model, corpus, tmp_path / "two.npy", workers=2, chunk_bytes=4096)
    assert one.dtype == np.uint16
    assert one.tolist() == two.tolist() == encoder(model).encode(text)
    assert (tmp_path / "one.npy").read_bytes() == (tmp_path / "two.npy").read_bytes()


@pytest.mark.slow
def test_tinystories_slice_matches_tiktoken(tmp_path: Path) -> None:
    from tests.core.formats.format_cases import tiktoken_encoding

    data = shared_path("corpora", "tinystories_2M.txt").read_bytes()[: 300_000]
    model = gpt2_model()
    text = data.decode("utf-8", errors="ignore")
    corpus = tmp_path / "stories.txt"
    corpus.write_text(text, encoding="utf-8", newline="")
    ids = export_ids(model, corpus, tmp_path / "ids.npy", workers=2)
    ranks = {token: i for i, token in model.vocab.items() if i != 50256}
    assert ids.tolist() == tiktoken_encoding(ranks, {SPECIAL: 50256}).encode(text, allowed_special="all")


def test_uint32_when_ids_do_not_fit(tmp_path: Path) -> None:
    base = small_model()
    model = BPEModel(base.vocab | {70_000: b"<big>"}, base.merges, base.special_tokens + ["<big>"])
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("hello <big> there<|endoftext|>", encoding="utf-8")
    ids = export_ids(model, corpus, tmp_path / "ids.npy")
    assert ids.dtype == np.uint32 and 70_000 in ids.tolist()
    assert ids.tolist() == encoder(model).encode("hello <big> there<|endoftext|>")
    assert export_ids(base, corpus, tmp_path / "small.npy").dtype == np.uint16


def test_npy_header_reads_in_numpy(tmp_path: Path) -> None:
    for dtype, length in (("uint16", 0), ("uint32", 123456789)):
        header = npy_header(dtype, length)
        assert len(header) == 128 and header.endswith(b"\n")
        path = tmp_path / f"{dtype}.npy"
        path.write_bytes(header)
        with open(path, "rb") as handle:
            assert np.lib.format.read_magic(handle) == (1, 0)
            shape, fortran, read_dtype = np.lib.format.read_array_header_1_0(handle)
        assert (shape, fortran, str(read_dtype)) == ((length,), False, dtype)


def test_empty_corpus(tmp_path: Path, small) -> None:
    corpus = tmp_path / "empty.txt"
    corpus.write_bytes(b"")
    assert export_ids(small, corpus, tmp_path / "ids.npy").shape == (0,)


def test_progress_events(tmp_path: Path, small) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(ADVERSARIAL.encode("utf-8"))
    events = list(export_events(corpus, small, tmp_path / "ids.npy", chunk_bytes=200))
    progress = [e for e in events if isinstance(e, ExportProgress)]
    assert isinstance(events[-1], ExportFinished) and len(progress) > 5
    done = [e.done_bytes for e in progress]
    assert done == sorted(done) and done[-1] == corpus.stat().st_size == events[-1].corpus_bytes
    assert progress[-1].tokens == events[-1].tokens


@pytest.mark.parametrize("workers", [1, 2])
def test_invalid_utf8_names_offset_and_leaves_no_file(tmp_path: Path, small, workers: int) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(b"good text here " * 100 + b"\xff bad" + b" more" * 100)
    with pytest.raises(CorpusError) as caught:
        export_corpus(corpus, small, tmp_path / "ids.npy", workers=workers, chunk_bytes=64)
    assert "byte offset 1500" in str(caught.value) and "\n" not in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt"]


@pytest.mark.parametrize("workers", [1, 2])
def test_utf16_japanese_is_named(tmp_path: Path, small, workers: int) -> None:
    # No NUL in Japanese UTF-16: it was only 'invalid UTF-8 ... export needs a UTF-8 text corpus'.
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(("吾輩は猫である。" * 200).encode("utf-16"))
    with pytest.raises(CorpusError) as caught:
        export_corpus(corpus, small, tmp_path / "ids.npy", workers=workers, chunk_bytes=64)
    assert "UTF-16 byte-order mark: convert it to UTF-8" in str(caught.value) and "\n" not in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt"]
    corpus.write_bytes(("Title\n" + "吾輩は猫である。\n" * 200).encode("shift_jis"))
    with pytest.raises(CorpusError, match="looks like Shift_JIS, not UTF-8: convert it"):
        export_corpus(corpus, small, tmp_path / "ids.npy", workers=workers, chunk_bytes=64)


def test_bad_arguments(tmp_path: Path, small) -> None:
    with pytest.raises(CorpusError, match="no such file"):
        export_corpus(tmp_path / "absent.txt", small, tmp_path / "ids.npy")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("text", encoding="utf-8")
    with pytest.raises(OutputError, match="does not exist"):
        export_corpus(corpus, small, tmp_path / "missing" / "ids.npy")
    with pytest.raises(SettingsError):
        export_corpus(corpus, small, tmp_path / "ids.npy", workers=0)


def test_closing_early_leaves_nothing(tmp_path: Path, small) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(ADVERSARIAL.encode("utf-8"))
    events = export_events(corpus, small, tmp_path / "ids.npy", workers=2, chunk_bytes=100)
    assert isinstance(next(events), ExportProgress)
    events.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt"]


def test_memory_stays_bounded(tmp_path: Path, small) -> None:
    """Python allocations stay flat: the ids of a 2 MB corpus alone would take 13 MB as a list."""
    import random
    import tracemalloc

    rng = random.Random(1)
    words = ["the", "cat", "sat", "on", "mat", "dog", "ran", "far", "away", "today", "and", "then", "home"]
    corpus = tmp_path / "big.txt"
    corpus.write_text(" ".join(rng.choice(words) for _ in range(500_000)), encoding="utf-8")
    tokenizer = encoder(small)
    tracemalloc.start()
    try:
        finished = export_corpus(corpus, tokenizer, tmp_path / "ids.npy", chunk_bytes=1 << 16)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert finished.tokens > 1_000_000
    assert peak < 4_000_000, f"peak {peak:,} bytes"
