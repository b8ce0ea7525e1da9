"""Every shard format reads to the documents it holds: a corpus trains to exactly the merges of its
documents joined by ``<|endoftext|>`` in one text file, as the slow reference trainer makes them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from core import reference
from core.corpus import open_corpus
from core.corpus.records import ReadOptions, SkippedRecords, shard_documents
from core.corpus.text_stream import text_pieces
from core.pretokenize.patterns import GPT2_PATTERN
from core.train.run import TrainingRun, train_bpe
from core.train.shard_reading import count_job, shard_jobs
from tests.core.corpus.corpus_cases import SPECIAL, joined_text, jsonl_bytes, sample_documents, write_shard

FORMATS = [
    "docs.jsonl", "docs.json", "docs.jsonl.gz", "docs.jsonl.bz2", "docs.jsonl.xz", "docs.jsonl.zst",
    "docs.parquet", "docs.parquet.gz", "docs.parquet.zst", "docs.txt.gz", "docs.txt.bz2", "docs.txt.xz",
    "docs.txt.zst", "docs.arrow", "docs.arrow.zst",
]


def corpus_counts(path: Path, options: ReadOptions, split_bytes: int | None = None) -> Counter[str]:
    counts: Counter[str] = Counter()
    for job in shard_jobs(open_corpus(path), options, split_bytes):
        counts.update(count_job(job).counts)
    return counts


@pytest.mark.parametrize("name", FORMATS)
def test_each_format_counts_the_pretokens_of_the_joined_text(tmp_path: Path, name: str) -> None:
    documents = sample_documents()
    path = write_shard(tmp_path, name, documents)
    expected = reference.count_pretokens(joined_text(documents), [SPECIAL])
    assert corpus_counts(path, ReadOptions((SPECIAL,))) == expected


@pytest.mark.parametrize("name", ["docs.jsonl.gz", "docs.parquet", "docs.txt.zst"])
def test_a_shard_trains_to_the_reference_merges_of_the_joined_text(tmp_path: Path, name: str) -> None:
    documents = sample_documents()
    path = write_shard(tmp_path, name, documents)
    vocab, merges = reference.train(joined_text(documents), 330, [SPECIAL])
    assert train_bpe(path, 330, [SPECIAL], workers=1) == (vocab, merges)


def test_records_are_documents_even_without_a_special_token(tmp_path: Path) -> None:
    """No merge spans two records: records "ab" and "cd" give the pre-tokens ab and cd, never "abcd"."""
    path = write_shard(tmp_path, "two.jsonl", ["ab", "cd"] * 50)
    _, merges = train_bpe(path, 300, [], workers=1)
    assert merges == [(b"c", b"d"), (b"a", b"b")]  # by hand: 50 each, the tie goes to the greater pair


def test_a_folder_of_mixed_shards_equals_its_documents_joined(tmp_path: Path) -> None:
    documents = sample_documents()
    names = ["a.jsonl.gz", "b.parquet", "c/d.txt.xz", "c/e.txt", "f.json.zst"]
    shares = [documents[i::len(names)] for i in range(len(names))]
    for name, share in zip(names, shares):
        write_shard(tmp_path / "corpus", name, share)
    (tmp_path / "corpus" / "README.md").write_text("not a shard", encoding="utf-8")
    (tmp_path / "corpus" / "_SUCCESS").write_bytes(b"")
    corpus = open_corpus(tmp_path / "corpus")
    assert [Path(s.path).name for s in corpus.shards] == ["a.jsonl.gz", "b.parquet", "d.txt.xz", "e.txt", "f.json.zst"]
    assert corpus.ignored == 2
    every = [d for share in shares for d in share]
    vocab, merges = reference.train(joined_text(every), 330, [SPECIAL])
    for workers in (1, 2):
        assert train_bpe(tmp_path / "corpus", 330, [SPECIAL], workers=workers) == (vocab, merges)


def test_a_glob_picks_its_shards(tmp_path: Path) -> None:
    documents = sample_documents()
    write_shard(tmp_path, "a.jsonl", documents[:300])
    write_shard(tmp_path, "b.jsonl", documents[300:])
    write_shard(tmp_path, "c.parquet", ["left out"])
    corpus = open_corpus(str(tmp_path / "*.jsonl"))
    assert [Path(s.path).name for s in corpus.shards] == ["a.jsonl", "b.jsonl"]
    assert corpus.name == tmp_path.name
    assert corpus_counts(tmp_path / "a.jsonl", ReadOptions((SPECIAL,))) + corpus_counts(
        tmp_path / "b.jsonl", ReadOptions((SPECIAL,))
    ) == reference.count_pretokens(joined_text(documents), [SPECIAL])


def test_a_compressed_text_read_in_small_blocks_keeps_its_pretokens(tmp_path: Path) -> None:
    """Cut at safe cuts only: blocks of 64 bytes give the pre-tokens of the whole text."""
    import io

    text = joined_text(sample_documents())
    pieces = list(text_pieces(io.BytesIO(text.encode("utf-8")), "s", [SPECIAL], GPT2_PATTERN, "strict", block=64))
    assert len(pieces) > 100 and "".join(pieces) == text
    counts: Counter[str] = Counter()
    for piece in pieces:
        counts += reference.count_pretokens(piece, [SPECIAL])
    assert counts == reference.count_pretokens(text, [SPECIAL])


def test_a_large_text_shard_is_counted_in_parts(tmp_path: Path) -> None:
    documents = sample_documents()
    write_shard(tmp_path / "corpus", "big.txt", documents)
    write_shard(tmp_path / "corpus", "small.jsonl", documents[:10])
    jobs = shard_jobs(open_corpus(tmp_path / "corpus"), ReadOptions((SPECIAL,)), split_bytes=4096)
    assert sum(job.part is not None for job in jobs) > 10
    expected = reference.count_pretokens(joined_text(documents + documents[:10]), [SPECIAL])
    assert corpus_counts(tmp_path / "corpus", ReadOptions((SPECIAL,)), split_bytes=4096) == expected
    counted = [count_job(job) for job in jobs]
    # Documents: those of the text shard (split at special tokens) and one a record, each counted once.
    text_documents = len(joined_text(documents).split(SPECIAL))
    assert sum(result.documents for result in counted) == text_documents + 10


def test_a_record_much_larger_than_a_block_is_read_whole(tmp_path: Path) -> None:
    huge = ("word " * 700_000) + "end"  # 3.5 MB in one record, one line
    path = write_shard(tmp_path, "huge.jsonl.gz", [huge, "small"])
    texts = [text for text, _ in shard_documents(open_corpus(path).shards[0], ReadOptions(), SkippedRecords())]
    assert texts == [huge, "small"]


def test_empty_shards_add_nothing(tmp_path: Path) -> None:
    documents = sample_documents()[:50]
    write_shard(tmp_path / "corpus", "a.jsonl", documents)
    for name in ("b.jsonl", "c.txt", "d.jsonl.gz", "e.txt.zst", "f.parquet"):
        write_shard(tmp_path / "corpus", name, [] if "parquet" in name or "jsonl" in name else [""])
    (tmp_path / "corpus" / "g.jsonl.xz").write_bytes(b"")  # an empty file, not even an xz header
    assert corpus_counts(tmp_path / "corpus", ReadOptions((SPECIAL,))) == reference.count_pretokens(
        joined_text(documents), [SPECIAL]
    )


def test_only_empty_shards_train_to_no_merges(tmp_path: Path) -> None:
    write_shard(tmp_path / "corpus", "a.jsonl", [])
    write_shard(tmp_path / "corpus", "b.jsonl.gz", [""])
    vocab, merges = train_bpe(tmp_path / "corpus", 300, [SPECIAL], workers=1)
    assert merges == [] and len(vocab) == 257


def test_another_text_field_and_column(tmp_path: Path) -> None:
    from tests.core.corpus.corpus_cases import jsonl_bytes, parquet_bytes

    documents = sample_documents()[:80]
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.jsonl").write_bytes(jsonl_bytes(documents[:40], "content"))
    (tmp_path / "corpus" / "b.parquet").write_bytes(parquet_bytes(documents[40:], "content"))
    run = TrainingRun(tmp_path / "corpus", 300, [SPECIAL], workers=1, text_field="content")
    list(run.events())
    assert (run.result().vocab, run.result().merges) == reference.train(joined_text(documents), 300, [SPECIAL])
    assert run.documents == 80


def test_worker_processes_count_the_shards_to_the_same_merges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over 512 KiB of shards: the pool counts them (a spy proves it), and the merges are the joined text's."""
    from core.train import worker_pool
    from core.train.reading_stage import SHARED_READING_MIN_BYTES

    jobs: list[int] = []

    class Spy(worker_pool.WorkerPool):
        def map_unordered(self, function, arguments):
            arguments = list(arguments)
            jobs.append(len(arguments))
            return super().map_unordered(function, arguments)

    monkeypatch.setattr(worker_pool, "WorkerPool", Spy)
    documents = sample_documents() * 6
    names = ["a.jsonl", "b.jsonl.gz", "c.parquet", "d.txt", "e.jsonl.zst"]
    for index, name in enumerate(names):
        write_shard(tmp_path / "corpus", name, documents[index::5])
    every = [d for index in range(5) for d in documents[index::5]]
    (tmp_path / "joined.txt").write_text(joined_text(every), encoding="utf-8", newline="")
    assert (tmp_path / "joined.txt").stat().st_size > SHARED_READING_MIN_BYTES
    expected = train_bpe(tmp_path / "joined.txt", 400, [SPECIAL], workers=1)
    for workers in (2, 3):
        jobs.clear()
        assert train_bpe(tmp_path / "corpus", 400, [SPECIAL], workers=workers) == expected
        assert jobs and jobs[0] == 5  # one job a shard, all in the pool


