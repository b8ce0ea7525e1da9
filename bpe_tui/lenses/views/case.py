"""The case lens's view: the four forms of a word, each with its tokens and ids."""

from __future__ import annotations

from textual.content import Content

from bpe_tui.lenses.shown import quoted
from bpe_tui.lenses.views.base import LensView, dim, heading, token_row
from core.analysis.lenses.case import CaseVariants


class CaseView(LensView):
    """`` word``, ``word``, `` Word``, ``Word``: the model sees four unrelated rows of ids."""

    def render_result(self, result: CaseVariants) -> Content:
        width = max(len(quoted(variant.text)) for variant in result.variants)
        forms = "four forms" if result.form_count == 4 else f"{result.form_count} forms"
        note = dim("  (it has no capital letter)") if result.form_count < 4 else ""
        lines = [Content.assemble(heading(f"{result.distinct_ids}"), f" different ids for {forms} of one word", note),
                 Content("")]
        for variant in result.variants:
            lines.append(
                Content.assemble(
                    f"{quoted(variant.text):<{width}} ", dim(f"{variant.count} tok  "),
                    token_row(variant.ids, variant.tokens, show_ids=True),
                )
            )
        return Content("\n").join(lines)
