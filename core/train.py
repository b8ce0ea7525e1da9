"""Byte-level BPE training, exactly as Stanford CS336 assignment 1 defines it, as a stream of events.

``TrainingRun.events()`` is the one implementation; ``train_bpe`` is a thin loop over it, and the app and
CLI iterate the same events. The work is split in three phases:

1. reading: the corpus is cut into chunks at safe boundaries (see ``core.corpus``) and each chunk's
   pre-tokens are counted, across processes when the file is large enough for that to pay;
2. counting: every unique pre-token becomes a list of byte ids, and each adjacent pair gets a count
   (weighted by the pre-token's frequency) and an index of the pre-tokens it occurs in;
3. merging: a max-heap with lazy invalidation yields the best pair; merging it touches only the
   pre-tokens that contain it and changes only the counts of its neighbouring pairs.
"""

from __future__ import annotations

import hashlib
import heapq
import multiprocessing
import os
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

from core.corpus import (
    TARGET_CHUNK_BYTES,
    check_corpus_path,
    chunk_boundaries,
    count_chunk,
    count_pretokens,
    file_sha256,
)
from core.errors import SettingsError
from core.events import MergeMade, PhaseProgress, TrainingEvent, TrainingFinished
from core.model import BPEModel, TrainingInfo
from core.patterns import GPT2_PATTERN

PARALLEL_MIN_BYTES = 1 << 20
"""Below this size a corpus is counted in-process: starting workers would cost more than it saves."""

Pair = tuple[int, int]

_REVERSE_LATIN1 = {i: 256 - i for i in range(256)}


def _descending_key(token: bytes) -> str:
    """A string that sorts in the *reverse* byte order of ``token``, so a min-heap pops the greater pair first.

    Each byte b becomes the code point 256 - b, and a terminator (257) sorts a proper prefix after its
    extensions: b"ab" > b"a", so key(b"ab") < key(b"a").

    >>> _descending_key(b"ab") < _descending_key(b"a") < _descending_key(b"A")
    True
    """
    return token.decode("latin-1").translate(_REVERSE_LATIN1) + chr(257)


def validate_settings(vocab_size: int, special_tokens: Sequence[str], min_frequency: int, errors: str) -> None:
    """Reject settings that cannot work, with one line that says what to change."""
    if isinstance(special_tokens, str):
        raise SettingsError("special_tokens must be a list of strings, not one string; wrap it in a list")
    for token in special_tokens:
        if not isinstance(token, str) or token == "":
            raise SettingsError(f"special token {token!r} is empty or not a string; give non-empty strings")
    seen = Counter(special_tokens)
    duplicates = [t for t, n in seen.items() if n > 1]
    if duplicates:
        raise SettingsError(f"special token {duplicates[0]!r} is given twice; give each special token once")
    minimum = 256 + len(special_tokens)
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool) or vocab_size < minimum:
        raise SettingsError(
            f"vocab size {vocab_size!r} is too small: it must be at least {minimum} "
            f"(256 bytes + {len(special_tokens)} special tokens)"
        )
    if not isinstance(min_frequency, int) or min_frequency < 0:
        raise SettingsError(f"min frequency {min_frequency!r} must be a whole number >= 0")
    if errors not in ("strict", "replace"):
        raise SettingsError(f"errors={errors!r} is not understood; use 'strict' or 'replace'")


