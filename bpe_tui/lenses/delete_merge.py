"""The delete-merge lens: remove merge k and re-encode a text (see :mod:`core.analysis.lenses.delete_merge`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bpe_tui.lenses.shown import ids_line, pair_text, quoted, tokens_line
from bpe_tui.lenses.spec import LensContext, LensOption, LensSpec
from core.analysis.lenses.delete_merge import DeletedMerge, delete_merge, earliest_merge_in
from core.errors import SettingsError

DEFAULT_TEXT = "The cat sat on the mat, and then the dog sat on the cat."


def compute(context: LensContext, options: Mapping[str, Any]) -> DeletedMerge:
    if not context.model.merges:
        raise SettingsError("this tokenizer has no merges to delete; train or load one with merges")
    return delete_merge(context.tokenizer, options["rank"], options["text"])


def render_text(result: DeletedMerge) -> str:
    token = result.pair[0] + result.pair[1]
    if result.removed_id is None:
        made = f"{quoted(token)} (another merge still makes it: no id moves)"
    else:
        made = f"{quoted(token)}, id {result.removed_id}; every larger id is now one lower"
    lines = [f"merge {result.rank} deleted: {pair_text(result.pair)} -> {made}"]
    if result.dropped_merges:
        lines.append(f"{result.dropped_merges} later merges used that token and can never apply: dropped too")
    lines += [
        f"before: {len(result.ids_before)} tokens {ids_line(result.ids_before)}",
        f"        {tokens_line(result.tokens_before)}",
        f"after:  {len(result.ids_after)} tokens {ids_line(result.ids_after)}",
        f"        {tokens_line(result.tokens_after)}",
        f"tokens changed: {result.changed_tokens}; ids shifted down by one: {len(result.shifted_after)}; "
        "no error was raised",
    ]
    return "\n".join(lines)


def _view() -> type:
    from bpe_tui.lenses.views.delete_merge import DeleteMergeView

    return DeleteMergeView


def _default_rank(context: LensContext | None, given: Mapping[str, Any]) -> int:
    """The earliest merge the text uses (the given text, else the default one)."""
    if context is None or not context.model.merges:
        return 0
    text = given.get("text")
    ids = context.tokenizer.encode_ordinary(text if isinstance(text, str) else DEFAULT_TEXT)
    rank = earliest_merge_in(context.model, context.tokenizer.decode_tokens_bytes(ids))
    return 0 if rank is None else rank


def _last_rank(context: LensContext | None) -> int:
    return max(0, len(context.model.merges) - 1) if context is not None else 0


LENS = LensSpec(
    name="delete-merge",
    title="Delete a merge",
    description="Remove merge k and re-encode: ids shift, nothing complains",
    options=(
        LensOption("rank", "merge rank", "int", default=_default_rank, minimum=0, maximum=_last_rank,
                   help="the merge to delete (default: the earliest one the text uses)", default_reads=("text",)),
        LensOption("text", "text", "text", default=DEFAULT_TEXT, help="the text to re-encode"),
    ),
    compute=compute,
    render_text=render_text,
    view=_view,
)
