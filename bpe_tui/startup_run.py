"""The run the app starts with: a quick training on the English and Japanese samples, so that every pane
has a tokenizer to show at once."""

from __future__ import annotations

from collections.abc import Mapping

from bpe_tui.session import Session
from bpe_tui.training_spec import TrainingSpec
from bpe_tui.widgets.training_form import default_settings


def startup_text(samples: Mapping[str, str]) -> str:
    """What the start-up run trains on: the English and the Japanese sample, one after the other.

    >>> startup_text({"english": "a", "japanese": "b", "mixed": "c"})
    'a\\nb'
    """
    return "\n".join(samples.get(name, "") for name in ("english", "japanese"))


def startup_spec(session: Session) -> TrainingSpec | None:
    """The start-up run over ``session``'s samples (``None`` without them).

    Its settings are the corpus form's defaults, ``<|endoftext|>`` among them: the samples separate
    documents with it, and the first tokenizer a user sees must not merge across it.
    """
    texts = session.sample_texts()
    if not texts.get("english") and not texts.get("japanese"):
        return None
    return default_settings().spec(
        text=startup_text(texts), label="samples (english + japanese)", measure_texts=session.measure_texts()
    )
