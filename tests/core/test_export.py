"""Corpus export: the ids equal ``Tokenizer.encode`` of the whole file for any chunking and worker count."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from format_cases import SPECIAL, TEXTS, encoder, gpt2_model, small_model, train_small
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import core.export_encoding
import core.export_workers
from core.errors import BPEError, CorpusError, SettingsError
from core.export import (
    WARM_UP_BYTES,
    ExportFinished,
    ExportProgress,
    chunk_ranges,
    export_corpus,
    export_events,
    first_safe_cut,
    npy_header,
)
from core.export_workers import ChunkQueue
from core.formats.atomic import OutputError
from core.model import BPEModel
from core.patterns import GPT2_PATTERN

ADVERSARIAL = (
    "".join(TEXTS)
    + "word  two   three    \n\n\n  \t\t x\r\n\r\ny"
    f"{SPECIAL}{SPECIAL} {SPECIAL}\n{SPECIAL}<|endoftext|<|endoftext|>>"
    "日本語\u3000の\u3000文 。 ！ 「かぎ」 かっこ"
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    " 12345 678 'll 've 're 's x'"
) * 3


def export_ids(model, corpus: Path, out: Path, **options) -> np.ndarray:
    finished = export_corpus(corpus, model, out, **options)
    array = np.load(out)
    assert array.shape == (finished.tokens,) and str(array.dtype) == finished.dtype
    return array


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
def test_custom_pattern_cuts_only_after_special_tokens(tmp_path: Path, workers: int) -> None:
    model = train_small(pattern=r"\p{L}+|\p{N}+|[^\p{L}\p{N}]+", vocab_size=330)
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(ADVERSARIAL.encode("utf-8"))
    ids = export_ids(model, corpus, tmp_path / "ids.npy", workers=workers, chunk_bytes=5)
    assert ids.tolist() == encoder(model).encode(ADVERSARIAL)
    for start, _ in list(chunk_ranges(corpus, [SPECIAL], model.pattern, 5))[1:]:
        assert ADVERSARIAL.encode()[:start].endswith(SPECIAL.encode())


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
    # Before the space that follows a letter; never after whitespace (``\s+(?!\S)`` gives it to the next word).
    assert first_safe_cut(b"ab   cd", 1, 7, [], whitespace=True) == 2
    assert first_safe_cut(b"ab   cd", 3, 7, [], whitespace=True) is None
    # Not inside a special token that contains a space; right after an isolated one.
    assert first_safe_cut(b"q<a b>z", 1, 7, [b"<a b>"], whitespace=True) == 6
    # Overlapping occurrences (which one matches depends on what came before): no cut there at all.
    assert first_safe_cut(b"x<s><s>y", 1, 8, [b"<s>", b"<s><s>"], whitespace=False) is None
    assert first_safe_cut(b"x<s><s>y<s>z", 1, 12, [b"<s>", b"<s><s>"], whitespace=False) == 11


def test_gpt2_samples_workers_identical(tmp_path: Path, shared_data: Path, samples_dir: Path) -> None:
    model = gpt2_model(shared_data)
    corpus = tmp_path / "corpus.txt"
    text = "".join((samples_dir / f"{n}.txt").read_text(encoding="utf-8") for n in ("english", "japanese", "mixed"))
    corpus.write_text(text, encoding="utf-8", newline="")
    one = export_ids(model, corpus, tmp_path / "one.npy", workers=1, chunk_bytes=4096)
    two = export_ids(model, corpus, tmp_path / "two.npy", workers=2, chunk_bytes=4096)
    assert one.dtype == np.uint16
    assert one.tolist() == two.tolist() == encoder(model).encode(text)
    assert (tmp_path / "one.npy").read_bytes() == (tmp_path / "two.npy").read_bytes()


@pytest.mark.slow
def test_tinystories_slice_matches_tiktoken(tmp_path: Path, shared_data: Path) -> None:
    from format_cases import tiktoken_encoding

    model = gpt2_model(shared_data)
    data = (shared_data / "corpora" / "tinystories_2M.txt").read_bytes()[: 300_000]
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


# --- the parallel path: a warm-up chunk here, then chunks taken one at a time by every process ---

WORDS = b"good text here and there " * 400  # 10,000 bytes of ASCII: a letter can become a bad byte in place


def chunks_of(corpus: Path, chunk_bytes: int) -> list[tuple[int, int]]:
    """The chunks a shared export of ``corpus`` uses: the warm-up chunk first, then the shared ones."""
    return list(chunk_ranges(corpus, [SPECIAL], GPT2_PATTERN, chunk_bytes, min(WARM_UP_BYTES, chunk_bytes)))


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name != "corpus.txt")


def test_the_chunk_queue_hands_out_each_chunk_once_in_order_across_processes() -> None:
    import multiprocessing

    context = multiprocessing.get_context(core.export_workers._start_method())
    queue = ChunkQueue(context, 2000)
    conn_pairs = [context.Pipe(duplex=False) for _ in range(3)]
    processes = [context.Process(target=take_all_into, args=(queue, writer)) for _, writer in conn_pairs]
    for process in processes:
        process.start()
    lists = [reader.recv() for reader, _ in conn_pairs]
    for process in processes:
        process.join()
    assert all(taken == sorted(taken) for taken in lists)  # each process takes in increasing order
    assert sorted(sum(lists, [])) == list(range(2000))  # every chunk exactly once
    queue = ChunkQueue(context, 10)
    assert [queue.take(), queue.take()] == [0, 1]
    queue.stop_before(5)
    assert [queue.take(), queue.take(), queue.take(), queue.take()] == [2, 3, 4, None]
    queue.stop_before(-1)
    assert queue.take() is None


def test_a_queue_lock_left_by_a_killed_process_is_an_error_not_a_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing

    monkeypatch.setattr(core.export_workers, "LOCK_SECONDS", 0.2)
    context = multiprocessing.get_context("fork")
    queue = ChunkQueue(context, 10)
    holder = context.Process(target=die_holding_the_lock, args=(queue,))
    holder.start()
    holder.join()
    with pytest.raises(BPEError, match="worker process died"):
        queue.take()


def die_holding_the_lock(queue) -> None:
    queue._state.get_lock().acquire()
    os._exit(9)


def take_all_into(queue, conn) -> None:
    taken = []
    while (index := queue.take()) is not None:
        taken.append(index)
    conn.send(taken)


def patch_encode_range(monkeypatch: pytest.MonkeyPatch, before) -> None:
    """Run ``before(start)`` ahead of each chunk's encoding; forked workers inherit the patch."""
    encode_range = core.export_encoding.encode_range

    def patched(tokenizer, path: Path, start: int, end: int, dtype: str) -> bytes:
        before(start)
        return encode_range(tokenizer, path, start, end, dtype)

    monkeypatch.setattr(core.export_encoding, "encode_range", patched)


