"""bpe-tui's core: exact, fast byte-level BPE training and tokenization in pure Python, with no UI imports."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["train_bpe", "Tokenizer", "TrainingRun", "BPEModel"]

if TYPE_CHECKING:
    from core.model import BPEModel
    from core.encode.tokenizer import Tokenizer
    from core.train.run import TrainingRun, train_bpe


def __getattr__(name: str) -> Any:
    # Lazy, so importing one core module does not pull in all the others.
    if name in ("train_bpe", "TrainingRun"):
        from core.train import run

        return getattr(run, name)
    if name == "Tokenizer":
        from core.encode.tokenizer import Tokenizer

        return Tokenizer
    if name == "BPEModel":
        from core.model import BPEModel

        return BPEModel
    raise AttributeError(name)
