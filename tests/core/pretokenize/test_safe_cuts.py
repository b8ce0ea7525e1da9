"""Training's chunk boundaries with GPT-2's pattern, and parallel counting: cuts never change the pre-tokens.

With GPT-2's pattern a chunk boundary is safe at either edge of a special token that overlaps no other
(documents are split there anyway) or on an ASCII whitespace byte right after a non-whitespace character
(the pattern always has a pre-token boundary there and ``\\s+(?!\\S)`` cannot look across it). The
properties below check both the rule and its purpose: counting chunk by chunk gives exactly the counts of
the whole text, which the plain counter in ``core.reference`` computes independently. Other patterns:
``test_pattern_cuts.py``.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from core.reference import count_pretokens as pretoken_counts

import core.pretokenize.cuts
from core.pretokenize.cuts import chunk_boundaries, chunk_ranges
from core.train.reading import count_chunk
from core.train.events import PhaseProgress, TrainingFinished
from core.pretokenize.patterns import GPT2_PATTERN
from core.train import reading_stage
from core.train.run import TrainingRun, train_bpe
from tests.data_paths import shared_path

PARALLEL_MIN_BYTES = 1 << 20
"""The size from which these tests' corpora are read by worker processes (patched in, whatever the default)."""


@pytest.fixture(autouse=True)
def _workers_from_one_mib(monkeypatch: pytest.MonkeyPatch) -> None:
    # The corpora here were sized around a 1 MiB threshold (tinyshakespeare among them).
    monkeypatch.setattr(reading_stage, "PARALLEL_MIN_BYTES", PARALLEL_MIN_BYTES)


SPECIAL = "<|endoftext|>"
WHITESPACE = regex.compile(r"\s")


def counted_by_chunks(path: Path, bounds: list[int], specials: list[str]) -> Counter[str]:
    total: Counter[str] = Counter()
    for start, end in zip(bounds, bounds[1:]):
        n, counts = count_chunk((str(path), start, end, specials, GPT2_PATTERN, "strict"))
        assert n == end - start
        total.update(counts)
    return total


def special_spans(data: bytes, specials: list[str]) -> list[tuple[int, int]]:
    spans = []
    for token in (s.encode("utf-8") for s in specials):
        at = data.find(token)
        while at != -1:
            spans.append((at, at + len(token)))
            at = data.find(token, at + 1)
    return spans


def assert_safe_boundaries(data: bytes, bounds: list[int], specials: list[str]) -> None:
    assert bounds[0] == 0 and bounds[-1] == len(data)
    assert all(a < b for a, b in zip(bounds, bounds[1:])) or len(data) == 0
    spans = special_spans(data, specials)
    edges = {edge for span in spans for edge in span}
    for cut in bounds[1:-1]:
        assert not any(start < cut < end for start, end in spans), f"cut {cut} inside a special token"
        assert not 0x80 <= data[cut] < 0xC0, f"cut {cut} inside a UTF-8 character"
        if cut in edges:
            continue
        assert data[cut : cut + 1] in (b" ", b"\n", b"\t", b"\r"), f"cut {cut} is not on whitespace"
        before = data[max(0, cut - 4) : cut].decode("utf-8", errors="ignore")[-1]
        assert not WHITESPACE.match(before), f"cut {cut} follows whitespace {before!r}"


# -- small, hand-checked cases -------------------------------------------------------------------------------


