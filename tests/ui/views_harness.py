"""A tiny app that shows one of the boundaries/inspector/compare screens over a given Session, for tests.

The real app trains at start-up and owns many panes; these tests need one screen, a session with
known tokenizers, a pinned theme and no blinking cursor, so the pictures and states are deterministic.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from textual.screen import Screen
from textual.widgets import Input, TextArea

from bpe_tui.session import LoadedTokenizer, Session
from bpe_tui.theme_marks import ReadableMarks
from core.model import BPEModel
from core.train.run import TrainingRun
from tests.ui.app_harness import SAMPLES, THEME


@cache
def trained(names: tuple[str, ...], vocab_size: int) -> BPEModel:
    """A tokenizer trained on the named samples (cached: several tests share each one)."""
    text = "\n".join((SAMPLES / f"{name}.txt").read_text(encoding="utf-8") for name in names)
    run = TrainingRun.from_text(text, vocab_size, ["<|endoftext|>"], workers=1)
    for _ in run.events():
        pass
    return run.result()


def english_500() -> LoadedTokenizer:
    return LoadedTokenizer.from_model(trained(("english",), 500), name="en-500")


def bilingual_800() -> LoadedTokenizer:
    return LoadedTokenizer.from_model(trained(("english", "japanese"), 800), name="en+ja-800")


def japanese_600() -> LoadedTokenizer:
    return LoadedTokenizer.from_model(trained(("japanese",), 600), name="ja-600")


def session_with(*tokenizers: LoadedTokenizer, active: int | None = None) -> Session:
    """A session over the bundled samples holding ``tokenizers`` (the last one active unless told)."""
    session = Session(samples_dir=SAMPLES)
    for loaded in tokenizers:
        session.add_tokenizer(loaded)
    if active is not None:
        session.set_active(active)
    return session


class ViewsApp(ReadableMarks):
    """Pushes one screen built over ``session`` (the screen class, or any callable taking the session)."""

    def __init__(self, screen: Callable[[Session], Screen], session: Session) -> None:
        super().__init__()
        self.session = session
        self._make_screen = screen

    async def on_mount(self) -> None:
        self.theme = THEME
        await self.push_screen(self._make_screen(self.session))
        for field in [*self.screen.query(Input), *self.screen.query(TextArea)]:
            field.cursor_blink = False

