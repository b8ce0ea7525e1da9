"""The view every lens draws its result in: a scrolling area the Lenses pane fills with ``show_result``.

A lens's own view subclasses :class:`LensView` and overrides :meth:`LensView.render_result` to colour its
tokens (see :mod:`bpe_tui.render`); the base draws the lens's CLI text, so a result is never left unshown.
Everything is built from spans, never markup: token text comes from arbitrary files.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from bpe_tui.lenses.spec import LensSpec
from bpe_tui.render import tokens_content


@dataclass(frozen=True)
class ShownToken:
    """A token to draw with :func:`bpe_tui.render.tokens_content`: its id, bytes and whether it is special."""

    id: int
    token: bytes
    is_special: bool = False


def token_row(ids: Iterable[int], tokens: Iterable[bytes], *, show_ids: bool = False,
              specials: frozenset[int] = frozenset()) -> Content:
    """Tokens side by side, each on its own background (neighbours differ), ids in subscript if asked."""
    shown = [ShownToken(token_id, token, token_id in specials) for token_id, token in zip(ids, tokens)]
    return tokens_content(shown, show_ids=show_ids)


def padded(text: str, width: int) -> str:
    """``text`` and spaces up to ``width`` cells, for a column: a kanji takes two cells, a combining mark none.

    >>> padded("日本", 6) + "|", padded("ab", 6) + "|"
    ('日本  |', 'ab    |')
    """
    return text + " " * (width - cell_len(text))


def heading(text: str) -> Content:
    return Content.styled(text, "bold $readable-accent")


def dim(text: str) -> Content:
    return Content.styled(text, "dim")


class LensView(VerticalScroll, can_focus=False):
    """Shows one lens's latest result, or why there is none."""

    DEFAULT_CSS = """
    LensView {
        height: 1fr;
        padding: 0 1;
        & > #lens-body { width: 100%; }
    }
    """

    def __init__(self, spec: LensSpec, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.spec = spec

    def compose(self) -> ComposeResult:
        yield Static(dim("computing…"), id="lens-body")

    def show_result(self, result: Any) -> None:
        """Draw ``result`` (what the lens's ``compute`` returned)."""
        self.query_one("#lens-body", Static).update(self.render_result(result))

    def show_problem(self, text: str) -> None:
        """Say why there is no result (no tokenizer, bad input), in the error colour."""
        self.query_one("#lens-body", Static).update(Content.styled(text, "$text-error"))

    def show_waiting(self, text: str) -> None:
        self.query_one("#lens-body", Static).update(dim(text))

    def render_result(self, result: Any) -> Content:
        """The picture of ``result``; by default the lens's CLI text, plain."""
        return Content(self.spec.render_text(result))
