"""The app's injected dependencies (clock, RSS probe, training source, tree root), swapped for fakes in tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from core.train.memory import RSSProbe

from bpe_tui.recent_files import recent_file
from bpe_tui.training_process import TrainingProcess, TrainingSource
from bpe_tui.training_spec import TrainingSpec


class Probe(Protocol):
    """What training needs from an RSS probe (``core.train.memory.RSSProbe`` or a frozen one in tests)."""

    peak: int

    def sample(self) -> int: ...


SourceFactory = Callable[[TrainingSpec], TrainingSource]
ProbeFactory = Callable[[int | None], Probe]


def _default_probe(pid: int | None) -> RSSProbe:
    return RSSProbe(pid)


@dataclass(frozen=True)
class Services:
    """What screens take from the outside world; every field has a real default.

    Attributes:
        clock: seconds from an arbitrary start, for rates and ETAs; frozen in snapshot tests.
        probe_factory: builds an RSS probe for a training process id; frozen in snapshot tests.
        source_factory: starts a training run for a spec; tests pass a recorded run instead.
        corpus_root: where the corpus pane's directory tree starts (the working directory by default).
        post_interval: seconds between the training worker's UI updates.
        recent_store: the JSON file of recent corpus files (under ``$XDG_CONFIG_HOME``; tests use a temporary one).
    """

    clock: Callable[[], float] = time.monotonic
    probe_factory: ProbeFactory = _default_probe
    source_factory: SourceFactory = TrainingProcess
    corpus_root: Path = field(default_factory=Path.cwd)
    post_interval: float = 0.1
    recent_store: Path = field(default_factory=recent_file)
