"""The whole byte-level BPE algorithm, plain and slow: the definition every fast path in ``core`` must equal.

Read this module first. It is the Stanford CS336 assignment 1 algorithm with nothing added for speed, so
each step can be checked by eye; the fast modules do the same work with indexes, heaps and caches, and
tests (``tests/core/test_reference_equality.py``) hold them to these results exactly.

1. Pre-tokenisation (:func:`pretokenize`): the text is cut at special tokens, which are never merged and
   never part of a pre-token; each piece between them is split by a regex (GPT-2's unless another is
   given). Merges never cross a pre-token boundary. Fast path: ``core.pretokenize.fast_split`` and
   ``core.train.reading.count_pretokens``.
2. Training (:func:`train`): ids 0-255 are the bytes, then one id per special token, then one per merge.
   Each step counts every adjacent pair of tokens inside the pre-tokens, weighted by how often the
   pre-token occurs, and merges the most frequent pair everywhere; a tie goes to the lexicographically
   greater pair of byte strings. Fast path: ``core.train.run.TrainingRun`` and ``train_bpe``.
3. Encoding (:func:`encode`): special tokens become their ids; inside each pre-token the adjacent pair
   with the lowest merge rank is merged (the leftmost, if it occurs twice) until no pair has a rank. For
   merges learnt by training this is the same as replaying them in the order they were learnt. Fast path:
   ``core.encode.tokenizer.Tokenizer.encode``.

>>> vocab, merges = train("low low low lower lower newest", 256 + 3)
>>> merges
[(b'o', b'w'), (b'l', b'ow'), (b' ', b'low')]
>>> [vocab[token_id] for token_id in encode("lowest", vocab, merges)]
[b'low', b'e', b's', b't']

4. The character base (``base="chars"``): training starts from characters, not bytes. Ids 0-255 stay the
   bytes and the special tokens follow; then each character of two or more UTF-8 bytes that occurs at
   least ``min_char_count`` times gets an id, in code point order (:func:`char_alphabet`). A rarer
   character has no token and is written as its bytes (byte fallback); in training it cuts its pre-token,
   so its bytes are never merged (:func:`count_char_words`). Merges, their order and ties are as above.
   Encoding starts each pre-token from its characters, a character without a token as its bytes
   (:func:`initial_tokens`). Fast path: ``core.char_base`` and the same ``TrainingRun`` and ``Tokenizer``.
5. Pruning (``min_count``): once the whole corpus is counted, a pre-token that occurs fewer than
   ``min_count`` times is dropped (:func:`prune`), as if it had never been in the text; everything after
   counting, the character base's alphabet included, sees only the pre-tokens kept. The default, 1,
   keeps every pre-token. Fast path: ``TrainingRun(..., min_count=C)``, after the counts of every worker,
   shard or Dask job are added up.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Container, Iterator, Sequence

import regex

from core.pretokenize.patterns import GPT2_PATTERN

Word = tuple[bytes, ...]
"""A pre-token as its current tokens, each the bytes it stands for; at first one byte each."""
Pair = tuple[bytes, bytes]


def split_on_special_tokens(text: str, special_tokens: Sequence[str]) -> list[str]:
    """``text`` cut at special tokens: plain text at even positions, the special tokens at odd ones.

    Where one special token contains another, the longer one is the token in the text.

    >>> split_on_special_tokens("low<|endoftext|>lower", ["<|endoftext|>"])
    ['low', '<|endoftext|>', 'lower']
    """
    if not special_tokens:
        return [text]
    longest_first = sorted(set(special_tokens), key=len, reverse=True)
    return re.split("(" + "|".join(map(re.escape, longest_first)) + ")", text)


def pretokenize(text: str, special_tokens: Sequence[str] = (), pattern: str = GPT2_PATTERN) -> list[str]:
    """The pre-tokens of ``text``: each match of ``pattern`` in the text between special tokens.

    >>> pretokenize("low low low lower lower newest")
    ['low', ' low', ' low', ' lower', ' lower', ' newest']
    >>> pretokenize("low<|endoftext|> low", ["<|endoftext|>"], pattern=r"\\S+|\\s+")
    ['low', ' ', 'low']
    """
    pieces = split_on_special_tokens(text, special_tokens)[::2]
    return [match.group() for piece in pieces for match in regex.finditer(pattern, piece)]


def count_pretokens(text: str, special_tokens: Sequence[str] = (), pattern: str = GPT2_PATTERN) -> Counter[str]:
    """How often each pre-token occurs in ``text``.

    >>> count_pretokens("low low low lower lower newest")
    Counter({' low': 2, ' lower': 2, 'low': 1, ' newest': 1})
    """
    return Counter(pretokenize(text, special_tokens, pattern))


def prune(pretokens: Counter[str], min_count: int) -> Counter[str]:
    """The pre-tokens that occur at least ``min_count`` times, with their counts (step 5).

    >>> prune(count_pretokens("ab ab ab cd"), 2)
    Counter({' ab': 2})
    """
    return Counter({pretoken: n for pretoken, n in pretokens.items() if n >= min_count})


def byte_words(pretokens: Counter[str]) -> Counter[Word]:
    """Counted pre-tokens split into single bytes.

    >>> byte_words(Counter({"ab": 3}))
    Counter({(b'a', b'b'): 3})
    """
    words: Counter[Word] = Counter()
    for pretoken, n in pretokens.items():
        words[tuple(bytes([b]) for b in pretoken.encode("utf-8"))] += n
    return words


def count_words(text: str, special_tokens: Sequence[str] = (), pattern: str = GPT2_PATTERN) -> Counter[Word]:
    """The unique pre-tokens of ``text`` split into single bytes, with how often each occurs.

    >>> count_words("low low")
    Counter({(b'l', b'o', b'w'): 1, (b' ', b'l', b'o', b'w'): 1})
    """
    return byte_words(count_pretokens(text, special_tokens, pattern))


def char_counts(pretokens: Counter[str]) -> Counter[str]:
    """How often each character occurs in counted pre-tokens.

    >>> char_counts(Counter({"ab": 2, "b": 1}))
    Counter({'b': 3, 'a': 2})
    """
    counts: Counter[str] = Counter()
    for pretoken, n in pretokens.items():
        for char in pretoken:
            counts[char] += n
    return counts


def alphabet_of(pretokens: Counter[str], min_char_count: int = 1) -> list[str]:
    """:func:`char_alphabet` of counted pre-tokens."""
    counts = char_counts(pretokens)
    return sorted(c for c, n in counts.items() if n >= min_char_count and len(c.encode("utf-8")) > 1)


def char_words(pretokens: Counter[str], min_char_count: int = 1) -> Counter[Word]:
    """:func:`count_char_words` of counted pre-tokens."""
    counts = char_counts(pretokens)
    words: Counter[Word] = Counter()
    for pretoken, n in pretokens.items():
        run: list[bytes] = []
        for char in pretoken:
            if counts[char] >= min_char_count:
                run.append(char.encode("utf-8"))
            else:  # a rare character: the run so far is one word, and the character is in none
                if run:
                    words[tuple(run)] += n
                run = []
        if run:
            words[tuple(run)] += n
    return words


def char_alphabet(text: str, special_tokens: Sequence[str] = (), pattern: str = GPT2_PATTERN, min_char_count: int = 1) -> list[str]:
    """The characters of ``text`` (outside special tokens) that get a token of their own in a character-base
    vocab: two or more UTF-8 bytes, at least ``min_char_count`` occurrences, in code point order.

    >>> char_alphabet("aあいあé", min_char_count=2)
    ['あ']
    """
    return alphabet_of(count_pretokens(text, special_tokens, pattern), min_char_count)


def count_char_words(
    text: str, special_tokens: Sequence[str] = (), pattern: str = GPT2_PATTERN, min_char_count: int = 1
) -> Counter[Word]:
    """The unique pre-tokens of ``text`` split into characters, with how often each occurs; a character
    seen fewer than ``min_char_count`` times cuts its pre-token in two and is left out.

    >>> count_char_words("ab ab", min_char_count=1)
    Counter({(b'a', b'b'): 1, (b' ', b'a', b'b'): 1})
    >>> count_char_words("aéa aa", min_char_count=2)  # é and the space occur once
    Counter({(b'a',): 2, (b'a', b'a'): 1})
    """
    return char_words(count_pretokens(text, special_tokens, pattern), min_char_count)


def count_pairs(words: Counter[Word]) -> Counter[Pair]:
    """Every adjacent pair of tokens in every pre-token, weighted by the pre-token's frequency.

    >>> count_pairs(Counter({(b"a", b"b", b"a", b"b"): 2}))
    Counter({(b'a', b'b'): 4, (b'b', b'a'): 2})
    """
    pairs: Counter[Pair] = Counter()
    for word, n in words.items():
        for pair in zip(word, word[1:]):
            pairs[pair] += n
    return pairs


def ranked_pairs(pairs: Counter[Pair]) -> list[tuple[bytes, bytes, int]]:
    """All pairs as ``(left, right, count)``, in the order training prefers them: the first is merged next.

    Higher counts first; among equal counts the greater ``(left, right)`` (compared as bytes) comes first.
    This is the CS336 tie rule: deterministic, unlike picking by dict order.

    >>> ranked_pairs(Counter({(b"l", b"o"): 5, (b"o", b"w"): 5, (b" ", b"l"): 4}))
    [(b'o', b'w', 5), (b'l', b'o', 5), (b' ', b'l', 4)]
    """
    ordered = sorted(pairs.items(), key=lambda item: (item[1], item[0]), reverse=True)
    return [(left, right, count) for (left, right), count in ordered]


def merge_word(word: Word, pair: Pair) -> Word:
    """``word`` with each occurrence of ``pair`` made one token, scanning left to right.

    >>> merge_word((b"a", b"a", b"a"), (b"a", b"a"))
    (b'aa', b'a')
    """
    merged: list[bytes] = []
    i = 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            merged.append(word[i] + word[i + 1])
            i += 2
        else:
            merged.append(word[i])
            i += 1
    return tuple(merged)


def merge_words(words: Counter[Word], pair: Pair) -> Counter[Word]:
    """Every pre-token with ``pair`` merged (see :func:`merge_word`), frequencies kept.

    >>> merge_words(Counter({(b"l", b"o", b"w"): 3}), (b"o", b"w"))
    Counter({(b'l', b'ow'): 3})
    """
    merged: Counter[Word] = Counter()
    for word, n in words.items():
        merged[merge_word(word, pair)] += n
    return merged


def learn_merges(words: Counter[Word], max_merges: int, min_frequency: int = 0) -> Iterator[tuple[bytes, bytes, int]]:
    """Each merge training makes on ``words``, as ``(left, right, count)``, recounting every pair each time.

    Stops after ``max_merges``, when no pair is left, or when the best pair occurs fewer than
    ``min_frequency`` times.

    >>> list(learn_merges(count_words("low low low lower lower newest"), 5))
    [(b'o', b'w', 5), (b'l', b'ow', 5), (b' ', b'low', 4), (b'e', b'r', 2), (b' low', b'er', 2)]
    """
    for _ in range(max_merges):
        pairs = count_pairs(words)
        if not pairs:
            return
        left, right, count = ranked_pairs(pairs)[0]
        if count < min_frequency:
            return
        yield left, right, count
        words = merge_words(words, (left, right))


def train(
    text: str,
    vocab_size: int,
    special_tokens: Sequence[str] = (),
    *,
    pattern: str = GPT2_PATTERN,
    min_frequency: int = 0,
    base: str = "bytes",
    min_char_count: int = 1,
    min_count: int = 1,
) -> tuple[dict[int, bytes], list[Pair]]:
    """Train on ``text`` until the vocabulary has ``vocab_size`` tokens or training stops early.

    Returns CS336's ``(vocab, merges)``: id -> token bytes, and the merges in the order they were made.
    With ``base="chars"`` the alphabet's characters follow the special tokens (see the module's step 4);
    when they alone reach ``vocab_size`` no merge is made. With ``min_count`` above 1, pre-tokens rarer
    than that are dropped first (step 5): here ``ab`` and `` cd`` occur once, so only `` ab`` is merged.

    >>> train("ab ab ab cd", 256 + 4, min_count=2)[1]
    [(b'a', b'b'), (b' ', b'ab')]

    >>> vocab, merges = train("low low low lower lower newest", 256 + 1 + 5, ["<|endoftext|>"])
    >>> vocab[256], vocab[257], vocab[261]
    (b'<|endoftext|>', b'ow', b' lower')
    >>> vocab, merges = train("あいあい あい", 256 + 2 + 2, base="chars")
    >>> vocab[256].decode(), vocab[257].decode(), [(a.decode(), b.decode()) for a, b in merges]
    ('あ', 'い', [('あ', 'い'), ('あい', 'あい')])
    """
    vocab = {i: bytes([i]) for i in range(256)}
    for token in special_tokens:
        vocab[len(vocab)] = token.encode("utf-8")
    pretokens = prune(count_pretokens(text, special_tokens, pattern), min_count)
    if base == "chars":
        for char in alphabet_of(pretokens, min_char_count):
            vocab[len(vocab)] = char.encode("utf-8")
        words = char_words(pretokens, min_char_count)
    else:
        words = byte_words(pretokens)
    merges: list[Pair] = []
    for left, right, _count in learn_merges(words, vocab_size - len(vocab), min_frequency):
        vocab[len(vocab)] = left + right
        merges.append((left, right))
    return vocab, merges


def initial_tokens(pretoken: str, tokens: Container[bytes], base: str = "bytes") -> list[bytes]:
    """Where encoding a pre-token starts: its bytes, or with ``base="chars"`` its characters, each character
    that is not one of ``tokens`` as its bytes.

    >>> initial_tokens("aé", {b"a"}), initial_tokens("aé", {b"a", "é".encode()}, "chars")
    ([b'a', b'\\xc3', b'\\xa9'], [b'a', b'\\xc3\\xa9'])
    """
    out: list[bytes] = []
    for char in pretoken:
        data = char.encode("utf-8")
        if base == "chars" and data in tokens:
            out.append(data)
        else:
            out += [bytes([b]) for b in data]
    return out


def encode_pretoken(data: bytes | list[bytes], ranks: dict[Pair, int]) -> list[bytes]:
    """The tokens of one pre-token: merge the adjacent pair of lowest rank, leftmost first, while one has a rank.

    ``data`` is the pre-token's bytes, or the tokens to start from (see :func:`initial_tokens`).

    >>> encode_pretoken(b"lower", {(b"o", b"w"): 0, (b"l", b"ow"): 1, (b"e", b"r"): 2})
    [b'low', b'er']
    """
    tokens = [bytes([b]) for b in data] if isinstance(data, bytes) else list(data)
    while True:
        ranked = [(ranks[pair], i) for i, pair in enumerate(zip(tokens, tokens[1:])) if pair in ranks]
        if not ranked:
            return tokens
        _rank, i = min(ranked)
        tokens[i : i + 2] = [tokens[i] + tokens[i + 1]]


def encode(
    text: str,
    vocab: dict[int, bytes],
    merges: list[Pair],
    special_tokens: Sequence[str] = (),
    *,
    pattern: str = GPT2_PATTERN,
    base: str = "bytes",
) -> list[int]:
    """The token ids of ``text``; a special token is one id (appended after the largest id if ``vocab`` lacks it).

    Where two ids have the same bytes the lower one is used, and a merge listed twice keeps its first rank.
    ``base="chars"`` starts each pre-token from its characters (:func:`initial_tokens`).

    >>> vocab, merges = train("low low low lower lower newest", 256 + 5)
    >>> encode("lower newer", vocab, merges)
    [257, 259, 32, 110, 101, 119, 259]
    """
    ids: dict[bytes, int] = {}
    for token_id in sorted(vocab, reverse=True):
        ids[vocab[token_id]] = token_id
    for token in special_tokens:
        ids.setdefault(token.encode("utf-8"), max([*vocab, *ids.values()]) + 1)
    ranks: dict[Pair, int] = {}
    for rank, pair in enumerate(merges):
        ranks.setdefault(pair, rank)
    out: list[int] = []
    for i, piece in enumerate(split_on_special_tokens(text, special_tokens)):
        if i % 2:
            out.append(ids[piece.encode("utf-8")])
            continue
        for pretoken in pretokenize(piece, (), pattern):
            out += [ids[token] for token in encode_pretoken(initial_tokens(pretoken, ids, base), ranks)]
    return out


def decode(ids: Sequence[int], vocab: dict[int, bytes]) -> str:
    """The text of ``ids``; bytes that are not valid UTF-8 become U+FFFD.

    >>> decode([104, 105, 0xE3], {i: bytes([i]) for i in range(256)})
    'hi\\ufffd'
    """
    return b"".join(vocab[token_id] for token_id in ids).decode("utf-8", errors="replace")
