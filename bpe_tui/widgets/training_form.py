"""The corpus pane's training settings: vocab size, special tokens, workers, min frequency, what to do with
bytes that are not UTF-8 (``errors``, as ``bpe-tui train --errors``) and, for a corpus of shards, the text
field and whether bad records are skipped (``--text-field``, ``--skip-bad-records``), and the base the merges
start from (bytes, or the corpus's characters with a min char count: ``--base``, ``--min-char-count``), and
where the pre-tokens are counted (here, or on a Dask cluster: ``--dask``), with validation.

The shard options are shown only while the corpus is read as shards (JSON lines, Parquet, compressed, a
folder): for one text file they mean nothing, and at 80x24 the line is better left to the preview. The min
char count is shown only while the character base is chosen, for the same reason. The Dask field is always
shown: ``bpe-tui train --dask`` takes every corpus the form trains on (one text file is counted in parts).

The fields' defaults are also the settings of the app's start-up run (:func:`default_settings`), and a
spec is made from settings in one place (:meth:`TrainingSettings.spec`), so a tokenizer trained from the
form with its defaults and the start-up tokenizer cannot drift apart.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from core.errors import SettingsError
from core.limits import max_workers
from core.model import BASES, BYTE_BASE, CHAR_BASE

from bpe_tui.text import counted
from bpe_tui.training_spec import TrainingSpec

MAX_VOCAB_SIZE = 1_000_000

DEFAULT_VOCAB = "1000"
"""The vocab size field at first: big enough to be interesting, trained on the samples in about a second."""
DEFAULT_SPECIALS = "<|endoftext|>"
"""The special tokens field at first: the document separator of the bundled samples (and of CS336's data)."""
DEFAULT_WORKERS = ""
"""Blank: one worker per CPU."""
DEFAULT_MIN_FREQUENCY = "0"
DEFAULT_ERRORS = "strict"
"""Invalid UTF-8 stops the run with its byte offset; ``"replace"`` trains on U+FFFD in its place."""
ERRORS_CHOICES = ("strict", "replace")
DEFAULT_TEXT_FIELD = "text"
"""The JSON field or Parquet column holding a record's text, as ``bpe-tui train --text-field`` defaults it."""
DEFAULT_BASE = BYTE_BASE
"""Merges start from the 256 bytes; ``"chars"`` starts them from the corpus's characters (``--base chars``)."""
DEFAULT_MIN_CHAR_COUNT = "1"
"""With the character base, every character seen at least once gets a token (``--min-char-count``'s default)."""
DEFAULT_DASK = ""
"""Blank: the pre-tokens are counted here, by the worker processes; ``local[:N]`` or a scheduler's address
counts them on a Dask cluster (``--dask``)."""
DASK_HINT = "here · local:N · tcp://HOST:8786"
"""The Dask field's placeholder: what blank means, and what else it takes."""
DASK_HINT_SHORT = "here"


@dataclass(frozen=True)
class TrainingSettings:
    """Validated settings from the form."""

    vocab_size: int
    special_tokens: tuple[str, ...]
    workers: int | None
    min_frequency: int
    errors: str = DEFAULT_ERRORS
    text_field: str = DEFAULT_TEXT_FIELD
    skip_bad_records: bool = False
    base: str = DEFAULT_BASE
    min_char_count: int = 1
    dask: str | None = None
    """A Dask scheduler's address or ``local[:N]`` to count on, or ``None`` to count here."""

    def spec(
        self,
        *,
        corpus_path: Path | None = None,
        text: str | None = None,
        label: str = "",
        measure_texts: Sequence[tuple[str, str]] = (),
    ) -> TrainingSpec:
        """The run these settings ask for, on a corpus file or on in-memory text (see ``TrainingSpec``)."""
        return TrainingSpec(
            vocab_size=self.vocab_size,
            corpus_path=corpus_path,
            text=text,
            special_tokens=self.special_tokens,
            workers=self.workers,
            min_frequency=self.min_frequency,
            errors=self.errors,
            text_field=self.text_field,
            skip_bad_records=self.skip_bad_records,
            base=self.base,
            min_char_count=self.min_char_count,
            dask=self.dask,
            label=label,
            measure_texts=tuple(measure_texts),
        )


def _whole(text: str, name: str, low: int, high: int, errors: list[str]) -> int | None:
    try:
        value = int(text.strip().replace("_", "").replace(",", ""))
    except ValueError:
        errors.append(f"{name}: {text.strip() or 'empty'!s} is not a whole number")
        return None
    if not low <= value <= high:
        errors.append(f"{name}: must be between {low:,} and {high:,}")
        return None
    return value


def parse_settings(
    vocab: str,
    specials: str,
    workers: str,
    min_frequency: str,
    decode_errors: str = DEFAULT_ERRORS,
    text_field: str = DEFAULT_TEXT_FIELD,
    skip_bad_records: bool = False,
    base: str = DEFAULT_BASE,
    min_char_count: str = DEFAULT_MIN_CHAR_COUNT,
    dask: str = DEFAULT_DASK,
) -> tuple[TrainingSettings | None, list[str]]:
    """Check the fields; return settings, or ``None`` and one message per problem.

    Special tokens are separated by spaces. Workers may be blank (one per CPU). ``decode_errors`` is the
    errors choice (``"strict"`` or ``"replace"``). ``text_field`` is taken as typed (a JSON key may hold
    spaces), and checked as ``bpe-tui train --text-field`` is. ``base`` is ``"bytes"`` or ``"chars"``; the min
    char count is read only with the character base, as ``--min-char-count`` applies only there. ``dask`` is
    blank (count here) or an address checked as ``--dask`` checks it, the dask extra included. Whether the
    vocab size holds the character base's alphabet is known only once the corpus is read: the run refuses it
    then, saying how many tokens the base needs.

    >>> parse_settings("1000", "<|endoftext|>", "", "0")[0].special_tokens
    ('<|endoftext|>',)
    >>> parse_settings("12", "", "x", "0")[1]
    ['vocab size: must be between 256 and 1,000,000', 'workers: x is not a whole number']
    >>> parse_settings("300", "", "", "0", text_field="")[1]
    ["text field '' must be a non-empty field or column name"]
    >>> parse_settings("300", "", "", "0", base="chars", min_char_count="0")[1]
    ['min char count: must be between 1 and 1,000,000,000,000']
    >>> parse_settings("300", "", "", "0", dask="10.0.0.5")[1]
    ["--dask '10.0.0.5' is not understood; give a scheduler address such as tcp://HOST:8786, or local[:N] for N workers here"]
    """
    errors: list[str] = []
    tokens = tuple(dict.fromkeys(specials.split()))
    size = _whole(vocab, "vocab size", 256, MAX_VOCAB_SIZE, errors)
    count = None if workers.strip() in ("", "auto") else _whole(workers, "workers", 1, max_workers(), errors)
    frequency = _whole(min_frequency, "min frequency", 0, 10**12, errors)
    if base not in BASES:
        errors.append(f"base {base!r} is not understood; choose {' or '.join(BASES)}")
    char_count = _whole(min_char_count, "min char count", 1, 10**12, errors) if base == CHAR_BASE else 1
    if size is not None and size < 256 + len(tokens):
        errors.append(f"vocab size: must be at least {256 + len(tokens)} (256 bytes + {counted(len(tokens), 'special')})")
    address = dask.strip() or None
    if address is not None:
        from core.train.dask_counting import check_dask  # as the trainer below: loaded on first use

        try:
            check_dask(address, count if count is not None else (os.cpu_count() or 1))
        except SettingsError as error:
            errors.append(str(error))
    if errors or size is None or frequency is None or char_count is None:
        return None, errors
    from core.train.settings import check_text_field, validate_settings  # the trainer loads on first use, not at start-up

    try:
        validate_settings(size, tokens, frequency, decode_errors)
        check_text_field(text_field)
    except SettingsError as error:
        return None, [str(error)]
    return TrainingSettings(
        size, tokens, count, frequency, decode_errors, text_field, skip_bad_records, base, char_count, address
    ), []


def default_settings() -> TrainingSettings:
    """The settings of the form's fields before they are edited, checked as the form checks them.

    >>> default_settings()  # doctest: +NORMALIZE_WHITESPACE
    TrainingSettings(vocab_size=1000, special_tokens=('<|endoftext|>',), workers=None, min_frequency=0,
                     errors='strict', text_field='text', skip_bad_records=False, base='bytes', min_char_count=1,
                     dask=None)
    """
    settings, errors = parse_settings(DEFAULT_VOCAB, DEFAULT_SPECIALS, DEFAULT_WORKERS, DEFAULT_MIN_FREQUENCY)
    assert settings is not None, errors
    return settings


class TrainingForm(Vertical):
    """Posts ``TrainRequested`` with valid settings on Enter in a field or on the Train button."""

    DEFAULT_CSS = """
    TrainingForm { height: auto; border: round $primary; padding: 0 1; }
    TrainingForm Grid { grid-size: 4; grid-columns: 10 1fr 9 1fr; grid-rows: 1; grid-gutter: 0 1; height: auto; }
    TrainingForm Input { width: 1fr; }
    TrainingForm #form-bottom { height: 1; margin-top: 1; }
    TrainingForm #form-errors { width: 1fr; padding-left: 1; }
    TrainingForm #shard-options { height: 1; display: none; }
    TrainingForm #shard-options.-shown { display: block; }
    TrainingForm #shard-options Label { width: 10; margin-right: 1; }
    TrainingForm #skip-bad-records { margin-left: 1; }
    TrainingForm .char-base-only { display: none; }
    TrainingForm.-chars .char-base-only { display: block; }
    TrainingForm #dask { column-span: 3; }
    TrainingForm.-chars #dask { column-span: 1; }
    """

    @dataclass
    class TrainRequested(Message):
        """The user asked to train with these (valid) settings."""

        settings: TrainingSettings

    @dataclass
    class SpecialsChanged(Message):
        """The special tokens field changed (documents are counted by them)."""

        special_tokens: tuple[str, ...]

    @dataclass
    class ReadingChanged(Message):
        """How the corpus is read changed: the shard options (the corpus pane counts records by the text
        field) or the errors choice; sent only when the text field is valid."""

        text_field: str
        skip_bad_records: bool
        errors: str = DEFAULT_ERRORS

    def compose(self) -> ComposeResult:
        with Grid():
            yield Label("vocab size")
            yield Input(DEFAULT_VOCAB, id="vocab", compact=True, restrict=r"[0-9_,]*")
            yield Label("workers")
            yield Input(DEFAULT_WORKERS, placeholder="auto", id="workers", compact=True, restrict=r"[0-9]*")
            yield Label("specials")
            yield Input(DEFAULT_SPECIALS, placeholder="space-separated", id="specials", compact=True)
            yield Label("min freq")
            yield Input(DEFAULT_MIN_FREQUENCY, id="min-frequency", compact=True, restrict=r"[0-9_,]*")
            yield Label("errors")
            yield Select(
                [(choice, choice) for choice in ERRORS_CHOICES],
                value=DEFAULT_ERRORS, allow_blank=False, compact=True, id="errors",
                tooltip="Bytes that are not UTF-8: strict stops with their offset, replace trains on U+FFFD",
            )
            yield Label("base")
            yield Select(
                [(choice, choice) for choice in BASES],
                value=DEFAULT_BASE, allow_blank=False, compact=True, id="base",
                tooltip="What merges start from: the 256 bytes, or the corpus's characters (rare ones as bytes)",
            )
            yield Label("min chars", classes="char-base-only")
            yield Input(
                DEFAULT_MIN_CHAR_COUNT, id="min-char-count", compact=True, restrict=r"[0-9_,]*",
                classes="char-base-only",
                tooltip="A character seen fewer times than this gets no token and is encoded as its bytes",
            )
            yield Label("dask")
            yield Input(
                DEFAULT_DASK, placeholder=DASK_HINT, id="dask", compact=True,
                tooltip="Count the pre-tokens on a Dask cluster: local[:N] starts N workers on this machine, "
                "tcp://HOST:8786 is a running scheduler; merging stays here (needs: pip install 'bpe-tui[dask]')",
            )
        with Horizontal(id="shard-options"):
            yield Label("text field")
            yield Input(
                DEFAULT_TEXT_FIELD, placeholder="JSON field / Parquet column", id="text-field", compact=True,
                tooltip="The JSON field or Parquet column holding each record's text (JSON lines and Parquet only)",
            )
            yield Checkbox(
                "skip bad records", id="skip-bad-records", compact=True,
                tooltip="Skip records that cannot be read (not JSON, no text field, not a string) and count them, "
                "instead of stopping at the first",
            )
        with Horizontal(id="form-bottom"):
            yield Button("Train", id="train", variant="primary", compact=True)
            yield Static("", id="form-errors", markup=False)

    def on_mount(self) -> None:
        self.border_title = "Train a tokenizer on this file"

    def show_shard_options(self, shown: bool) -> None:
        """Show the text field and the skip toggle (the corpus is read as shards), or hide them."""
        self.query_one("#shard-options").set_class(shown, "-shown")

    @property
    def text_field(self) -> str:
        return self._value("text-field")

    @property
    def skip_bad_records(self) -> bool:
        return self.query_one("#skip-bad-records", Checkbox).value

    def _value(self, widget_id: str) -> str:
        return self.query_one(f"#{widget_id}", Input).value

    @property
    def special_tokens(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self._value("specials").split()))

    def _errors_choice(self) -> str:
        # Before the Select has settled (fields post Changed while mounting) its value may still be blank.
        value = self.query_one("#errors", Select).value
        return value if isinstance(value, str) else DEFAULT_ERRORS

    def _base_choice(self) -> str:
        value = self.query_one("#base", Select).value
        return value if isinstance(value, str) else DEFAULT_BASE

    def settings(self) -> tuple[TrainingSettings | None, list[str]]:
        """The current fields, checked; shows the problems under the fields as well as returning them."""
        settings, errors = parse_settings(
            self._value("vocab"), self._value("specials"), self._value("workers"), self._value("min-frequency"),
            self._errors_choice(), self.text_field, self.skip_bad_records,
            self._base_choice(), self._value("min-char-count"), self._value("dask"),
        )
        self.query_one("#form-errors", Static).update(
            Content.styled("; ".join(errors), "$error") if errors else Content("")
        )
        return settings, errors

    def submit(self) -> None:
        """Validate, and post ``TrainRequested`` if the settings are good."""
        settings, errors = self.settings()
        if settings is None:
            self.notify("\n".join(errors), title="Check the training settings", severity="error", markup=False)
            return
        self.post_message(self.TrainRequested(settings))

    @on(Input.Submitted)
    @on(Button.Pressed, "#train")
    def _submitted(self, event: Message) -> None:
        event.stop()
        self.submit()

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self.settings()
        if event.input.id == "specials":
            self.post_message(self.SpecialsChanged(self.special_tokens))
        elif event.input.id == "text-field":
            self._reading_changed()

    @on(Checkbox.Changed, "#skip-bad-records")
    def _skip_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        self.settings()
        self._reading_changed()

    def _reading_changed(self) -> None:
        from core.train.settings import check_text_field

        try:
            check_text_field(self.text_field)
        except SettingsError:
            return  # the problem is shown under the fields; the corpus is still counted by the last good one
        self.post_message(self.ReadingChanged(self.text_field, self.skip_bad_records, self._errors_choice()))

    @on(Select.Changed, "#errors")
    def _errors_changed(self) -> None:
        self.settings()
        self._reading_changed()

    @on(Select.Changed, "#base")
    def _base_changed(self) -> None:
        chars = self._base_choice() == CHAR_BASE
        self.set_class(chars, "-chars")
        # Beside the min char count the Dask field is a quarter of the row: its hint would be cut mid-word.
        self.query_one("#dask", Input).placeholder = DASK_HINT_SHORT if chars else DASK_HINT
        self.settings()
