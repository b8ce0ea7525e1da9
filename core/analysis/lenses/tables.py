"""What several lenses read from a model: token bytes to id, merge pair to rank, and a text's fragments.

Built the way :class:`~core.encode.tokenizer.Tokenizer` builds its own tables (the lowest id for bytes
that occur twice, a repeated merge keeping its first rank, special tokens longest first), so that lenses
which re-derive an encoding step by step land on exactly the ids ``encode`` gives.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.encode.normalizer import Normalizer
from core.encode.tokenizer import replace_surrogates
from core.model import BPEModel
from core.pretokenize.patterns import compile_pattern, special_token_pattern

Pair = tuple[bytes, bytes]


@dataclass(frozen=True)
class Fragment:
    """One piece of a text as the tokenizer cuts it before merging.

    Attributes:
        text: the piece as written (as normalized, for a model with a normalizer).
        special: whether it is a special token (one id, never merged with anything).
    """

    text: str
    special: bool = False

    @property
    def data(self) -> bytes:
        """The piece's UTF-8 bytes: what merges work on."""
        return self.text.encode("utf-8")


@dataclass(frozen=True)
class ModelTables:
    """A model's lookup tables: ``ids`` (token bytes -> lowest id), ``ranks`` (merge pair -> rank).

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"hi"}
    >>> tables = ModelTables.of(BPEModel(vocab, [(b"h", b"i")]))
    >>> tables.ids[b"hi"], tables.ranks[(b"h", b"i")]
    (256, 0)
    """

    model: BPEModel
    ids: dict[bytes, int]
    ranks: dict[Pair, int]

    @classmethod
    def of(cls, model: BPEModel) -> ModelTables:
        ids: dict[bytes, int] = {}
        for token_id in sorted(model.vocab):
            ids.setdefault(model.vocab[token_id], token_id)
        ranks: dict[Pair, int] = {}
        for rank, pair in enumerate(model.merges):
            ranks.setdefault(pair, rank)
        return cls(model, ids, ranks)

    @property
    def special_ids(self) -> frozenset[int]:
        """The ids of the model's special tokens."""
        return frozenset(self.ids[token.encode("utf-8")] for token in self.model.special_tokens
                         if token.encode("utf-8") in self.ids)

    def fragments(self, text: str, *, specials: bool = True) -> list[Fragment]:
        """``text`` cut at special tokens, and each stretch between them (normalized, when the model normalizes) by
        the model's split pattern.

        Merges work inside one fragment at a time, so no token ever spans two of them. With ``specials``
        false, a special token's text is plain text like any other (``encode_ordinary``).

        >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"<|eot|>"}
        >>> tables = ModelTables.of(BPEModel(vocab, [], ["<|eot|>"]))
        >>> [(f.text, f.special) for f in tables.fragments("Hi there<|eot|>!")]
        [('Hi', False), (' there', False), ('<|eot|>', True), ('!', False)]
        >>> [f.text for f in tables.fragments("Hi<|eot|>", specials=False)]
        ['Hi', '<|', 'eot', '|>']
        """
        text = replace_surrogates(text)
        pattern = compile_pattern(self.model.pattern)
        marks = special_token_pattern(self.model.special_tokens) if specials else None
        out: list[Fragment] = []
        start = 0
        stretches: list[tuple[str, bool]] = []
        if marks is not None:
            for match in marks.finditer(text):
                stretches.append((text[start : match.start()], False))
                stretches.append((match.group(), True))
                start = match.end()
        stretches.append((text[start:], False))
        normalize = Normalizer(self.model.normalizer).normalize if self.model.normalizer is not None else None
        for stretch, special in stretches:
            if special:
                out.append(Fragment(stretch, special=True))
            else:  # normalized as encode normalizes it (Qwen2's NFC), or merges would work on other bytes
                out.extend(Fragment(piece) for piece in pattern.findall(normalize(stretch) if normalize else stretch))
        return out
