"""Error types the core raises for bad input; each message is one line that names the problem and the fix."""

from __future__ import annotations


class BPEError(ValueError):
    """Base class: a problem with the user's input, reported as one line (never a traceback)."""


class CorpusError(BPEError):
    """A corpus file is missing, unreadable, binary, or not valid UTF-8."""


class SettingsError(BPEError):
    """Training or encoding settings that cannot work (vocab size too small, bad special tokens...)."""


class TokenizerFileError(BPEError):
    """A tokenizer file is corrupt, truncated, of the wrong type, or inconsistent."""


class TextNotTokenizerError(TokenizerFileError):
    """A file given as a tokenizer is plain text in no tokenizer format: most likely a corpus.

    Attributes:
        path: the file, so the app can offer to use it as the corpus instead.
    """

    def __init__(self, message: str, path: object) -> None:
        super().__init__(message)
        self.path = path

    def __reduce__(self) -> tuple[type, tuple[str, object]]:
        # Rebuilt with its path when it crosses a process boundary (pickle passes only ``args`` by default).
        return type(self), (str(self), self.path)


class MissingHalfError(TokenizerFileError):
    """A GPT-2 ``vocab.json`` whose ``merges.txt`` is not beside it, or the other way round.

    The message says what works everywhere (the app, every command, the library); ``with_option`` says it
    for a command that takes ``--merges PATH``, where naming the file is the shorter way.

    Attributes:
        with_option: the message's advice for a command with ``--merges``.
    """

    def __init__(self, message: str, with_option: str) -> None:
        super().__init__(message)
        self.with_option = with_option

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        return type(self), (str(self), self.with_option)


class TrainingCancelled(Exception):
    """Raised inside a training run when it was cancelled; callers treat it as a normal stop."""
