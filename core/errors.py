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


class TrainingCancelled(Exception):
    """Raised inside a training run when it was cancelled; callers treat it as a normal stop."""