def test_a_folder_follows_a_linked_subfolder_once(tmp_path: Path) -> None:
    """Shards reached through a symbolic link to a folder are part of the corpus, as linked files are; a
    link back up the tree (a loop) or to a folder already searched adds nothing twice."""
    documents = sample_documents()
    write_shard(tmp_path / "corpus", "a.jsonl", documents[:300])
    write_shard(tmp_path / "elsewhere", "b.jsonl", documents[300:])
    (tmp_path / "corpus" / "more").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "corpus" / "again").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "elsewhere" / "loop").symlink_to(tmp_path / "corpus")
    corpus = open_corpus(tmp_path / "corpus")
    assert [Path(s.path).relative_to(tmp_path / "corpus").as_posix() for s in corpus.shards] == ["a.jsonl", "again/b.jsonl"]
    assert train_bpe(tmp_path / "corpus", 270, [SPECIAL]) == reference.train(joined_text(documents), 270, [SPECIAL])


def test_a_folder_reads_a_file_linked_under_another_name_once(tmp_path: Path) -> None:
    """A link such as latest.jsonl -> b.jsonl (or two snapshots of a Hugging Face cache linking one blob) made
    the file two shards: its documents were counted twice, and the merges were those of a corpus that held
    them twice, without a word. It is one shard, under its first name, as in a glob."""
    documents = sample_documents()
    write_shard(tmp_path / "corpus", "a.jsonl", documents[:300])
    write_shard(tmp_path / "corpus", "b.jsonl", documents[300:])
    (tmp_path / "corpus" / "latest.jsonl").symlink_to("b.jsonl")
    (tmp_path / "corpus" / "snapshots" / "1").mkdir(parents=True)
    (tmp_path / "corpus" / "snapshots" / "1" / "a.jsonl").symlink_to(tmp_path / "corpus" / "a.jsonl")
    corpus = open_corpus(tmp_path / "corpus")
    assert [Path(s.path).name for s in corpus.shards] == ["a.jsonl", "b.jsonl"]
    assert train_bpe(tmp_path / "corpus", 270, [SPECIAL], workers=1) == reference.train(
        joined_text(documents), 270, [SPECIAL])


