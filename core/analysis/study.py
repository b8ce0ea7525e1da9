"""The vocabulary-size study: one training run at the largest size gives every smaller tokenizer for free.

BPE merges form a prefix: the tokenizer trained to V tokens is the one trained to a larger size with its
merges cut at V (same corpus, same settings), because training makes the same choices in the same order
and only stops later. So the study trains once, notes the time the run took to reach each size (from its
own merge events), cuts the result at each size and measures every cut on the evaluation texts: tokens,
bytes per token, the longest token, the share of bare bytes in Japanese (pieces of a character no merge
joined), the embedding parameters V x d a model with that vocabulary would need, and the context coverage
(``core.analysis.coverage``): how many characters and bytes of each text the first window of 128, 1,024 or
8,192 tokens holds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from os import PathLike
from typing import Any, NamedTuple

from core.analysis.coverage import DEFAULT_WINDOWS, context_coverage
from core.analysis.study_corpus import EvaluationText
from core.encode.tokenizer import Tokenizer
from core.errors import SettingsError
from core.model import BYTE_BASE, CHAR_BASE, BPEModel
from core.train.events import MergeMade, PhaseProgress, TrainingFinished
from core.train.pair_queue import MAX_TOKEN_ID
from core.train.run import TrainingRun

JAPANESE = "japanese"
"""The evaluation text whose bare-byte share is reported (the bundled Japanese sample, when given)."""


def parse_sizes(text: str) -> list[int]:
    """``"300,500,1000"`` -> ``[300, 500, 1000]``: whole numbers, given once each, sorted.

    >>> parse_sizes("1000, 300,500")
    [300, 500, 1000]
    >>> parse_sizes("300,x")
    Traceback (most recent call last):
    core.errors.SettingsError: size 'x' is not a whole number; give sizes like 300,500,1000
    """
    sizes = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdecimal():  # "²" is a digit to isdigit(), not to int()
            raise SettingsError(f"size {part!r:.40} is not a whole number; give sizes like 300,500,1000")
        if len(part) > 9:  # int() refuses 4,301 digits; no vocabulary comes near a billion tokens
            shown = part if len(part) <= 12 else f"{part[:12]}... ({len(part):,} digits)"
            raise SettingsError(f"size {shown} is too large; give sizes like 300,500,1000")
        sizes.append(int(part))
    if len(set(sizes)) != len(sizes):
        raise SettingsError("a size is given twice; give each vocabulary size once")
    return sorted(sizes)


def prefix_model(model: BPEModel, vocab_size: int) -> BPEModel:
    """``model`` (as training made it: bytes, special tokens, the alphabet of a character base, then one id
    per merge) cut to ``vocab_size`` tokens, which is the tokenizer training to ``vocab_size`` would have made.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"abc"}
    >>> cut = prefix_model(BPEModel(vocab, [(b"a", b"b"), (b"ab", b"c")], merge_counts=[5, 3]), 257)
    >>> cut.merges, cut.merge_counts, len(cut.vocab)
    ([(b'a', b'b')], [5], 257)
    """
    base = model.vocab_size - len(model.merges)  # every token no merge made
    kept = max(0, vocab_size - base)

    def cut(values: list[Any] | None) -> list[Any] | None:
        return None if values is None else values[:kept]

    return replace(
        model,
        vocab={token_id: token for token_id, token in model.vocab.items() if token_id < base + kept},
        merges=model.merges[:kept],
        merge_counts=cut(model.merge_counts),
        merge_runner_ups=cut(model.merge_runner_ups),
        training=replace(model.training, vocab_size=vocab_size) if model.training is not None else None,
        name=f"{model.name.rsplit('-', 1)[0]}-{base + kept}" if model.name else "",
    )


@dataclass(frozen=True)
class SizeResult:
    """What a tokenizer of ``vocab`` tokens does to each evaluation text.

    Attributes:
        vocab: the vocabulary size.
        seconds: how long the run took to reach it, from its start (reading and counting included).
        tokens: evaluation text name -> tokens.
        bytes_per_token: evaluation text name -> UTF-8 bytes per token.
        longest_token: the longest token of the vocabulary, special tokens aside (the first of equals by id).
        japanese_bare_bytes: the share of the Japanese text's tokens that are one byte of a multi-byte
            character (a byte no merge joined); ``None`` without a ``japanese`` evaluation text.
        embedding: embedding parameters ``vocab * d``.
        coverage: evaluation text name -> window size -> ``(chars, bytes)`` of the text its first window
            of tokens holds (a window larger than the text holds all of it).
    """

    vocab: int
    seconds: float
    tokens: dict[str, int]
    bytes_per_token: dict[str, float]
    longest_token: bytes
    japanese_bare_bytes: float | None
    embedding: int
    coverage: dict[str, dict[int, tuple[int, int]]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "vocab": self.vocab,
            "seconds": round(self.seconds, 4),
            "tokens": dict(self.tokens),
            "bytes_per_token": {name: round(value, 4) for name, value in self.bytes_per_token.items()},
            "longest_token": self.longest_token.decode("utf-8", errors="backslashreplace"),
            "japanese_bare_bytes": None if self.japanese_bare_bytes is None else round(self.japanese_bare_bytes, 4),
            "embedding": self.embedding,
            "coverage": {
                name: {str(window): {"chars": chars, "bytes": size} for window, (chars, size) in windows.items()}
                for name, windows in self.coverage.items()
            },
        }


@dataclass(frozen=True)
class Study:
    """A finished study: one result per size reached, and the sizes the run could not reach."""

    sizes: tuple[SizeResult, ...]
    unreached: tuple[int, ...] = ()
    d: int = 768
    text_names: tuple[str, ...] = field(default=())
    windows: tuple[int, ...] = DEFAULT_WINDOWS
    smallest: int = 0
    """The vocabulary before the first merge (bytes, special tokens and a character base's alphabet): a size
    below it is unreached too."""

    def to_json(self) -> dict[str, Any]:
        return {"sizes": [size.to_json() for size in self.sizes], "unreached": list(self.unreached), "d": self.d}


class SizeReached(NamedTuple):
    """The run made its ``vocab``-th token ``seconds`` after it started."""

    vocab: int
    seconds: float


class SizeMeasured(NamedTuple):
    """One size has been measured on every evaluation text."""

    result: SizeResult
    done: int
    total: int


class StudyFinished(NamedTuple):
    """The last event of a study."""

    study: Study


StudyEvent = PhaseProgress | SizeReached | SizeMeasured | StudyFinished
"""What :meth:`StudyRun.events` yields: the training run's progress, then one event per size."""


def measure(
    model: BPEModel,
    texts: Mapping[str, EvaluationText],
    *,
    seconds: float,
    d: int,
    windows: Sequence[int] = DEFAULT_WINDOWS,
) -> SizeResult:
    """Encode every text with ``model`` and collect the figures of :class:`SizeResult`.

    A text given as a tuple is documents, each encoded on its own, one after another (as ``export`` writes
    a corpus of shards with no special token); its coverage counts across them, in order.
    """
    tokenizer = Tokenizer.from_model(model)
    tokens: dict[str, int] = {}
    bytes_per_token: dict[str, float] = {}
    coverage: dict[str, dict[int, tuple[int, int]]] = {}
    bare: float | None = None
    for name, given in texts.items():
        documents = (given,) if isinstance(given, str) else given
        ids = [token for document in documents for token in tokenizer.encode(document, allowed_special="all")]
        text = "".join(documents)
        tokens[name] = len(ids)
        size = len(text.encode("utf-8", errors="surrogatepass"))
        bytes_per_token[name] = size / len(ids) if ids else 0.0
        pieces = tokenizer.decode_tokens_bytes(ids)
        if windows:
            covered = context_coverage(text, [len(piece) for piece in pieces], windows)
            coverage[name] = {c.window: (c.chars, c.bytes) for c in covered}
        if name == JAPANESE:
            bare = sum(1 for piece in pieces if len(piece) == 1 and piece[0] >= 0x80) / len(ids) if ids else 0.0
    specials = {token.encode("utf-8") for token in model.special_tokens}
    learned = [token for _, token in sorted(model.vocab.items()) if token not in specials]
    longest = max(learned, key=len, default=b"")
    return SizeResult(
        vocab=model.vocab_size,
        seconds=seconds,
        tokens=tokens,
        bytes_per_token=bytes_per_token,
        longest_token=longest,
        japanese_bare_bytes=bare,
        embedding=model.vocab_size * d,
        coverage=coverage,
    )


class StudyRun:
    """One study, driven by iterating :meth:`events` (the CLI and the app's worker both do).

    Args:
        corpus: the corpus file to train on.
        sizes: the vocabulary sizes to report (each at least 256 + the special tokens).
        texts: evaluation text name -> text (or documents, see :func:`measure`), in the order to report them.
        d: the embedding width for ``embedding``.
        windows: context window sizes, in tokens, whose coverage each size reports.
        special_tokens: as for training.
        workers: as for training (does not change the result).
        clock: seconds from some fixed point; injected so tests can freeze time.
        base: ``"bytes"`` or ``"chars"``, as for training; with ``"chars"`` a size below 256 + the special
            tokens + the corpus's alphabet is never reached.
        min_char_count: as for training, with ``base="chars"``.
        errors: as for training: ``"strict"`` refuses invalid UTF-8 in the corpus, ``"replace"`` trains on
            U+FFFD in its place.
    """

    def __init__(
        self,
        corpus: str | PathLike[str],
        sizes: Sequence[int],
        texts: Mapping[str, EvaluationText],
        *,
        d: int = 768,
        windows: Sequence[int] = DEFAULT_WINDOWS,
        special_tokens: Sequence[str] = (),
        workers: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
        text_field: str = "text",
        skip_bad_records: bool = False,
        base: str = BYTE_BASE,
        min_char_count: int = 1,
        errors: str = "strict",
    ) -> None:
        if not sizes:
            raise SettingsError("no vocabulary sizes given; give some, like --sizes 300,500,1000")
        if not isinstance(d, int) or d < 1:
            raise SettingsError(f"embedding width d={d!r} must be a whole number of at least 1")
        self.sizes = sorted(set(sizes))
        self.texts = dict(texts)
        self.d = d
        if any(not isinstance(window, int) or window < 1 for window in windows):
            raise SettingsError(f"context windows {tuple(windows)!r} must be whole numbers of tokens, at least 1")
        self.windows = tuple(windows)
        self.clock = clock
        minimum = 256 + len(special_tokens)
        if self.sizes[0] < minimum:
            raise SettingsError(
                f"size {self.sizes[0]} is too small: every size must be at least {minimum} "
                f"(256 bytes + {len(special_tokens)} special tokens)"
            )
        self.run = TrainingRun(
            corpus, self.sizes[-1], special_tokens, workers=workers,
            text_field=text_field, skip_bad_records=skip_bad_records, base=base, min_char_count=min_char_count,
            errors=errors,
        )

    def cancel(self) -> None:
        """Stop at the next event; safe from any thread."""
        self.run.cancel()

    def events(self) -> Iterator[StudyEvent]:
        """Train once at the largest size, then measure each size; ends with ``StudyFinished`` unless cancelled."""
        start = self.clock()
        reached: dict[int, float] = {}
        wanted = set(self.sizes)
        model: BPEModel | None = None
        try:
            for event in self.run.events():
                if isinstance(event, MergeMade):
                    vocab = event.new_id + 1
                    if vocab in wanted:
                        reached[vocab] = self.clock() - start
                        yield SizeReached(vocab, reached[vocab])
                elif isinstance(event, PhaseProgress):
                    yield event
                elif isinstance(event, TrainingFinished):
                    model = event.model
        except SettingsError:
            smallest = len(self.run.vocab)  # bytes, special tokens and, by now, the alphabet
            if self.run.base != CHAR_BASE or not self.sizes[-1] < smallest <= MAX_TOKEN_ID:
                raise
            # The alphabet alone outgrows every size: each is named as not reached, as when only some are.
            yield StudyFinished(Study((), tuple(self.sizes), self.d, tuple(self.texts), self.windows, smallest))
            return
        if model is None or self.run.cancelled:
            return
        base = model.vocab_size - len(model.merges)  # the bytes, special tokens and any alphabet: no merge needed
        if base in wanted:
            reached[base] = 0.0
        results = []
        for done, size in enumerate(sorted(reached), start=1):
            result = measure(
                prefix_model(model, size), self.texts, seconds=reached[size], d=self.d, windows=self.windows
            )
            results.append(result)
            yield SizeMeasured(result, done, len(reached))
            if self.run.cancelled:
                return
        unreached = tuple(size for size in self.sizes if size not in reached)
        yield StudyFinished(Study(tuple(results), unreached, self.d, tuple(self.texts), self.windows, base))