class TrainingRun:
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
        input_path: str | os.PathLike[str] | None = None,
        vocab_size: int = 1000,
        special_tokens: Sequence[str] = (),
        *,
        text: str | None = None,
        workers: int | None = None,
        min_frequency: int = 0,
        errors: str = "strict",
        max_merges: int | None = None,
        pattern: str = GPT2_PATTERN,
    ) -> None:
        validate_settings(vocab_size, special_tokens, min_frequency, errors)
        if (input_path is None) == (text is None):
            raise SettingsError("give either a corpus path or text to train on, not both or neither")
        self.path = check_corpus_path(input_path) if input_path is not None else None
        self.text = text
        self.vocab_size = vocab_size
        self.special_tokens = list(special_tokens)
        self.workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
        self.min_frequency = min_frequency
        self.errors = errors
        self.max_merges = max_merges
        self.pattern = pattern
        self._cancelled = threading.Event()
        self._corpus_bytes = 0
        self._corpus_sha256 = ""
        # Model state, built as merges are made.
        self.vocab: dict[int, bytes] = {i: bytes([i]) for i in range(256)}
        for offset, token in enumerate(self.special_tokens):
            self.vocab[256 + offset] = token.encode("utf-8")
        self.merges: list[tuple[bytes, bytes]] = []
        self.merge_counts: list[int] = []
        # Pair statistics (filled in the counting phase).
        self._pair_counts: dict[Pair, int] = {}

    @classmethod
    def from_text(cls, text: str, vocab_size: int, special_tokens: Sequence[str] = (), **options) -> TrainingRun:
        """A run over in-memory text (the merge stepper's small corpora)."""
        return cls(None, vocab_size, special_tokens, text=text, **options)

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
            corpus_path=str(self.path) if self.path is not None else None,
            corpus_bytes=self._corpus_bytes,
            corpus_sha256=self._corpus_sha256,
            workers=self.workers,
            errors=self.errors,
        )
        name = self.path.stem if self.path is not None else "text"
        return BPEModel(
            vocab=dict(self.vocab),
            merges=list(self.merges),
            special_tokens=list(self.special_tokens),
            pattern=self.pattern,
            merge_counts=list(self.merge_counts),
            training=info,
            name=f"{name}-{len(self.vocab)}",
        )

    def top_pairs(self, n: int = 10) -> list[tuple[bytes, bytes, int]]:
        """The ``n`` best candidate pairs right now, in the order training would pick them."""
        vocab = self.vocab
        best = heapq.nlargest(
            n, self._pair_counts.items(), key=lambda item: (item[1], vocab[item[0][0]], vocab[item[0][1]])
        )
        return [(vocab[a], vocab[b], count) for (a, b), count in best]

    # -- phases -----------------------------------------------------------------------------------------

    def events(self) -> Iterator[TrainingEvent]:
        """Run the training, yielding progress, one ``MergeMade`` per merge and a final ``TrainingFinished``."""
        word_counts: dict[str, int] = {}
        yield from self._read(word_counts)
        if self.cancelled:
            return
        yield PhaseProgress("counting", 0, len(word_counts))
        words, freqs = self._count_pairs(word_counts)
        del word_counts
        yield PhaseProgress("counting", len(words), len(words))
        if self.cancelled:
            return
        reason = yield from self._merge(words, freqs)
        if reason is not None:
            yield TrainingFinished(self.result(), reason)

    def _read(self, word_counts: dict[str, int]) -> Iterator[TrainingEvent]:
        if self.text is not None:
            data = self.text.encode("utf-8")
            self._corpus_bytes = len(data)
            self._corpus_sha256 = hashlib.sha256(data).hexdigest()
            yield PhaseProgress("reading", 0, len(data))
            word_counts.update(count_pretokens(self.text, self.special_tokens, self.pattern))
            yield PhaseProgress("reading", len(data), len(data))
            return
        assert self.path is not None
        size = self.path.stat().st_size
        self._corpus_bytes = size
        yield PhaseProgress("reading", 0, size)
        n_chunks = max(1, -(-size // TARGET_CHUNK_BYTES))
        parallel = self.workers > 1 and size >= PARALLEL_MIN_BYTES
        if parallel:
            n_chunks = max(n_chunks, self.workers * 2)
        bounds = chunk_boundaries(self.path, self.special_tokens, n_chunks)
        jobs = [
            (str(self.path), start, end, self.special_tokens, self.pattern, self.errors)
            for start, end in zip(bounds, bounds[1:])
        ]
        counts: Counter[str] = Counter()
        done = 0
        if not parallel or len(jobs) == 1:
            for job in jobs:
                n, chunk_counts = count_chunk(job)
                counts.update(chunk_counts)
                done += n
                yield PhaseProgress("reading", done, size)
                if self.cancelled:
                    return
            self._corpus_sha256 = file_sha256(self.path)
        else:
            context = multiprocessing.get_context("fork")
            pool = context.Pool(min(self.workers, len(jobs)))
            try:
                results = pool.imap_unordered(count_chunk, jobs)
                # Hash while the workers count: the parent would only be waiting otherwise.
                self._corpus_sha256 = file_sha256(self.path)
                for n, chunk_counts in results:
                    counts.update(chunk_counts)
                    done += n
                    yield PhaseProgress("reading", done, size)
                    if self.cancelled:
                        return
            finally:
                pool.terminate()
                pool.join()
        word_counts.update(counts)

    def _count_pairs(self, word_counts: dict[str, int]) -> tuple[list[list[int]], list[int]]:
        words: list[list[int]] = []
        freqs: list[int] = []
        pair_counts: dict[Pair, int] = {}
        where: dict[Pair, set[int]] = {}
        for index, (piece, freq) in enumerate(word_counts.items()):
            ids = list(piece.encode("utf-8"))
            words.append(ids)
            freqs.append(freq)
            for pair in zip(ids, ids[1:]):
                pair_counts[pair] = pair_counts.get(pair, 0) + freq
                bucket = where.get(pair)
                if bucket is None:
                    where[pair] = {index}
                else:
                    bucket.add(index)
        self._pair_counts = pair_counts
        self._where = where
        return words, freqs

    def _merge(self, words: list[list[int]], freqs: list[int]) -> Iterator[TrainingEvent]:
        """Merge until the vocabulary is full; returns why it stopped (``None`` if cancelled)."""
        vocab = self.vocab
        pair_counts = self._pair_counts
        where = self._where
        keys = [_descending_key(vocab[i]) for i in range(len(vocab))]
        heap = [(-count, keys[a], keys[b], a, b) for (a, b), count in pair_counts.items()]
        heapq.heapify(heap)
        heappush, heappop = heapq.heappush, heapq.heappop
        target = self.vocab_size - len(vocab)
        if self.max_merges is not None:
            target = min(target, self.max_merges - len(self.merges))
        yield PhaseProgress("merging", 0, max(target, 0))
        next_id = len(vocab)
        for _ in range(max(target, 0)):
            if self.cancelled:
                return None
            # Pop until an entry matches the pair's current count. Counts only fall without a push, so a
            # stale entry overstates its pair: push it back with the true count and keep looking.
            while heap:
                neg, key_a, key_b, a, b = heappop(heap)
                current = pair_counts.get((a, b), 0)
                if current == -neg:
                    break
                if 0 < current < -neg:
                    heappush(heap, (-current, key_a, key_b, a, b))
            else:
                return "no_pairs"
            count = -neg
            if count < self.min_frequency:
                return "min_frequency"
            del pair_counts[(a, b)]
            runner_up = self._clean_top(heap)
            new_id = next_id
            next_id += 1
            left, right = vocab[a], vocab[b]
            vocab[new_id] = left + right
            keys.append(_descending_key(vocab[new_id]))
            self.merges.append((left, right))
            self.merge_counts.append(count)
            self._apply_merge(a, b, new_id, words, freqs, where, pair_counts, heap, keys)
            yield MergeMade(len(self.merges) - 1, left, right, new_id, count, runner_up, runner_up == count)
        if self.max_merges is not None and len(self.merges) >= self.max_merges:
            return "max_merges"
        return "vocab_size"

    def _clean_top(self, heap: list) -> int:
        """Make the heap's top entry current and return its count (the runner-up's), 0 if none is left."""
        pair_counts = self._pair_counts
        while heap:
            neg, key_a, key_b, a, b = heap[0]
            current = pair_counts.get((a, b), 0)
            if current == -neg:
                return current
            if 0 < current < -neg:
                heapq.heapreplace(heap, (-current, key_a, key_b, a, b))
            else:
                heapq.heappop(heap)
        return 0

    @staticmethod
    def _apply_merge(a, b, new_id, words, freqs, where, pair_counts, heap, keys) -> None:
        """Replace every (a, b) with ``new_id`` in the pre-tokens that have it, adjusting neighbour counts.

        The left neighbour is read from the output being built, so in ``a b a b`` the second merge sees
        the first one's result: the transient (new, a) pair is counted +1 then -1 and cancels out.
        """
        deltas: dict[Pair, int] = {}
        get = deltas.get
        for index in where.pop((a, b), ()):
            word = words[index]
            try:
                at = word.index(a)
            except ValueError:
                continue
            n = len(word)
            freq = freqs[index]
            out = word[:at]
            changed = False
            while True:
                if at + 1 < n and word[at + 1] == b:
                    changed = True
                    if out:
                        left = out[-1]
                        deltas[(left, a)] = get((left, a), 0) - freq
                        deltas[(left, new_id)] = get((left, new_id), 0) + freq
                        where.setdefault((left, new_id), set()).add(index)
                    if at + 2 < n:
                        right = word[at + 2]
                        deltas[(b, right)] = get((b, right), 0) - freq
                        deltas[(new_id, right)] = get((new_id, right), 0) + freq
                        where.setdefault((new_id, right), set()).add(index)
                    out.append(new_id)
                    at += 2
                else:
                    out.append(a)
                    at += 1
                try:
                    following = word.index(a, at)
                except ValueError:
                    out.extend(word[at:])
                    break
                out.extend(word[at:following])
                at = following
            if changed:
                words[index] = out
        merged = (a, b)
        for pair, delta in deltas.items():
            if delta == 0 or pair == merged:
                continue
            count = pair_counts.get(pair, 0) + delta
            if count > 0:
                pair_counts[pair] = count
                if delta > 0:
                    heapq.heappush(heap, (-count, keys[pair[0]], keys[pair[1]], pair[0], pair[1]))
            else:
                pair_counts.pop(pair, None)


def train_bpe(
    input_path: str | os.PathLike[str],
    vocab_size: int,
    special_tokens: list[str],
    **options,
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Train a byte-level BPE tokenizer on a text file (the CS336 assignment 1 interface).

    Options are those of :class:`TrainingRun` (``workers``, ``min_frequency``, ``errors``, ``max_merges``).

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