def test_no_cut_between_two_spaces(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    # 24 bytes in 3 chunks: the first target, byte 8, is the second of two spaces. A cut after whitespace is
    # unsafe (in "a   b" it turns the pre-tokens "a", "  ", " b" into "a", " ", " ", " b"), so the cut must
    # move to a space that follows a letter: 7 or 15 (with 18 or 21 for the second).
    path.write_bytes(b"aaaaaaa  bbbbbb cc dd ee")
    bounds = chunk_boundaries(path, [], GPT2_PATTERN, 3)
    assert len(bounds) == 4 and 8 not in bounds
    assert set(bounds[1:-1]) <= {7, 15, 18, 21}
    assert_safe_boundaries(path.read_bytes(), bounds, [])


def test_cuts_at_both_edges_of_a_special_token(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_bytes(b"one two three<|endoftext|>four five six")
    # Targets 9, 19 and 29: the special token starts at 13 (before any space), 19 is inside it (it ends at
    # 26), and the space after "four" is at 30.
    bounds = chunk_boundaries(path, [SPECIAL], GPT2_PATTERN, 4)
    assert bounds == [0, 13, 26, 30, 39]
    assert_safe_boundaries(path.read_bytes(), bounds, [SPECIAL])


def test_whitespace_inside_a_special_token_is_not_a_cut(tmp_path: Path) -> None:
    # The special token itself contains spaces after non-space characters: tempting but unsafe cuts.
    special = "<end of doc>"
    path = tmp_path / "c.txt"
    path.write_bytes(("xxxxxxxx" + special + "yy").encode())
    for n in range(2, 9):
        bounds = chunk_boundaries(path, [special], GPT2_PATTERN, n)
        assert_safe_boundaries(path.read_bytes(), bounds, [special])


def test_japanese_without_spaces_is_cut_only_at_newlines(tmp_path: Path) -> None:
    text = "吾輩は猫である。名前はまだ無い。\n" * 40
    path = tmp_path / "ja.txt"
    path.write_text(text, encoding="utf-8")
    bounds = chunk_boundaries(path, [], GPT2_PATTERN, 5)
    assert len(bounds) == 6
    data = path.read_bytes()
    assert all(data[:cut].endswith("。".encode()) and data[cut : cut + 1] == b"\n" for cut in bounds[1:-1])
    assert counted_by_chunks(path, bounds, []) == pretoken_counts(text, [])


def test_ideographic_space_before_newline_is_not_a_cut(tmp_path: Path) -> None:
    # U+3000 is \s for the pattern: "a\u3000\nb" must not be cut before "\n" (it would split "\u3000\n").
    text = "ab\u3000\ncd\u3000\u3000 ef"
    path = tmp_path / "ws.txt"
    path.write_text(text, encoding="utf-8")
    data = path.read_bytes()
    for n in range(2, len(data)):
        bounds = chunk_boundaries(path, [], GPT2_PATTERN, n)
        assert_safe_boundaries(data, bounds, [])
        assert counted_by_chunks(path, bounds, []) == pretoken_counts(text, [])


# -- properties ----------------------------------------------------------------------------------------------

FRAGMENTS = [SPECIAL, "<|pad|>", "  ", "\n\n", "\r\n", " \n ", "\t", "\u3000", "\xa0", "。", "日本語", "'s", "<|"]
texts = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(alphabet="ab é日 \n\t.!9", max_size=8)), max_size=40
).map("".join)
special_sets = st.sampled_from([[], [SPECIAL], [SPECIAL, "<|pad|>"]])


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("chunks") / "corpus.txt"


def check_chunking(path: Path, text: str, specials: list[str], n_chunks: int) -> None:
    path.write_bytes(text.encode("utf-8"))
    bounds = chunk_boundaries(path, specials, GPT2_PATTERN, n_chunks)
    assert len(bounds) <= n_chunks + 1
    assert_safe_boundaries(path.read_bytes(), bounds, specials)
    assert counted_by_chunks(path, bounds, specials) == pretoken_counts(text, specials)


@settings(max_examples=150, deadline=None)
@given(text=texts, specials=special_sets, n_chunks=st.integers(1, 30))
def test_chunk_counts_equal_whole_text_counts(scratch: Path, text: str, specials: list[str], n_chunks: int) -> None:
    check_chunking(scratch, text, specials, n_chunks)