def test_a_glob_through_a_link_loop_reads_each_file_once(tmp_path: Path) -> None:
    """``**`` follows links to folders, so a link back up the tree matched the same shard at every depth
    (41 times here) and trained on each copy; a file the pattern reaches by several paths is one shard."""
    write_shard(tmp_path / "d", "a.jsonl", ["one"])
    write_shard(tmp_path / "d", "z.jsonl", ["two"])  # after "up/" in sorted order
    (tmp_path / "d" / "up").symlink_to(tmp_path)
    corpus = open_corpus(str(tmp_path / "**" / "*.jsonl"))
    assert [Path(s.path).relative_to(tmp_path).as_posix() for s in corpus.shards] == ["d/a.jsonl", "d/z.jsonl"]



def test_a_zst_shard_of_several_frames_reads_whole(tmp_path: Path) -> None:
    """Frames with and without a content size, and a skippable frame (as ``pzstd`` writes), read whole."""
    import zstandard

    skippable = (0x184D2A50).to_bytes(4, "little") + (4).to_bytes(4, "little") + b"pzst"
    documents = sample_documents()
    first, rest = jsonl_bytes(documents[:300]), jsonl_bytes(documents[300:])
    data = (skippable + zstandard.ZstdCompressor().compress(first)
            + zstandard.ZstdCompressor(write_content_size=False).compress(rest))
    (tmp_path / "d.jsonl.zst").write_bytes(data)
    expected = reference.count_pretokens(joined_text(documents), [SPECIAL])
    assert corpus_counts(tmp_path / "d.jsonl.zst", ReadOptions((SPECIAL,))) == expected


