"""bpe-tui's core: exact, fast byte-level BPE training and tokenization in pure Python, with no UI imports."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["train_bpe", "Tokenizer", "TrainingRun", "BPEModel"]

if TYPE_CHECKING:
    from core.model import BPEModel
    from core.tokenizer import Tokenizer
    from core.train import TrainingRun, train_bpe


def __getattr__(name: str) -> Any:
    # Lazy, so importing one core module does not pull in all the others.
    if name in ("train_bpe", "TrainingRun"):
        from core import train

        return getattr(train, name)
    if name == "Tokenizer":
        from core.tokenizer import Tokenizer

        return Tokenizer
    if name == "BPEModel":
        from core.model import BPEModel

        return BPEModel
    raise AttributeError(name)
