"""The embedding lens: the embedding table V·d against the blocks' 12·L·d² (see :mod:`core.analysis.lenses.embedding`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bpe_tui.lenses.spec import LensContext, LensOption, LensSpec
from core.analysis.lenses.embedding import EmbeddingShare, EmbeddingShares, embedding_shares


def compute(context: LensContext, options: Mapping[str, Any]) -> EmbeddingShares:
    return embedding_shares(options["vocab"], options["d"], options["layers"])


def shape_line(share: EmbeddingShare) -> str:
    """``V·d`` and ``12·L·d²`` with the embedding's share, on one line."""
    return (
        f"embedding {share.vocab:,}·{share.d} = {share.embedding:,}   "
        f"blocks 12·{share.layers}·{share.d}² = {share.blocks:,}   share {share.share:.1%}"
    )


def render_text(result: EmbeddingShares) -> str:
    chosen = result.chosen
    lines = [f"vocabulary {chosen.vocab:,}, width d {chosen.d}, {chosen.layers} layers", shape_line(chosen), ""]
    lines.append(f"GPT-2's sizes with a vocabulary of {chosen.vocab:,}:")
    for name, share in result.gpt2:
        lines.append(f"  {name:<7} d {share.d:>5}  L {share.layers:>3}  embedding share {share.share:6.1%}")
    return "\n".join(lines)


def _view() -> type:
    from bpe_tui.lenses.views.embedding import EmbeddingView

    return EmbeddingView


def _active_vocab(context: LensContext | None) -> int:
    return len(context.model.vocab) if context is not None else 50257


LENS = LensSpec(
    name="embedding",
    title="Embedding share",
    description="The embedding table V·d against the blocks' 12·L·d², and GPT-2's four sizes",
    options=(
        LensOption("vocab", "vocabulary V", "int", default=_active_vocab, minimum=256, maximum=1_000_000, step=1000,
                   help="vocabulary size (default: the tokenizer's)"),
        LensOption("d", "width d", "int", default=768, minimum=64, maximum=16384, step=64, help="model width"),
        LensOption("layers", "layers L", "int", default=12, minimum=1, maximum=200, help="transformer blocks"),
    ),
    compute=compute,
    render_text=render_text,
    view=_view,
)