@settings(max_examples=100, deadline=None)
@given(text=texts, specials=special_sets, n_chunks=st.integers(2, 30))
def test_chunk_counts_with_tiny_search_blocks(scratch: Path, text: str, specials: list[str], n_chunks: int) -> None:
    # Real corpora search blocks of 4 KiB and more for a cut; 3-byte blocks make small texts cross block
    # edges (a special token or a character straddling two reads), which otherwise only big files reach.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(core.pretokenize.cuts, "_FIRST_SEARCH_BYTES", 3)
        patch.setattr(core.pretokenize.cuts, "_MAX_SEARCH_BYTES", 3)
        check_chunking(scratch, text, specials, n_chunks)


@pytest.mark.parametrize(
    ("text", "specials"),
    [
        # A special token that overlaps itself: "\n\n" in a run of four newlines. Whole text: two special
        # tokens, documents "x", "", "y" -> pre-tokens x, y. A cut after the first newline starts the
        # second chunk at "\n\n\ny", whose own leftmost match differs.
        ("x\n\n\n\ny", ["\n\n"]),
        ("aaab", ["aa"]),
        # A special token inside another: "text" inside "<|endoftext|>".
        ("one <|endoftext|> two", [SPECIAL, "text"]),
        # Two occurrences sharing one "a", the first starting a whole token's length before the second: the
        # second loses, so its end is no cut. Seeing that needs twice the token's length before a cut, and
        # export's chunks (each from the previous cut) can search from any offset: "a a ..." cuts anywhere.
        ("a " * 10 + "x" + "a" + "b" * 10 + "a" + "b" * 10 + "ay z", ["a" + "b" * 10 + "a"]),
    ],
    ids=["newlines-overlap-themselves", "aa-overlaps-itself", "token-inside-token", "long-token-overlaps-itself"],
)
def test_overlapping_special_tokens_do_not_change_counts(tmp_path: Path, text: str, specials: list[str]) -> None:
    path = tmp_path / "c.txt"
    data = text.encode("utf-8")
    path.write_bytes(data)
    expected = pretoken_counts(text, specials)
    for n in range(2, len(data) + 1):
        bounds = chunk_boundaries(path, specials, GPT2_PATTERN, n)
        assert counted_by_chunks(path, bounds, specials) == expected, f"{n} chunks: {bounds}"
        ranges = list(chunk_ranges(path, specials, GPT2_PATTERN, n - 1))
        bounds = [0, *(end for _, end in ranges)]
        assert counted_by_chunks(path, bounds, specials) == expected, f"chunks of {n - 1} bytes: {bounds}"


def test_special_token_with_a_space_straddling_a_search_block(tmp_path: Path) -> None:
    # A cut is searched for in blocks. "<end of doc>" ends past the first block (here shrunk to 3 bytes), but
    # its space is inside the block, after a non-space: the space looks like a safe cut unless the search
    # knows the token continues. Whole text: "xxxxx" and "yy zz" (the special token removed).
    special = "<end of doc>"
    text = "xxxxx" + special + "yy zz"
    path = tmp_path / "c.txt"
    path.write_bytes(text.encode())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(core.pretokenize.cuts, "_FIRST_SEARCH_BYTES", 3)
        patch.setattr(core.pretokenize.cuts, "_MAX_SEARCH_BYTES", 3)
        bounds = chunk_boundaries(path, [special], GPT2_PATTERN, 12)
    assert_safe_boundaries(path.read_bytes(), bounds, [special])
    assert counted_by_chunks(path, bounds, [special]) == pretoken_counts(text, [special])


# -- 1 vs 2 workers on files big enough for the parallel path ----------------------------------------------


