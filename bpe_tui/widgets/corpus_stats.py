"""The corpus pane's facts about the chosen file: size, lines, documents, the script mix, forgotten markers."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from core.analysis.corpus_stats import SCRIPT_SAMPLE_BYTES, CorpusStats
from core.analysis.script_mix import SCRIPTS

from bpe_tui.text import format_bytes, shown_text, unlisted_markers_line

BAR_WIDTH = 10
MARKERS_REMEDY = "add them to the specials field to keep them whole"
"""What the corpus pane suggests about markers that are not special tokens (the CLI names its option)."""


def share_bar(share: float, width: int = BAR_WIDTH) -> str:
    """A share in 0..1 as a bar of eighth blocks, so the mix reads at a glance.

    >>> share_bar(0.5, 4), share_bar(0.0, 4), share_bar(1.0, 4)
    ('██  ', '    ', '████')
    """
    eighths = round(max(0.0, min(1.0, share)) * width * 8)
    full, part = divmod(eighths, 8)
    bar = "█" * full + (" ▏▎▍▌▋▊▉"[part] if part else "")
    return bar.ljust(width)


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def stats_content(stats: CorpusStats) -> Content:
    """The stats as styled lines; no file text is included, so nothing here can be markup."""
    done = "" if stats.complete else f"  (scanning {stats.bytes_read * 100 // max(stats.size, 1)}%)"
    lines = [
        Content.assemble(
            (shown_text(stats.path.name), "bold"),  # a file's name: an ESC in it must not reach the terminal
            f"  {format_bytes(stats.size)} · {_count(stats.lines, 'line')} · "
            f"{_count(stats.documents, 'document')}{done}",
        ),
        Content.styled(f"{'script':<7} {'chars':>6}  {'':<{BAR_WIDTH}} {'bytes':>6}  {'':<{BAR_WIDTH}}", "dim"),
    ]
    mix = stats.mix
    for script in SCRIPTS:
        chars, nbytes = mix.char_share(script), mix.byte_share(script)
        lines.append(
            Content.assemble(
                f"{script:<7} {chars:>6.1%}  ",
                (share_bar(chars), "$readable-accent"),
                f" {nbytes:>6.1%}  ",
                (share_bar(nbytes), "$secondary"),
            )
        )
    notes = []
    if stats.mix_sampled:
        notes.append(f"script mix of the first {format_bytes(SCRIPT_SAMPLE_BYTES)}")
    if stats.other_encoding is not None:
        notes.append(stats.other_encoding)
    elif stats.invalid_utf8_at is not None:
        notes.append(
            f"not valid UTF-8 at byte {stats.invalid_utf8_at:,}: training refuses it unless errors is 'replace'"
        )
    if notes:
        lines.append(Content.styled("; ".join(notes), "$readable-warning"))
    if stats.markers:
        lines.append(markers_notice(stats))
    return Content("\n").join(lines)


def markers_notice(stats: CorpusStats) -> Content:
    """The warning about ``<|name|>`` markers that are not special tokens, with counts (so far, while scanning)."""
    so_far = "" if stats.complete else " so far"
    return Content.styled(f"{unlisted_markers_line(stats.markers)}{so_far}: {MARKERS_REMEDY}", "$readable-warning")


class CorpusStatsView(Static):
    """Shows ``CorpusStats`` (or why there are none)."""

    DEFAULT_CSS = "CorpusStatsView { height: auto; padding: 0 1; }"

    def show_stats(self, stats: CorpusStats) -> None:
        self.update(stats_content(stats))

    def show_message(self, text: str, *, error: bool = False) -> None:
        self.update(Content.styled(text, "$error" if error else "dim"))
