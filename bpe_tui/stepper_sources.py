"""What the merge stepper steps through: its sources, how far a live run goes, the part of a chosen corpus
it trains on, and the sentence it segments at each step. No Textual here; the screen is
:mod:`bpe_tui.screens.stepper`."""

from __future__ import annotations

from pathlib import Path

from rich.cells import cell_len

SOURCES = ("toy", "english", "japanese", "corpus", "tokenizer")
"""Where steps come from: live training on a sample (``toy``...) or on the corpus chosen in the corpus pane,
or the active tokenizer's merges."""

TEXT_NAMES = ("toy", "english", "japanese", "mixed")
LIVE_MERGES = {"toy": 50, "english": 500, "japanese": 500, "corpus": 500}
"""How far each live run goes: the toy corpus runs out of pairs long before 50. Stepping back retrains the
run from the start, so live runs stay short enough for that to be quick; the corpus pane trains for real."""

CORPUS_BYTES = 256 * 1024
"""How much of the chosen corpus a live run steps through (its first part, cut at a line end)."""


def corpus_head(path: Path, limit: int = CORPUS_BYTES) -> str:
    """The first ``limit`` bytes of ``path`` as text, cut after the last whole line.

    Raises:
        OSError: the file cannot be read.
        UnicodeDecodeError: it is not UTF-8.
    """
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        data = data[: data.rfind(b"\n", 0, limit) + 1] or data[:limit]
    return data.decode("utf-8")


def end_reason(source: str, total: int) -> str:
    """Why a live run has no step after ``total``.

    >>> end_reason("english", 500)
    'stops here: live runs end at 500 merges, so stepping back (a retrain) stays quick; train in the corpus pane (1) for more'
    >>> end_reason("toy", 11)
    'stops here: no pair is left to merge (every pre-token is one token)'
    """
    if total >= LIVE_MERGES[source]:
        return (
            f"stops here: live runs end at {LIVE_MERGES[source]} merges, so stepping back (a retrain) stays quick; "
            "train in the corpus pane (1) for more"
        )
    return "stops here: no pair is left to merge (every pre-token is one token)"
PLAY_SECONDS = 0.4
SENTENCE_CHARS = 320


def sample_sentence(text: str, limit: int = SENTENCE_CHARS) -> str:
    """The first sentences of real prose in a sample (skipping titles), at most ``limit`` terminal cells.

    >>> sample_sentence("A Title\\n\\nFirst sentence of the prose here. Second one follows it. Third.", 60)
    'First sentence of the prose here. Second one follows it.'
    >>> sample_sentence("雨\\n\\nその町の図書館は、駅から歩いて十五分ほどの坂の上にあった。古い木造の", 60)
    'その町の図書館は、駅から歩いて十五分ほどの坂の上にあった。'
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    prose = next((line for line in lines if len(line) >= 30), max(lines, key=len, default=""))
    width = 0
    for index, char in enumerate(prose):
        width += cell_len(char)
        if width > limit:
            cut = prose[:index]
            break
    else:
        return prose
    ends = [cut.rfind(mark) + len(mark.rstrip()) for mark in (". ", "。", "! ", "? ") if mark in cut]
    if ends and max(ends) >= len(cut) // 2:
        return cut[: max(ends)]
    space = cut.rfind(" ")
    return cut[:space] if space > len(cut) // 2 else cut
