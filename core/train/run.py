"""Byte-level BPE training, exactly as Stanford CS336 assignment 1 defines it, as a stream of events.

``TrainingRun.events()`` is the one implementation; ``train_bpe`` is a thin loop over it, and the app and
CLI iterate the same events. The work is split in three phases:

1. reading: the corpus is cut into chunks at safe cuts (see ``core.pretokenize.cuts``) and each chunk's
   pre-tokens are counted, across processes when the file is large enough for that to pay; a corpus of
   shards (JSON lines, Parquet, compressed, a folder, a glob or a URL: ``core.corpus``) is counted shard
   by shard (``shard_reading``), in the worker processes or on a Dask cluster (``dask_counting``);
2. counting: every unique pre-token becomes a list of byte ids, and each adjacent pair gets a count
   (weighted by the pre-token's frequency) and an index of the pre-tokens it occurs in;
3. merging: a max-heap with lazy invalidation yields the best pair; merging it changes only the counts
   of its neighbouring pairs, and touches only the pre-tokens that contain it, found through an index
   (except for the first, dense merges of mostly unique pre-tokens, which split one joined text; see
   ``core.train.pair_queue``).

Whatever the route (text or file, one process or several), the result must equal
:func:`core.reference.train` on the same text, merge for merge and count for count. The reference
recounts every pair after every merge; this run counts once and then updates only what a merge changes,
and reads large files in several processes, so a merge costs time in proportion to its occurrences
rather than to the corpus.

Where the rest lives: ``settings`` (the checks of the settings that need no corpus), ``reading_stage``
(the reading phase: the corpus shared out among processes), ``events`` (what a run yields, and
``StopReason``), ``reading`` (checking and counting one chunk of a file), ``worker_pool`` (the forked
readers), ``pair_queue`` (pair counts and the heap that picks each merge), ``word_store`` and
``joined_words`` (the two stores of pre-tokens that a merge rewrites), ``memory`` (resident memory for the
displays). Encoding is in ``core.encode``, files in ``core.formats``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from core.train.reading import check_corpus_path
from core.corpus.records import SkippedRecords
from core.corpus.shards import Corpus, open_corpus
from core.errors import SettingsError
from core.limits import check_utf8_path, check_workers
from core.train.events import MergeMade, PhaseProgress, StopReason, TrainingEvent, TrainingFinished
from core.train.pair_queue import MAX_TOKEN_ID, PairMerger
from core.train.reading_stage import ReadingStage
from core.train.settings import check_text_field, check_training_text, validate_settings, whole_number
from core.char_base import alphabet, char_counts, token_words
from core.model import BASES, BYTE_BASE, CHAR_BASE, BPEModel, TrainingInfo
from core.pretokenize.coverage import pattern_problem
from core.pretokenize.patterns import GPT2_PATTERN


class TrainingRun(ReadingStage):
    """One training run, driven by iterating :meth:`events`.

    The run can be stopped after any number of merges (stop iterating, or pass ``max_merges``) and
    :meth:`result` then gives the tokenizer so far; :meth:`cancel` (safe from another thread) ends the
    iteration early, without a ``TrainingFinished`` event, and stops any worker processes.

    >>> run = TrainingRun.from_text("low low low lower lower newest", 259)
    >>> [e.token for e in run.events() if isinstance(e, MergeMade)]
    [b'ow', b'low', b' low']
    """

    def __init__(
        self,
        input_path: str | bytes | os.PathLike[str] | None = None,
        vocab_size: int = 1000,
        special_tokens: Sequence[str] = (),
        *,
        text: str | None = None,
        workers: int | None = None,
        min_frequency: int = 0,
        errors: str = "strict",
        max_merges: int | None = None,
        pattern: str = GPT2_PATTERN,
        text_field: str = "text",
        skip_bad_records: bool = False,
        dask: str | None = None,
        base: str = BYTE_BASE,
        min_char_count: int = 1,
        min_count: int = 1,
    ) -> None:
        # A NumPy integer (a size from np.arange in a sweep) is a whole number too: "must be a whole number (an
        # int), not int64" refused it. Floats and bools stay refused below.
        vocab_size, min_frequency, min_char_count, min_count = map(
            whole_number, (vocab_size, min_frequency, min_char_count, min_count)
        )
        max_merges, workers = whole_number(max_merges), whole_number(workers)
        validate_settings(vocab_size, special_tokens, min_frequency, errors)
        if base not in BASES:
            raise SettingsError(f"base {base!r} is not understood; use {' or '.join(map(repr, BASES))}")
        if type(min_char_count) is not int or min_char_count < 1:
            raise SettingsError(f"min char count {min_char_count!r} must be a whole number >= 1 (1 keeps every character)")
        if type(min_count) is not int or min_count < 1:
            raise SettingsError(f"min count {min_count!r} must be a whole number >= 1 (1 keeps every pre-token)")
        if max_merges is not None and (type(max_merges) is not int or max_merges < 0):
            # A float raised a bare TypeError once the whole corpus was read; a negative number stopped at 0.
            raise SettingsError(f"max merges {max_merges!r} must be a whole number >= 0, or None for no limit")
        if not isinstance(pattern, str):
            raise SettingsError(f"pattern must be a regex string, not {type(pattern).__name__}")
        problem = pattern_problem(pattern)
        if problem is not None:  # a tokenizer trained on it would drop text, and no loader would take it
            raise SettingsError(f"split pattern {pattern!r:.60} {problem}")
        if workers is not None:  # None: one per core
            check_workers(workers)
        if (input_path is None) == (text is None):
            raise SettingsError("give either a corpus path or text to train on, not both or neither")
        if text is not None:
            check_training_text(text)
        check_text_field(text_field)
        if dask is not None:
            from core.train.dask_counting import check_dask

            check_dask(dask, workers if workers is not None else (os.cpu_count() or 1))
        self.corpus: Corpus | None = None
        """The shards, for anything but one uncompressed text file (which is read as it always was)."""
        self.path: Path | None = None
        if input_path is not None:  # the tokenizer records it as UTF-8 text, so refuse now, not when saving
            input_path = os.fsdecode(input_path)  # bytes, as open() takes them, too
            check_utf8_path(input_path, "input_path")
            corpus = open_corpus(input_path)
            if corpus.single_plain_text and dask is None:
                self.path = check_corpus_path(input_path)
            else:
                self.path, self.corpus = Path(input_path), corpus
        self.text = text
        self.text_field = text_field
        self.skip_bad_records = skip_bad_records
        self.dask = dask
        self.skipped = SkippedRecords()
        """Bad records skipped while reading (with ``skip_bad_records``), the first in corpus order."""
        self.documents = 0
        """Documents read from a corpus of shards (records, or text between special tokens)."""
        self.vocab_size = vocab_size
        self.special_tokens = list(special_tokens)
        self.workers = workers if workers is not None else (os.cpu_count() or 1)
        self.min_frequency = min_frequency
        self.errors = errors
        self.max_merges = max_merges
        self.pattern = pattern
        self.base = base
        """``"bytes"``, or ``"chars"``: the alphabet is the corpus's characters (see ``core.char_base``)."""
        self.min_char_count = min_char_count
        self.min_count = min_count
        """Pre-tokens seen fewer times than this in the whole corpus are dropped before merging (``reference``'s
        step 5): memory for the merge loop's index, bought with merges that may differ."""
        self.pretokens_pruned = 0
        """How many unique pre-tokens ``min_count`` dropped (known once counting is done)."""
        self._cancelled = threading.Event()
        self._dask: Any = None
        self._corpus_bytes = 0
        self._corpus_sha256 = ""
        # Model state, built as merges are made.
        self.vocab: dict[int, bytes] = {i: bytes([i]) for i in range(256)}
        for offset, token in enumerate(self.special_tokens):
            self.vocab[256 + offset] = token.encode("utf-8")
        self.merges: list[tuple[bytes, bytes]] = []
        self.merge_counts: list[int] = []
        self.merge_runner_ups: list[int] = []
        self._merger: PairMerger | None = None

    @classmethod
    def from_text(cls, text: str, vocab_size: int, special_tokens: Sequence[str] = (), **options) -> TrainingRun:
        """A run over in-memory text (the merge stepper's small corpora)."""
        return cls(None, vocab_size, special_tokens, text=text, **options)

    @property
    def corpus_spec(self) -> str | None:
        """The corpus as given: a file, a folder, a glob or a URL (``None`` for in-memory text)."""
        if self.corpus is not None:
            return self.corpus.spec
        return str(self.path) if self.path is not None else None

    @property
    def merges_done(self) -> int:
        return len(self.merges)

    def cancel(self) -> None:
        """Ask the run to stop at the next event; safe to call from any thread."""
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def result(self) -> BPEModel:
        """The tokenizer made so far, with the parameters and corpus it was trained on."""
        info = TrainingInfo(
            vocab_size=self.vocab_size,
            min_frequency=self.min_frequency,
            corpus_path=self.corpus_spec,
            corpus_bytes=self._corpus_bytes,
            corpus_sha256=self._corpus_sha256,
            workers=self.workers,
            errors=self.errors,
            min_char_count=self.min_char_count if self.base == CHAR_BASE else None,
            min_count=self.min_count if self.min_count > 1 else None,
            pretokens_pruned=self.pretokens_pruned if self.min_count > 1 else None,
        )
        name = "text" if self.path is None else self.corpus.name if self.corpus is not None else self.path.stem
        return BPEModel(
            vocab=dict(self.vocab),
            merges=list(self.merges),
            special_tokens=list(self.special_tokens),
            pattern=self.pattern,
            merge_counts=list(self.merge_counts),
            merge_runner_ups=list(self.merge_runner_ups),
            training=info,
            name=f"{name}-{len(self.vocab)}",
            base=self.base,
        )

    def top_pairs(self, n: int = 10) -> list[tuple[bytes, bytes, int]]:
        """The ``n`` best candidate pairs right now, in the order training would pick them."""
        if self._merger is None:
            return []
        vocab = self.vocab
        return [(vocab[ord(p[0])], vocab[ord(p[1])], count) for p, count in self._merger.top_pairs(n)]

    # -- phases -----------------------------------------------------------------------------------------

    def events(self) -> Iterator[TrainingEvent]:
        """Run the training, yielding progress, one ``MergeMade`` per merge and a final ``TrainingFinished``."""
        word_counts: dict[str, int] = {}
        with self._worker_pool() as pool:
            yield from self._read(word_counts, pool)
            if self.cancelled:
                return
            if self.min_count > 1:
                word_counts = self._pruned(word_counts)
            unique = len(word_counts)
            yield PhaseProgress("counting", 0, unique)
            if self.base == CHAR_BASE:
                self._merger = PairMerger(self._char_words(word_counts), self.vocab, pool=pool, parts=self.workers, as_tokens=True)
            else:
                self._merger = PairMerger(word_counts, self.vocab, pool=pool, parts=self.workers)
        del word_counts
        yield PhaseProgress("counting", unique, unique)
        if self.cancelled:
            return
        reason = yield from self._merge(self._merger)
        if reason is not None:
            yield TrainingFinished(self.result(), reason)

    def _pruned(self, word_counts: dict[str, int]) -> dict[str, int]:
        """The pre-tokens seen at least ``min_count`` times in the whole corpus, in a new dict (one that lost
        most of its keys by deletion would keep its size); records how many were dropped."""
        least = self.min_count
        kept = {word: count for word, count in word_counts.items() if count >= least}
        self.pretokens_pruned = len(word_counts) - len(kept)
        return kept

    def _char_words(self, word_counts: dict[str, int]) -> dict[str, int]:
        """Give the alphabet's characters ids after the special tokens, and return the pre-tokens as strings of
        token characters, cut at rare characters (see ``core.char_base``)."""
        counts = char_counts(word_counts)
        kept = {char: ord(char) for char in counts if ord(char) < 0x80 and counts[char] >= self.min_char_count}
        for char in alphabet(counts, self.min_char_count):
            kept[char] = len(self.vocab)
            self.vocab[len(self.vocab)] = char.encode("utf-8")
        if len(self.vocab) > self.vocab_size:  # a model larger than asked for would be a silent surprise
            characters = len(self.vocab) - 256 - len(self.special_tokens)
            raise SettingsError(
                f"vocab size {self.vocab_size:,} is below the character base's {len(self.vocab):,} tokens (256 bytes, "
                f"{len(self.special_tokens):,} special token{'' if len(self.special_tokens) == 1 else 's'}, "
                f"{characters:,} characters); raise the vocab size to at "
                "least that, or the min char count so that rare characters fall back to bytes"
            )
        if len(self.vocab) > MAX_TOKEN_ID:
            raise SettingsError(
                f"the corpus has {len(self.vocab):,} distinct characters, more than the {MAX_TOKEN_ID + 1:,} tokens "
                "supported; raise --min-char-count"
            )
        return token_words(word_counts, kept)


    def _planned_merges(self) -> int:
        """How many merges the run will make at most (vocab size, or ``max_merges``, whichever is less)."""
        target = self.vocab_size - len(self.vocab)
        if self.max_merges is not None:
            target = min(target, self.max_merges - len(self.merges))
        return max(target, 0)

    def _merge(self, merger: PairMerger) -> Iterator[TrainingEvent]:
        """Merge until the vocabulary is full; returns why it stopped (``None`` if cancelled)."""
        target = self._planned_merges()
        yield PhaseProgress("merging", 0, target)
        # Names bound once: this loop runs once per merge, tens of thousands of times.
        cancelled, pop_best, apply = self._cancelled.is_set, merger.pop_best, merger.apply
        vocab, merges, merge_counts, min_frequency = self.vocab, self.merges, self.merge_counts, self.min_frequency
        runner_ups = self.merge_runner_ups
        for _ in range(target):
            if cancelled():
                return None
            best = pop_best()
            if best is None:
                return StopReason.NO_PAIRS
            pair, count, runner_up = best
            if count < min_frequency:
                return StopReason.MIN_FREQUENCY
            new_id = len(vocab)
            left, right = vocab[ord(pair[0])], vocab[ord(pair[1])]
            apply(pair, new_id)  # adds new_id to vocab
            merges.append((left, right))
            merge_counts.append(count)
            runner_ups.append(runner_up)
            yield MergeMade(len(merges) - 1, left, right, new_id, count, runner_up, runner_up == count)
        if self.max_merges is not None and len(self.merges) >= self.max_merges:
            return StopReason.MAX_MERGES
        return StopReason.VOCAB_SIZE


def train_bpe(
    input_path: str | bytes | os.PathLike[str],
    vocab_size: int,
    special_tokens: list[str],
    **options,
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Train a byte-level BPE tokenizer on a text file (the CS336 assignment 1 interface), or on a corpus of
    shards (a ``.jsonl``/``.parquet``/compressed file, a folder, a glob or a URL; each record a document).

    Options are those of :class:`TrainingRun` (``workers``, ``min_frequency``, ``errors``, ``max_merges``,
    ``text_field``, ``skip_bad_records``, ``dask``, ``base``, ``min_char_count``, ``min_count``).

    >>> import tempfile; path = Path(tempfile.mkstemp()[1]); _ = path.write_text("low low low lower lower newest")
    >>> vocab, merges = train_bpe(path, 258, [])
    >>> merges
    [(b'o', b'w'), (b'l', b'ow')]
    """
    run = TrainingRun(input_path, vocab_size, special_tokens, **options)
    for _ in run.events():
        pass
    model = run.result()
    return model.vocab, model.merges
