"""Shared material for the tokenizer tests: reference encoders and small tokenizers built by hand.

The references are deliberately naive and independent of ``core.encode.piece_merge``: GPT-2's original
"merge every occurrence of the lowest-ranked pair" loop (a different loop from ``core.reference.encode``'s,
which merges the leftmost occurrence only; they agree on merges learnt by training), and tiktoken built
offline from the same files.
"""

from __future__ import annotations

import json
from functools import cache

from core.formats.byte_alphabet import decode_bytes
from core.reference import merge_word
from core.pretokenize.patterns import GPT2_PATTERN, pretokenize
from core.encode.tokenizer import Tokenizer
from tests.data_paths import GPT2_MERGES, GPT2_VOCAB, shared_path

EOT = "<|endoftext|>"

SMALL_MERGES = [
    (b"t", b"h"),
    (b"th", b"e"),
    (b" ", b"th"),
    (b" th", b"e"),
    (b"\xe3", b"\x81"),  # splits hiragana: the first two of its three bytes merge
    (b"\xe3\x81", b"\xae"),  # ... and the whole of "の"
    (b"a", b"a"),
    (b"aa", b"aa"),
    (b"\n", b"\n"),
    (b"l", b"o"),
    (b"lo", b"w"),
    (b" ", b" "),
]
"""A handful of merges for a tokenizer small enough to reason about by hand."""


def byte_vocab() -> dict[int, bytes]:
    return {i: bytes([i]) for i in range(256)}


def tokenizer_from_merges(merges: list[tuple[bytes, bytes]], special_tokens: list[str] | None = None) -> Tokenizer:
    """A tokenizer whose vocab is the 256 bytes plus each merge's result, in merge order."""
    vocab = byte_vocab()
    known = set(vocab.values())
    for left, right in merges:
        if left + right not in known:
            known.add(left + right)
            vocab[len(vocab)] = left + right
    return Tokenizer(vocab, merges, special_tokens)


def small_tokenizer(special_tokens: list[str] | None = None) -> Tokenizer:
    return tokenizer_from_merges(SMALL_MERGES, special_tokens)


def naive_bpe(data: bytes, merges: list[tuple[bytes, bytes]]) -> list[bytes]:
    """GPT-2's original encoder loop: merge all occurrences of the lowest-ranked pair, left to right."""
    ranks: dict[tuple[bytes, bytes], int] = {}
    for rank, pair in enumerate(merges):
        ranks.setdefault(pair, rank)
    parts = [bytes([b]) for b in data]
    while len(parts) > 1:
        present = {(a, b) for a, b in zip(parts, parts[1:]) if (a, b) in ranks}
        if not present:
            break
        parts = list(merge_word(tuple(parts), min(present, key=ranks.__getitem__)))
    return parts


def naive_encode_tokens(text: str, merges: list[tuple[bytes, bytes]], special_tokens: list[str] = ()) -> list[bytes]:
    """Token bytes of ``text``: special tokens whole, everything else pre-tokenised and merged naively."""
    from core.pretokenize.patterns import special_token_pattern

    out: list[bytes] = []
    specials = special_token_pattern(special_tokens)
    start = 0
    matches = list(specials.finditer(text)) if specials else []
    for match in [*matches, None]:
        end = match.start() if match else len(text)
        for piece in pretokenize(text[start:end]):
            out += naive_bpe(piece.encode("utf-8"), merges)
        if match:
            out.append(match.group().encode("utf-8"))
            start = match.end()
    return out


def random_merges(choices: list[tuple[int, int]], alphabet: str) -> list[tuple[bytes, bytes]]:
    """Merges built from index pairs into the growing token list (any rank order, even odd ones)."""
    tokens = sorted({bytes([b]) for b in alphabet.encode("utf-8")})
    merges: list[tuple[bytes, bytes]] = []
    for i, j in choices:
        left, right = tokens[i % len(tokens)], tokens[j % len(tokens)]
        merges.append((left, right))
        if left + right not in tokens:
            tokens.append(left + right)
    return merges


# --- GPT-2 from samples/gpt2, real text from the shared data -------------------------------------


@cache
def gpt2_tokenizer(special: bool = True) -> Tokenizer:
    """GPT-2's tokenizer from the bundled files (cached: building it takes a moment)."""
    return Tokenizer.from_files(GPT2_VOCAB, GPT2_MERGES, [EOT] if special else None)


@cache
def tiktoken_gpt2():  # -> tiktoken.Encoding
    """tiktoken's GPT-2 encoding built offline from the same files (never ``tiktoken.get_encoding``)."""
    import tiktoken

    spelled = json.loads(GPT2_VOCAB.read_text(encoding="utf-8"))
    ranks = {decode_bytes(token): rank for token, rank in spelled.items() if token != EOT}
    return tiktoken.Encoding(
        name="gpt2-offline", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={EOT: spelled[EOT]}
    )


def corpus_slice(name: str, size: int, start: int = 0) -> str:
    """About ``size`` characters of a shared corpus, from ``start``; skips the test when the corpus is missing."""
    with open(shared_path("corpora", name), encoding="utf-8") as handle:
        text = handle.read(start + size)
    return text[start:]
