"""The delete-merge lens's view: the text before and after deleting a merge, what changed and what shifted."""

from __future__ import annotations

from textual.content import Content

from bpe_tui.lenses.shown import pair_text, quoted
from bpe_tui.lenses.views.base import LensView, dim, heading, token_row
from core.analysis.lenses.delete_merge import DeletedMerge


class DeleteMergeView(LensView):
    """Before and after in colour with ids; the split tokens and the shifted ids listed; ←/→ picks the merge."""

    def render_result(self, result: DeletedMerge) -> Content:
        token = result.pair[0] + result.pair[1]
        removed = (
            f"id {result.removed_id} removed, later ids one lower" if result.removed_id is not None else "no id removed"
        )
        lines = [
            Content.assemble(heading(f"merge {result.rank:,}"), f" {pair_text(result.pair)} → {quoted(token)}"),
            dim(removed + (f"; {result.dropped_merges} merges built on it dropped" if result.dropped_merges else "")),
            Content(""),
            Content.assemble(heading("before"), dim(f"  {len(result.ids_before)} tokens")),
            token_row(result.ids_before, result.tokens_before, show_ids=True),
            Content.assemble(heading("after"), dim(f"  {len(result.ids_after)} tokens")),
            token_row(result.ids_after, result.tokens_after, show_ids=True),
            Content(""),
        ]
        gone = sorted(result.changed_before)
        shown = ", ".join(quoted(result.tokens_before[i]) for i in gone[:12]) + (" …" if len(gone) > 12 else "")
        lines.append(Content.assemble(("changed: ", "bold"), f"{len(gone)} ", dim(shown)))
        shifted = sorted(result.shifted_after)
        moves = ", ".join(
            f"{quoted(result.tokens_after[i])} {result.ids_after[i] + 1}→{result.ids_after[i]}" for i in shifted[:8]
        ) + (" …" if len(shifted) > 8 else "")
        lines.append(Content.assemble(("shifted: ", "bold"), f"{len(shifted)} ", dim(moves)))
        lines.append(Content.styled("no error was raised: the ids are all valid, just wrong", "$readable-warning"))
        return Content("\n").join(lines)