def test_a_zst_read_that_expands_much_is_handed_on_without_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    """What one read of .zst input decompresses to comes out at once (a 19 KB log file gave 230 MB); it was
    handed on a block at a time by cutting the rest off, a copy of the rest at every block (40 s of
    copying there, and the output held twice). The stream keeps one copy whatever the reads."""
    import io
    import tracemalloc

    import zstandard

    from core.corpus.compression import FramedStream

    size = 32 << 20

    class OneBigFrame:
        eof = False
        unused_data = b""

        def decompress(self, data: bytes) -> bytes:
            self.eof = True
            return bytes(size)

    class Decompressor:
        def __init__(self, **options: object) -> None:
            pass

        def decompressobj(self) -> OneBigFrame:
            return OneBigFrame()

    monkeypatch.setattr(zstandard, "ZstdDecompressor", Decompressor)
    stream = FramedStream(io.BytesIO(b"one frame"), "big.txt.zst")
    block = bytearray(1 << 20)
    tracemalloc.start()
    try:
        read = 0
        while n := stream.readinto(block):
            read += n
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert read == size
    assert peak < 1.25 * size


def test_a_folder_named_by_dots_is_named_after_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``cd shards && bpe-tui train .`` saved its tokenizer as ``-300.json`` (the name of ``.`` is empty)."""
    write_shard(tmp_path / "web" / "sub", "a.jsonl", ["one"])
    monkeypatch.chdir(tmp_path / "web" / "sub")
    assert [open_corpus(spec).name for spec in (".", "./", "..", "../sub")] == ["sub", "sub", "web", "sub"]


def test_a_folder_search_leaves_out_a_json_document_over_several_lines(tmp_path: Path) -> None:
    """``cd shards && bpe-tui train .`` saves the tokenizer (one JSON object over many lines) among the
    shards, and the next run read it as JSON lines and stopped at its line 1; it cannot be JSON lines, so a
    folder search leaves it out (counted), as a Hugging Face ``dataset_infos.json`` or ``config.json``."""
    import json

    from core.formats import save_tokenizer
    from core.model import BPEModel

    write_shard(tmp_path, "a.json", ["one", "two"])
    save_tokenizer(BPEModel({i: bytes([i]) for i in range(256)}, []), tmp_path / "web-256.json",
                   format="bpe-tui")
    (tmp_path / "dataset_infos.json").write_text("\ufeff" + json.dumps({"default": {}}, indent=2), encoding="utf-8")
    corpus = open_corpus(tmp_path)
    assert [Path(s.path).name for s in corpus.shards] == ["a.json"] and corpus.ignored == 2


def test_a_zst_shard_compressed_with_a_long_window_reads(tmp_path: Path) -> None:
    """``zstd --long=31`` (a window past 128 MiB, for large files) is valid zstd; it was called corrupt
    ('download or compress the shard again'), the decompressor's default limit being 128 MiB."""
    import zstandard

    params = zstandard.ZstdCompressionParameters.from_level(3, window_log=28, write_content_size=False)
    stream = zstandard.ZstdCompressor(compression_params=params).compressobj()
    (tmp_path / "long.jsonl.zst").write_bytes(stream.compress(jsonl_bytes(["one", "two"])) + stream.flush())
    shard = open_corpus(tmp_path / "long.jsonl.zst").shards[0]
    assert list(shard_documents(shard, ReadOptions(), SkippedRecords())) == [("one", False), ("two", False)]