def big_text(samples_dir: Path, with_specials: bool) -> str:
    parts = [(samples_dir / f"{name}.txt").read_text(encoding="utf-8") for name in ("english", "japanese", "mixed")]
    if not with_specials:
        # The samples separate documents with "<|endoftext|>" lines; drop them so cuts must use whitespace.
        parts = [p.replace(SPECIAL, "") for p in parts]
    separator = SPECIAL if with_specials else "\n"
    one = separator.join(parts)
    copies = -(-(3 * PARALLEL_MIN_BYTES // 2) // len(one.encode("utf-8")))
    return separator.join([one] * copies)


SAMPLES = Path(__file__).resolve().parents[3] / "samples"
"""The repo's samples (the ``samples_dir`` fixture is function-scoped; the big corpus is built once a module)."""


@pytest.fixture(scope="module", params=[True, False], ids=["specials", "whitespace"])
def big_corpus(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    with_specials = request.param
    path = tmp_path_factory.mktemp("big") / "big.txt"
    path.write_text(big_text(SAMPLES, with_specials), encoding="utf-8", newline="")
    return path, [SPECIAL] if with_specials else []


def test_big_corpus_is_cut_into_several_safe_chunks(big_corpus) -> None:
    path, specials = big_corpus
    assert path.stat().st_size >= PARALLEL_MIN_BYTES * 1.4
    bounds = chunk_boundaries(path, specials, GPT2_PATTERN, 6)
    assert len(bounds) >= 6  # at least five chunks
    data = path.read_bytes()
    if not specials:
        assert SPECIAL.encode() not in data
    assert_safe_boundaries(data, bounds, specials)
    text = data.decode("utf-8")
    assert counted_by_chunks(path, bounds, specials) == pretoken_counts(text, specials)


@pytest.mark.slow
def test_one_and_two_workers_train_identically(big_corpus) -> None:
    path, specials = big_corpus
    vocab_size = 256 + len(specials) + 200
    runs = {}
    for workers in (1, 2):
        run = TrainingRun(path, vocab_size, specials, workers=workers)
        events = list(run.events())
        assert isinstance(events[-1], TrainingFinished)
        runs[workers] = (run.result(), events)
    (one, _), (two, two_events) = runs[1], runs[2]
    # The parallel path reports each chunk as it is counted: partial progress proves the file was split.
    size = path.stat().st_size
    partial = [e.done for e in two_events if isinstance(e, PhaseProgress) and e.phase == "reading"
               and 0 < e.done < size]
    assert partial, "the 2-worker run read the file as one chunk: the parallel path was not exercised"
    assert two.merges == one.merges
    assert two.vocab == one.vocab
    assert two.merge_counts == one.merge_counts
    assert len(one.merges) == 200
    assert two.training.corpus_sha256 == one.training.corpus_sha256


@pytest.mark.slow
def test_many_unique_pretokens_one_and_two_workers(tmp_path: Path) -> None:
    # ~48,000 distinct words, read in many chunks by several workers: the merged counts must not depend
    # on how the pre-tokens were split between them.
    rng = random.Random(2)
    syllables = ["ka", "to", "ri", "sa", "ne", "mo", "lu", "pe", "di", "fa", "gu", "ho", "ji", "wa", "ye", "zo",
                 "bi", "cu", "xe", "vo"]
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(3, 5))) for _ in range(60_000)]
    text = "\n".join(" ".join(words[i : i + 12]) for i in range(0, len(words), 12))
    assert len(pretoken_counts(text, [])) > 45_000
    path = tmp_path / "unique.txt"
    path.write_text(text, encoding="utf-8")
    results = {}
    for workers in (1, 2):
        run = TrainingRun(path, 256 + 40, [], workers=workers)
        assert isinstance(list(run.events())[-1], TrainingFinished)
        results[workers] = run.result()
    assert results[2].merges == results[1].merges
    assert results[2].merge_counts == results[1].merge_counts
    assert results[2].vocab == results[1].vocab


@pytest.mark.slow
def test_tinyshakespeare_one_and_two_workers() -> None:
    # No special token occurs in the file, so every cut is a whitespace cut even though one is declared.
    path = shared_path("corpora", "tinyshakespeare.txt")
    assert path.stat().st_size >= PARALLEL_MIN_BYTES
    one = train_bpe(path, 1000, [SPECIAL], workers=1)
    two = train_bpe(path, 1000, [SPECIAL], workers=2)
    assert two[1] == one[1]
    assert two[0] == one[0]
    assert len(one[1]) == 1000 - 257