def in_a_worker(parent: int = os.getpid()) -> bool:
    return os.getpid() != parent


@pytest.mark.parametrize("bad_chunks", [[-1], [3, 9], [2, 3], [1, -2]], ids=["last", "apart", "adjacent", "first-and-late"])
def test_errors_come_back_first_in_file_order(
    tmp_path: Path, small, bad_chunks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Invalid UTF-8 in a chunk: its error and offset, or an earlier chunk's even when that comes in later."""
    import time

    corpus = tmp_path / "corpus.txt"
    data = bytearray(WORDS)
    corpus.write_bytes(data)
    chunks = chunks_of(corpus, 64)
    offsets = []
    for index in bad_chunks:
        start, end = chunks[index]
        offsets.append(next(at for at in range((start + end) // 2, end) if data[at : at + 1].isalpha()))
        data[offsets[-1]] = 0xFF
    corpus.write_bytes(data)
    assert chunks_of(corpus, 64) == chunks  # the bad bytes are where the test says
    if len(bad_chunks) > 1:
        # The chunk with the first bad byte is slow, so that the later error surely comes in first.
        late = chunks[bad_chunks[0]][0]
        patch_encode_range(monkeypatch, lambda start: time.sleep(0.5) if start == late else None)
    with pytest.raises(CorpusError) as caught:
        export_corpus(corpus, small, tmp_path / "ids.npy", workers=3, chunk_bytes=64)
    assert f"byte offset {offsets[0]} (byte 0xff)" in str(caught.value) and "\n" not in str(caught.value)
    assert leftovers(tmp_path) == []


def test_a_slow_process_takes_fewer_chunks(tmp_path: Path, small, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks go to whichever process is free: a worker slowed down leaves most of them to the others."""
    import time

    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(WORDS)
    taken_here: list[int] = []
    patch_encode_range(monkeypatch, lambda start: time.sleep(0.05) if in_a_worker() else taken_here.append(start))
    ids = export_ids(small, corpus, tmp_path / "ids.npy", workers=2, chunk_bytes=64)
    assert ids.tolist() == encoder(small).encode(WORDS.decode())
    chunks = chunks_of(corpus, 64)
    assert len(taken_here) > len(chunks) * 3 // 4  # the slow worker took only a few of about 150 chunks
    assert len(taken_here) < len(chunks)  # but it did take some
    assert leftovers(tmp_path) == ["ids.npy"]


def test_closing_while_workers_run_leaves_nothing(tmp_path: Path, small, monkeypatch: pytest.MonkeyPatch) -> None:
    """Closing the generator stops the workers at once (these would take an hour) and deletes the part files."""
    import multiprocessing
    import time

    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(WORDS)
    patch_encode_range(monkeypatch, lambda start: time.sleep(3600) if in_a_worker() else None)
    events = export_events(corpus, small, tmp_path / "ids.npy", workers=3, chunk_bytes=64)
    for event in events:
        assert isinstance(event, ExportProgress)
        if len([p for p in tmp_path.iterdir() if p.name.endswith(".part")]) == 3:
            break
    else:
        pytest.fail("no part files seen")
    started = time.monotonic()
    events.close()
    assert time.monotonic() - started < 3, "waited for the workers instead of stopping them"
    assert leftovers(tmp_path) == [] and multiprocessing.active_children() == []


@pytest.mark.parametrize("workers", [2, 3])
def test_progress_counts_every_process(tmp_path: Path, small, workers: int) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(ADVERSARIAL.encode("utf-8") * 4)
    chunks = chunks_of(corpus, 100)
    assert len(chunks) > 3 * workers
    events = list(export_events(corpus, small, tmp_path / "ids.npy", workers=workers, chunk_bytes=100))
    progress = [e for e in events if isinstance(e, ExportProgress)]
    assert isinstance(events[-1], ExportFinished)
    assert np.load(tmp_path / "ids.npy").tolist() == encoder(small).encode(corpus.read_bytes().decode())
    assert len(progress) >= 2  # the warm-up chunk, then as chunks are done here and in the workers
    assert all(a.done_bytes < b.done_bytes and a.tokens <= b.tokens for a, b in zip(progress, progress[1:]))
    assert all(e.total_bytes == corpus.stat().st_size for e in progress)
    assert progress[-1].done_bytes == corpus.stat().st_size and progress[-1].tokens == events[-1].tokens


@pytest.mark.parametrize(("text", "shared"), [("", False), ("hi", False), ("hi there", False),
                                              ("one two three", False), ("one two three four", True)])
def test_too_small_to_share(tmp_path: Path, small, text: str, shared: bool) -> None:
    """Four workers on up to three chunks: all done here without workers, or shared. Same ids either way."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text, encoding="utf-8")
    assert (len(chunks_of(corpus, 4)) > 2) == shared
    ids = export_ids(small, corpus, tmp_path / "ids.npy", workers=4, chunk_bytes=4)
    assert ids.tolist() == encoder(small).encode(text)
    assert leftovers(tmp_path) == ["ids.npy"]


def test_a_worker_that_dies_silently(tmp_path: Path, small, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core.export_workers, "_encode_share", lambda *args: os._exit(3))
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(WORDS)
    with pytest.raises(BPEError, match="export worker process died .* try fewer --workers"):
        export_corpus(corpus, small, tmp_path / "ids.npy", workers=2, chunk_bytes=64)
    assert leftovers(tmp_path) == []


def test_other_worker_failures_keep_their_type(tmp_path: Path, small, monkeypatch: pytest.MonkeyPatch) -> None:
    class Odd(Exception):  # defined here, so it cannot be pickled: the worker sends its name instead
        pass

    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(WORDS)

    def fail_in_worker(error: Exception):
        def before(start: int) -> None:
            if in_a_worker():
                raise error
        return before

    patch_encode_range(monkeypatch, fail_in_worker(RuntimeError("boom at 12")))
    with pytest.raises(RuntimeError, match="^boom at 12$"):
        export_corpus(corpus, small, tmp_path / "ids.npy", workers=2, chunk_bytes=64)
    monkeypatch.undo()
    patch_encode_range(monkeypatch, fail_in_worker(Odd("strange")))
    with pytest.raises(BPEError, match="^an export worker failed: Odd: strange$"):
        export_corpus(corpus, small, tmp_path / "ids.npy", workers=2, chunk_bytes=64)
    assert leftovers(tmp_path) == []


def test_spawned_workers(tmp_path: Path, small, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where fork is missing, workers are spawned and build the tokenizer from the model: same ids, same errors."""
    monkeypatch.setattr(core.export_workers, "_start_method", lambda: "spawn")
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(ADVERSARIAL.encode("utf-8"))
    ids = export_ids(small, corpus, tmp_path / "ids.npy", workers=3, chunk_bytes=200)
    assert ids.tolist() == encoder(small).encode(ADVERSARIAL)
    corpus.write_bytes(ADVERSARIAL.encode("utf-8") + b"tail \xff")
    with pytest.raises(CorpusError, match=f"byte offset {len(ADVERSARIAL.encode()) + 5} "):
        export_corpus(corpus, small, tmp_path / "bad.npy", workers=3, chunk_bytes=200)
    assert leftovers(tmp_path) == ["ids.npy"]


def test_a_shared_exports_first_chunk_is_the_small_warm_up_chunk(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(WORDS * 40)  # 400,000 bytes
    ranges = list(chunk_ranges(corpus, [SPECIAL], GPT2_PATTERN, 100_000, first_chunk_bytes=WARM_UP_BYTES))
    assert WARM_UP_BYTES <= ranges[0][1] < WARM_UP_BYTES + 100  # cut at the first safe place after it
    assert all(b - a >= 100_000 for a, b in ranges[1:-1]) and ranges[-1][1] == 400_000
    assert all(a == b for (_, a), (b, _) in zip(ranges, ranges[1:]))
