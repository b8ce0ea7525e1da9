"""``python -m bpe_tui`` with one step made to wait for Ctrl-C, so that a test sends SIGINT at a known point.

    python tests/cli/interrupt_point.py FOLDER POINT COMMAND ARGS...

Every process that reaches POINT makes a file in FOLDER, ``main`` or ``worker-<pid>``, and waits there.
(Files, not lines on stderr: a line printed by one process can be cut in two by another's, so the
command's own output stays as it would be.) A worker waits until it is stopped. The main process waits
until a SIGINT (or a SIGTERM or SIGHUP, which the command handles as Ctrl-C) has been handled: if the
command's handler raised KeyboardInterrupt, that goes on from here; if the handler only noted it (Ctrl-C
waits while a command saves), the command goes on from here, as it would had the signal come at this
moment. A signal left to its default action ends the process as it would anyway; one ignored is noted,
and the command goes on. The points:

* ``importing``: while ``bpe_tui.cli`` is being imported, before any argument is parsed;
* ``parsing``: while the command's arguments are parsed;
* ``reading``: decoding a chunk of the corpus while training, here and in the reading workers;
* ``merging``: just after the fifth merge of a training run;
* ``exporting``: encoding any chunk after the warm-up chunk of an export, here and in its workers;
* ``exporting+stopping``: as ``exporting``, and the main process waits again as the export starts to
  stop its workers and remove its part files (a second Ctrl-C, while it cleans up after the first);
* ``exporting-shard``: encoding any shard of a corpus of shards, here or in the export's workers;
* ``before-rename`` / ``after-rename``: just before or after the rename that puts a saved file (or a new
  folder) in place; ``before-rename:N`` waits at the Nth rename of the run (GPT-2's new folder is the
  third: vocab.json and merges.txt inside it go first).

Only the waiting is added: signal handling is the real one. SIGINT starts out as Python's own handler,
whatever this process inherited (a shell script's background job inherits it ignored, which would make
the command under test ignore Ctrl-C as a background job should).
"""

from __future__ import annotations

import importlib.abc
import os
import signal
import sys
import time
from pathlib import Path

MAIN_PID = os.getpid()
FOLDER = Path(sys.argv[1])


def wait_here(point: str) -> None:
    name = "main" if os.getpid() == MAIN_PID else f"worker-{os.getpid()}"
    waits = 1
    while (FOLDER / name).exists():  # the main process waits again (at a second point): a new file each time
        waits += 1
        name = f"main-{waits}"
    if os.getpid() != MAIN_PID:
        (FOLDER / name).touch()
        time.sleep(3600)  # workers ignore SIGINT; the main process stops them
        return
    handled: list[int] = []
    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}

    def noted(signum, frame):
        handled.append(signum)
        handler = handlers[signum]
        if callable(handler):
            handler(signum, frame)
        elif handler == signal.SIG_DFL:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    for signum in handlers:
        signal.signal(signum, noted)
    (FOLDER / name).touch()  # only now: the test may send SIGINT as soon as it sees the file
    try:
        while not handled:
            time.sleep(0.005)  # polls for an event, does not wait for time to pass
    finally:
        for signum, handler in handlers.items():
            if signal.getsignal(signum) is noted:
                signal.signal(signum, handler)


class _WaitWhileImporting(importlib.abc.MetaPathFinder):
    """Waits the first time ``bpe_tui.cli`` is looked for, then lets the normal import go on."""

    def find_spec(self, name, path, target=None):
        if name == "bpe_tui.cli":
            sys.meta_path.remove(self)
            wait_here("importing")
        return None


def _at_rename(point: str) -> None:
    import core.atomic

    when, _, nth = point.partition(":")
    wanted = int(nth or 1)
    commit = core.atomic._commit
    seen = 0

    def waiting_commit(temp, target):
        nonlocal seen
        seen += 1
        if seen == wanted and when == "before-rename":
            wait_here(point)
        commit(temp, target)
        if seen == wanted and when == "after-rename":
            wait_here(point)

    core.atomic._commit = waiting_commit


def patch(point: str) -> None:
    if point == "importing":
        sys.meta_path.insert(0, _WaitWhileImporting())
    elif point == "parsing":
        import argparse

        parse = argparse.ArgumentParser.parse_intermixed_args

        def waiting_parse(self, *args, **kwargs):
            wait_here(point)
            return parse(self, *args, **kwargs)

        argparse.ArgumentParser.parse_intermixed_args = waiting_parse
    elif point.startswith(("before-rename", "after-rename")):
        _at_rename(point)
    elif point == "reading":
        import core.train.reading

        decode_chunk = core.train.reading.decode_chunk

        def waiting_decode_chunk(*args, **kwargs):
            wait_here(point)
            return decode_chunk(*args, **kwargs)

        core.train.reading.decode_chunk = waiting_decode_chunk
    elif point == "merging":
        from core.train.events import MergeMade
        from core.train.run import TrainingRun

        events = TrainingRun.events

        def waiting_events(self):
            for event in events(self):
                yield event
                if isinstance(event, MergeMade) and event.rank == 5:
                    wait_here(point)

        TrainingRun.events = waiting_events
    elif point == "exporting":
        import core.export.encoding

        encode_range = core.export.encoding.encode_range

        def waiting_encode_range(tokenizer, path, start, end, dtype):
            if start > 0:
                wait_here(point)
            return encode_range(tokenizer, path, start, end, dtype)

        core.export.encoding.encode_range = waiting_encode_range
    elif point == "exporting+stopping":
        import core.export.encoding
        import core.export.workers

        encode_range = core.export.encoding.encode_range
        close = core.export.workers.SharedExport.close

        def waiting_encode_range(tokenizer, path, start, end, dtype):
            if start > 0:
                wait_here(point)
            return encode_range(tokenizer, path, start, end, dtype)

        def waiting_close(self):
            wait_here(point)
            close(self)

        core.export.encoding.encode_range = waiting_encode_range
        core.export.workers.SharedExport.close = waiting_close
    elif point == "exporting-shard":
        import core.export.shards

        export_shard = core.export.shards.export_shard

        def waiting_export_shard(job):
            wait_here(point)
            return export_shard(job)

        core.export.shards.export_shard = waiting_export_shard
    else:
        raise SystemExit(f"unknown point {point!r}")


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    patch(sys.argv[2])
    from bpe_tui.__main__ import main

    # The whole process, as the installed ``bpe-tui`` is: a Ctrl-C after the command is ignored on the way out.
    sys.exit(main(sys.argv[3:], own_process=True))