@pytest.fixture
def chunk_counts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many chunks each training run asked for: proof that a test's file geometry still holds."""
    asked: list[int] = []

    def spy(path: Path, special_tokens: list[str], pattern: str, n_chunks: int) -> list[int]:
        asked.append(n_chunks)
        return chunk_boundaries(path, special_tokens, pattern, n_chunks)

    monkeypatch.setattr(reading_stage, "chunk_boundaries", spy)
    return asked


def test_self_overlapping_special_token_one_and_two_workers(tmp_path: Path, chunk_counts: list[int]) -> None:
    # A ~1 MiB file where the 2-worker run's first chunk target (size // 16) lands on the second newline of
    # "q \n\n\n\n". With special token "\n\n" the whole text has documents "... q ", "", "ab ab ..." (pre-tokens
    # " q", " "); a cut at the target leaves "... q \n" | "\n\n\nab ..." and adds the pre-token " \n".
    k = 23_000
    text = "ab " * k + "q \n\n\n\n" + "ab " * (15 * k + 14)
    path = tmp_path / "paragraphs.txt"
    path.write_bytes(text.encode())
    assert path.stat().st_size >= PARALLEL_MIN_BYTES
    assert path.stat().st_size // 16 == 3 * k + 3
    one = train_bpe(path, 300, ["\n\n"], workers=1)
    two = train_bpe(path, 300, ["\n\n"], workers=2)
    assert chunk_counts[-1] == 16
    assert two[1] == one[1]


def test_special_token_with_a_space_one_and_two_workers(tmp_path: Path, chunk_counts: list[int]) -> None:
    # The straddling case above at full scale: a file with no whitespace except the space inside
    # "<end of doc>", placed so that the token starts 6 bytes before the end of the first block searched
    # for the 2-worker run's first cut (target size // 16, block target .. target + 4 KiB).
    special = "<end of doc>"
    head, tail = 24_697, 348_638
    text = "ab." * head + special + "ab." * tail
    path = tmp_path / "no-spaces.txt"
    path.write_bytes(text.encode())
    size = path.stat().st_size
    assert size >= PARALLEL_MIN_BYTES
    assert 3 * head == size // 16 + core.pretokenize.cuts._FIRST_SEARCH_BYTES - 6
    one = train_bpe(path, 300, [special], workers=1)
    two = train_bpe(path, 300, [special], workers=2)
    assert chunk_counts[-1] == 16
    assert one[1] == [(b"a", b"b")]  # "ab" and "." are the only pre-tokens
    assert two[1] == one[1]


def test_ascii_whitespace_is_what_regex_matches() -> None:
    assert core.pretokenize.cuts.ASCII_WHITESPACE == {chr(c) for c in range(128) if regex.match(r"\s", chr(c))}


def test_training_an_ascii_corpus_does_not_import_regex(tmp_path: Path) -> None:
    # regex takes about 25 ms to import: a small English training run should not pay it.
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower newest widest<|endoftext|>low low\n" * 50, encoding="utf-8")
    code = (
        "import sys; from core.train.run import train_bpe; "
        f"train_bpe({str(corpus)!r}, 300, ['<|endoftext|>'], workers=1); "
        "print('regex' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_training_chunks_end_at_nul_bytes_without_reading_on(tmp_path: Path) -> None:
    """A run of NULs has no safe cut, so each search read on to the end of the file; training refuses the
    file at its first NUL anyway, so a search that meets one cuts there."""
    path = tmp_path / "c.txt"
    path.write_bytes(b"ab " + b"\x00" * (4 << 20))
    size = path.stat().st_size
    assert chunk_boundaries(path, [], GPT2_PATTERN, 4) == [0, size // 4, size // 2, 3 * size // 4, size]
