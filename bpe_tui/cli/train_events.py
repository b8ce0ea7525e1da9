"""The events file of ``bpe-tui train --events``: every training event as one JSON object a line.

The first line says what the file is and how the run was set up; then one line per event. The file is
written to a temporary name in the tokenizer's atomic group and renamed into place with it once training
has finished, so a failed or interrupted run leaves no partial file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, BinaryIO

from core.formats.byte_alphabet import encode_bytes
from core.train.events import EVENTS_FORMAT, MergeMade, PhaseProgress, ShardsRead, TrainingEvent
from core.atomic import AtomicGroup
from core.train.run import TrainingRun

EVENTS_VERSION = 1


def open_events(group: AtomicGroup, path: Path | None, training: TrainingRun) -> BinaryIO | None:
    """Open the events file at ``path`` in ``group`` (saved with the tokenizer: both or neither) and write its
    start line; ``None`` when there is no path.

    Raises:
        OutputError: the file cannot be written (also when the group is saved, at the rename).
    """
    if path is None:
        return None
    sink = group.open(path)
    sink.write(_json_line(start_record(training)))
    return sink


def write_event(sink: BinaryIO, event: TrainingEvent) -> None:
    """Append one event to an open events file.

    Raises:
        OutputError: the disk is full (the file is then dropped when its block ends).
    """
    sink.write(_json_line(event_record(event)))


def start_record(training: TrainingRun) -> dict[str, Any]:
    """The events file's first line: what it is and the settings of the run (every one the merges depend on:
    with ``base`` ``"chars"`` the first merge's id follows the alphabet, not the bytes and special tokens)."""
    return {
        "event": "start",
        "format": EVENTS_FORMAT,
        "version": EVENTS_VERSION,
        "corpus": training.corpus_spec,
        "vocab_size": training.vocab_size,
        "special_tokens": list(training.special_tokens),
        "min_frequency": training.min_frequency,
        "errors": training.errors,
        "pattern": training.pattern,
        "min_count": training.min_count,
        "base": training.base,
        "min_char_count": training.min_char_count,
        "text_field": training.text_field,
        "skip_bad_records": training.skip_bad_records,
    }


def event_record(event: TrainingEvent) -> dict[str, Any]:
    """One event as a JSON-ready dict. Merged tokens are given twice: in GPT-2's byte alphabet (readable,
    as in ``vocab.json``) and in hex (needs no table). Records hold no times, so the same run gives the
    same lines.

    >>> record = event_record(MergeMade(0, b" ", b"t", 256, 90, 80, False))
    >>> record["event"], record["new_id"], record["left"], record["left_hex"], record["right"], record["count"]
    ('merge', 256, 'Ġ', '20', 't', 90)
    >>> event_record(PhaseProgress("reading", 10, 20))
    {'event': 'phase', 'phase': 'reading', 'done': 10, 'total': 20}
    >>> event_record(ShardsRead(1, 4, 100, 0, 2))
    {'event': 'shards', 'done': 1, 'total': 4, 'documents': 100, 'skipped': 0, 'workers': 2, 'text_bytes': 0}
    """
    if isinstance(event, MergeMade):
        return {
            "event": "merge",
            "rank": event.rank,
            "new_id": event.new_id,
            "left": encode_bytes(event.left),
            "right": encode_bytes(event.right),
            "left_hex": event.left.hex(),
            "right_hex": event.right.hex(),
            "count": event.count,
            "runner_up_count": event.runner_up_count,
            "won_tie": event.won_tie,
        }
    if isinstance(event, PhaseProgress):
        return {"event": "phase", "phase": event.phase, "done": event.done, "total": event.total}
    if isinstance(event, ShardsRead):
        return {"event": "shards", **event._asdict()}
    return {
        "event": "finished",
        "reason": event.reason,
        "merges": len(event.model.merges),
        "vocab_size": event.model.vocab_size,
    }


def _json_line(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
