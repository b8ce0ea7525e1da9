"""The corpus pane's facts about a corpus of shards: how many, their records and bytes, the first few by name."""

from __future__ import annotations

from pathlib import Path

from textual.content import Content

from core.corpus.summary import ShardsSummary

from bpe_tui.text import escape_token, format_bytes

SHARDS_LISTED = 4
"""Shards listed one a line (the pane is short at 80x24); the rest are summed up in one line."""


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def shards_content(summary: ShardsSummary) -> Content:
    """The summary as styled lines; names are escaped and never markup.

    >>> from core.corpus.shards import Corpus, Shard
    >>> from core.corpus.summary import ShardSummary
    >>> shard = Shard("d/a.jsonl.gz", "jsonl", "gz", 2048)
    >>> print(shards_content(ShardsSummary(Corpus("d", (shard,), 1), (ShardSummary(shard, 3, 90),), True)).plain)
    d  1 shard · 3 records · 2.0 KiB on disk · 90 B of text
    a.jsonl.gz           2.0 KiB    3 records
    1 other file in the folder is not a shard
    """
    corpus = summary.corpus
    scanning = "" if summary.complete else f"  (scanning {len(summary.shards)}/{len(corpus.shards)})"
    lines = [
        Content.assemble(
            (escape_token(Path(corpus.spec).name or corpus.spec, glyphs=False), "bold"),
            f"  {_count(len(corpus.shards), 'shard')} · {_count(summary.records, 'record')} · "
            f"{format_bytes(corpus.total_bytes)} on disk · {format_bytes(summary.text_bytes)} of text{scanning}",
        )
    ]
    counted = {shard_summary.shard.path: shard_summary for shard_summary in summary.shards}
    for shard in corpus.shards[:SHARDS_LISTED]:  # the name says the format: one short line each, 41 cells
        seen = counted.get(shard.path)
        records = _count(seen.records, "record") if seen is not None else "…"
        name = escape_token(Path(shard.path).name, glyphs=False)
        name = name if len(name) <= 18 else name[:17] + "…"
        lines.append(Content(f"{name:<18} {format_bytes(shard.size):>9} {records:>12}"))
    more = len(corpus.shards) - SHARDS_LISTED
    if more > 0:
        rest = sum(shard.size for shard in corpus.shards[SHARDS_LISTED:])
        lines.append(Content.styled(f"… and {_count(more, 'more shard')}, {format_bytes(rest)}", "dim"))
    if corpus.ignored:
        verb = "is" if corpus.ignored == 1 else "are"
        lines.append(Content.styled(f"{_count(corpus.ignored, 'other file')} in the folder {verb} not a shard", "dim"))
    if summary.problem is not None:
        lines.append(Content.styled(escape_token(summary.problem, glyphs=False), "$error"))
    return Content("\n").join(lines)
