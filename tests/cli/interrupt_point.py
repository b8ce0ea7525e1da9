"""``python -m bpe_tui`` with one step made to wait for Ctrl-C, so that a test sends SIGINT at a known point.

    python tests/cli/interrupt_point.py POINT COMMAND ARGS...

Every process that reaches POINT writes ``waiting for SIGINT at POINT in main`` (or ``in a worker``) to
stderr and sleeps until it is interrupted or killed. The points:

* ``reading``: decoding a chunk of the corpus while training, here and in the reading workers;
* ``merging``: just after the fifth merge of a training run;
* ``exporting``: encoding any chunk after the warm-up chunk of an export, here and in its workers.

Only the waiting is added: signal handling is the real one. SIGINT starts out as Python's own handler,
whatever this process inherited (a shell script's background job inherits it ignored, which would make
the command under test ignore Ctrl-C as a background job should).
"""

from __future__ import annotations

import os
import signal
import sys
import time

MAIN_PID = os.getpid()


def wait_here(point: str) -> None:
    where = "main" if os.getpid() == MAIN_PID else "a worker"
    # One write of the whole line: print() writes the text and the newline separately, so a worker and the
    # main process reaching their points together could interleave them into one line the test never matches.
    sys.stderr.flush()
    os.write(2, f"waiting for SIGINT at {point} in {where}\n".encode())
    time.sleep(3600)  # interrupted by the signal in the main process; workers are stopped by it


def patch(point: str) -> None:
    if point == "reading":
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
    else:
        raise SystemExit(f"unknown point {point!r}")


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    patch(sys.argv[1])
    from bpe_tui.__main__ import main

    sys.exit(main(sys.argv[2:]))
