"""Shared by the cut tests of training and export: split patterns, and text that is hard to cut."""

from __future__ import annotations

from core.pretokenize.patterns import GPT2_PATTERN

SPECIAL = "<|endoftext|>"

WORDS_WITH_SPACE = r"\S+\s+|\S+|\s+"
"""Each word with the whitespace after it: cut after whitespace, never before it."""
RUNS = r"\S+|\s+"
"""Runs of whitespace and of everything else: cut before whitespace (or after)."""
LETTERS_DIGITS_OTHER = r"\p{L}+|\p{N}+|[^\p{L}\p{N}]+"
"""No rule (``"! "`` is one pre-token, and so is ``" !"``): cut only at special tokens."""
LOOKING_FAR_AHEAD = r"\w+(?=[^\n]*!)|\w|[^\w\n]+|\n+"
"""A word is one pre-token only if a ``!`` follows later on its line: no cut inside a line is safe."""

PATTERNS = [GPT2_PATTERN, WORDS_WITH_SPACE, RUNS, LETTERS_DIGITS_OTHER, LOOKING_FAR_AHEAD]
PATTERN_IDS = ["gpt2", "words-with-space", "runs", "letters-digits-other", "looking-far-ahead"]

PIECES = [
    " ", "  ", "   ", "\t", "\t\t", "\n", "\n\n", "\n\n\n", "\r\n", " \n ", "\t \n", "\x0b", "\x0c",
    "\u3000", "\xa0", "\x85", "\u2028", "a", "ab", "The", "word", "'s", "'ll", "x'", "12", "345", ".", ",",
    "!", "!?", "...", "--", "(", "日本語", "の", "文", "。", "「かぎ」", "é", "🎉", "\u200d",
    SPECIAL, "<|", "|>", "<|endoftext|", "\x00", "\x1b",
]
"""What cuts are made around: whitespace of every kind and length, punctuation, Japanese, special tokens."""

BOUNDARY_TEXT = (
    "word  two   three    \n\n\n  \t\t x\r\n\r\ny z\t\tq \n end!  \n"
    f"{SPECIAL}{SPECIAL} {SPECIAL}\n{SPECIAL}<|endoftext|<|endoftext|>>  {SPECIAL}  x{SPECIAL}y\n\n"
    "日本語\u3000の\u3000文 。 ！ 「かぎ」 かっこ\u3000\u3000\n日本語の文です。次の文、\n\n"
    "punctuation!!! ,,, ... -- (a) [b] {c}  !? ? !\n"
    "nbsp\xa0here\xa0\xa0 nel\x85there line\u2028sep  'll 've 're 's x' it's  12345 678 9\n"
    "emoji 🎉🎉 zwj 👩\u200d👩 tabs\t\t\tend \t \t \n"
)
"""One paragraph of every kind of boundary; repeated to make a corpus."""
