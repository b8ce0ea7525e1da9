"""The embedding lens: how much of a transformer's weights the token embedding table takes, by vocabulary size.

A bigger vocabulary shortens every text but costs ``V·d`` embedding weights, while the blocks cost about
``12·L·d²`` (attention's four ``d×d`` matrices plus an MLP of ``4d``, ignoring biases and norms). At
GPT-2's smallest size the embedding is almost a third of the model; at its largest, a twentieth: the
same vocabulary is cheap or dear depending on the model around it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.errors import SettingsError

BLOCK_WEIGHTS_PER_D2 = 12
"""Weights per layer in units of ``d²``: 4 for attention's Q, K, V and output, 8 for the MLP's two ``d×4d``."""

GPT2_VOCAB = 50257
"""GPT-2's vocabulary: 256 bytes + 50,000 merges + ``<|endoftext|>``."""

GPT2_SIZES: tuple[tuple[str, int, int], ...] = (
    ("small", 768, 12),
    ("medium", 1024, 24),
    ("large", 1280, 36),
    ("xl", 1600, 48),
)
"""The four GPT-2 models as ``(name, d, layers)``."""


@dataclass(frozen=True, slots=True)
class EmbeddingShare:
    """The embedding table against the transformer blocks for one model shape.

    Attributes:
        vocab: vocabulary size ``V``.
        d: model width.
        layers: number of blocks ``L``.
    """

    vocab: int
    d: int
    layers: int

    @property
    def embedding(self) -> int:
        """Weights in the embedding table, ``V·d``."""
        return self.vocab * self.d

    @property
    def blocks(self) -> int:
        """Weights in the blocks, ``12·L·d²``."""
        return BLOCK_WEIGHTS_PER_D2 * self.layers * self.d * self.d

    @property
    def share(self) -> float:
        """The embedding's fraction of embedding plus blocks (0.0 when both are empty)."""
        total = self.embedding + self.blocks
        return self.embedding / total if total else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "vocab": self.vocab,
            "d": self.d,
            "layers": self.layers,
            "embedding": self.embedding,
            "blocks": self.blocks,
            "share": self.share,
        }


def embedding_share(vocab: int, d: int, layers: int) -> EmbeddingShare:
    """The embedding's share of a model with vocabulary ``vocab``, width ``d`` and ``layers`` blocks.

    Raises:
        SettingsError: a size is not a whole number, or is negative (``vocab`` and ``d`` must be at least 1).

    >>> small = embedding_share(50257, 768, 12)
    >>> small.embedding, small.blocks, f"{small.share:.1%}"
    (38597376, 84934656, '31.2%')
    >>> [f"{embedding_share(GPT2_VOCAB, d, n).share:.1%}" for _, d, n in GPT2_SIZES]
    ['31.2%', '14.6%', '8.3%', '5.2%']
    """
    for name, value, least in (("vocab", vocab, 1), ("d", d, 1), ("layers", layers, 0)):
        if type(value) is not int or value < least:
            raise SettingsError(f"{name} must be a whole number of at least {least}, got {value!r:.40}")
    return EmbeddingShare(vocab=vocab, d=d, layers=layers)


@dataclass(frozen=True, slots=True)
class EmbeddingShares:
    """One model shape's embedding share beside GPT-2's four shapes at the same vocabulary.

    Attributes:
        chosen: the shape asked about.
        gpt2: ``(name, share)`` for each of :data:`GPT2_SIZES`, with the chosen vocabulary.
    """

    chosen: EmbeddingShare
    gpt2: tuple[tuple[str, EmbeddingShare], ...]

    def to_json(self) -> dict[str, Any]:
        return self.chosen.to_json() | {"gpt2": [{"name": name} | share.to_json() for name, share in self.gpt2]}


def embedding_shares(vocab: int, d: int, layers: int) -> EmbeddingShares:
    """:func:`embedding_share` for the shape asked about and for GPT-2's four shapes, all at ``vocab``.

    >>> result = embedding_shares(100_000, 768, 12)
    >>> f"{result.chosen.share:.1%}", [(name, f"{s.share:.1%}") for name, s in result.gpt2][:2]
    ('47.5%', [('small', '47.5%'), ('medium', '25.3%')])
    """
    chosen = embedding_share(vocab, d, layers)
    return EmbeddingShares(
        chosen=chosen, gpt2=tuple((name, embedding_share(vocab, size, n)) for name, size, n in GPT2_SIZES)
    )