def test_spark_part_files_without_a_suffix_are_text_shards(tmp_path: Path) -> None:
    """Spark's ``saveAsTextFile`` (and Hadoop) write ``part-00000`` files with no suffix beside a
    ``_SUCCESS``; a folder of them was "no corpus shard". They are plain text, compressed or not."""
    import gzip

    (tmp_path / "_SUCCESS").write_bytes(b"")
    (tmp_path / "part-00000").write_bytes(b"one two\n")
    (tmp_path / "part-r-00001.gz").write_bytes(gzip.compress(b"three\n"))
    (tmp_path / "part-00002-1b2c3d4e-aaaa-bbbb-cccc-0123456789ab-c000.txt").write_bytes(b"four\n")
    (tmp_path / "partial-notes").write_bytes(b"not a shard")
    corpus = open_corpus(tmp_path)
    assert [(Path(s.path).name, s.kind, s.compression) for s in corpus.shards] == [
        ("part-00000", "text", None),
        ("part-00002-1b2c3d4e-aaaa-bbbb-cccc-0123456789ab-c000.txt", "text", None),
        ("part-r-00001.gz", "text", "gz"),
    ]
    assert corpus.ignored == 2


def test_a_folder_search_leaves_out_a_tokenizers_files(tmp_path: Path) -> None:
    """``bpe-tui train samples`` stopped at ``gpt2/vocab.json`` line 1 ("the 'text' value is a number":
    GPT-2's vocab, one JSON object on one line, has the token ``text``), and would have trained on the
    lines of ``gpt2/merges.txt``. A tokenizer's files are left out of a folder search, and counted."""
    import json

    (tmp_path / "gpt2").mkdir()
    (tmp_path / "gpt2" / "vocab.json").write_text(json.dumps({"text": 5239, "!": 0}), encoding="utf-8")
    (tmp_path / "gpt2" / "merges.txt").write_text("#version: 0.2\nĠ t\n", encoding="utf-8")
    (tmp_path / "hf").mkdir()
    (tmp_path / "hf" / "tokenizer.json").write_text(json.dumps({"text": "compact, on one line"}), encoding="utf-8")
    (tmp_path / "hf" / "notes.txt").write_text("a document\n", encoding="utf-8")
    write_shard(tmp_path, "a.jsonl", ["one"])
    (tmp_path / "vocab-list.txt").write_text("a text shard that only names a vocabulary\n", encoding="utf-8")
    corpus = open_corpus(tmp_path)
    assert [Path(s.path).relative_to(tmp_path).as_posix() for s in corpus.shards] == [
        "a.jsonl", "hf/notes.txt", "vocab-list.txt"]
    assert corpus.ignored == 3


def test_the_bundled_samples_folder_is_their_corpora_only() -> None:
    samples = Path(__file__).resolve().parents[3] / "samples"
    names = sorted(Path(s.path).relative_to(samples).as_posix() for s in open_corpus(samples).shards)
    assert names == sorted(p.name for p in samples.glob("*.txt"))
