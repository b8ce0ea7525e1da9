"""The spelling lens's view: each word's letters above the tokens the model gets instead."""

from __future__ import annotations

from textual.content import Content

from bpe_tui.lenses.shown import shown_word
from bpe_tui.lenses.views.base import LensView, dim, heading, token_row
from bpe_tui.text import counted
from core.analysis.lenses.spelling import Spelling


class SpellingView(LensView):
    """Per word: its characters one by one, then its tokens with ids; space toggles the leading space."""

    def render_result(self, result: Spelling) -> Content:
        where = "after a space, as in a sentence" if result.leading_space else "on its own"
        lines = [Content.assemble(heading("letters"), " against ", heading("tokens"), dim(f"  (each word {where})"))]
        for row in result.words:
            lines += [
                Content(""),
                Content.assemble((shown_word(row.word), "bold"), dim(f"  {counted(len(row.chars), 'letter')} → {counted(row.encoded.count, 'token')}")),
                Content.assemble(dim("  "), " ".join(shown_word(char) for char in row.chars)),
                Content.assemble(dim("  "), token_row(row.encoded.ids, row.encoded.tokens, show_ids=True)),
            ]
        return Content("\n").join(lines)
