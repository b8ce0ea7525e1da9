"""Sharing an export among processes: this one encodes a prefix and the first group, children the rest.

The work is shared out in a few large pieces rather than many small ones. Handing small chunks to a
process pool and sending their ids back through pipes gained only 1.1-1.2x on two cores: each worker
started with a cold pre-token cache (the tokenizer's speed comes from that cache), and pickling ids, pipe
traffic and per-chunk bookkeeping ate most of the rest. So the exporting process first encodes a small
first chunk of the file itself (cut near :data:`WARM_UP_BYTES`), which warms its cache; the rest is
split into ``workers`` contiguous groups of about equal size (:func:`split_work`); ``workers - 1`` forked children
inherit the warm tokenizer and each streams its own group into a part file beside the output, while the
exporting process encodes the first group straight into the output; finally the parts are appended in
order (:class:`Workers`). Only small progress reports (and, on failure, an error's type and message)
cross the pipes. Where fork is unavailable the children are spawned and build the tokenizer from the
model (cold, but correct). The part files need disk space for the children's share of the ids until
they are appended.
"""

from __future__ import annotations

import bisect
import multiprocessing
import os
import shutil
import signal
import tempfile
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from core.errors import BPEError
from core.export_encoding import encode_into
from core.formats.atomic import OutputError

if TYPE_CHECKING:
    from core.model import BPEModel
    from core.tokenizer import Tokenizer

WARM_UP_BYTES = 64 << 10
"""The first chunk of a shared export is cut near this size. This process encodes it before starting the
workers, so that they inherit a warm cache: the most frequent pre-tokens are all in it. A share of the
file instead (3%) took 0.08 s before the fork on 16 MB, for little more warmth."""

def split_work(
    ranges: list[tuple[int, int]], workers: int
) -> tuple[list[tuple[int, int]], list[list[tuple[int, int]]]]:
    """The chunk this process encodes first, then up to ``workers`` contiguous groups of about equal bytes.

    The first chunk warms this process's cache before the workers start (see :data:`WARM_UP_BYTES`).
    With fewer than two chunks left after it there is nothing to share out: every chunk is in the prefix
    and there are no groups. (Giving this process's group 10% more, since workers start later, measured
    no faster.)

    >>> ranges = [(0, 10), (10, 20), (20, 30), (30, 40), (40, 50)]
    >>> split_work(ranges, 2)
    ([(0, 10)], [[(10, 20), (20, 30)], [(30, 40), (40, 50)]])
    >>> split_work(ranges[:2], 4)
    ([(0, 10), (10, 20)], [])
    """
    if not ranges:
        return [], []
    prefix, rest = ranges[:1], ranges[1:]
    groups = min(workers, len(rest))
    if groups < 2:
        return ranges, []
    ends = [end for _, end in rest]
    base = rest[0][0]
    share = (ends[-1] - base) / groups
    cuts = [0]
    for k in range(1, groups):
        target = base + k * share
        at = bisect.bisect_left(ends, target)  # the chunk in which the ideal cut falls
        before = ends[at - 1] if at else base
        nearest = at + 1 if ends[at] - target < target - before else at
        cuts.append(min(max(nearest, cuts[-1] + 1), len(rest) - (groups - k)))  # no group left empty
    cuts.append(len(rest))
    return prefix, [rest[a:b] for a, b in zip(cuts, cuts[1:])]


_DIED = "an export worker process died (killed, or out of memory?); try fewer --workers"


def _encode_part(source: BPEModel | Tokenizer, corpus: Path, ranges: list[tuple[int, int]], part: Path,
                 out: Path, dtype: str, conn: Connection) -> None:
    """A worker process: encode ``ranges`` of ``corpus`` into the file ``part``, reporting on ``conn``.

    Sends ``("progress", bytes, tokens)`` after each chunk, then ``("done",)`` once ``part`` is complete,
    or ``("failed", type, message)``. A forked worker gets the parent's tokenizer (warm cache included),
    a spawned one the model, which pickles small and fast.
    """
    # Ctrl-C reaches the whole process group; the parent alone handles it (stops the workers and cleans
    # up), so a worker must not die mid-chunk and look like a crash. SIGTERM is how the parent stops it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        from core.tokenizer import Tokenizer

        tokenizer = source if isinstance(source, Tokenizer) else Tokenizer.from_model(source)
        with open(part, "wb") as handle:
            for chunk in ranges:
                tokens = encode_into(handle, tokenizer, corpus, chunk, dtype, out)
                conn.send(("progress", chunk[1] - chunk[0], tokens))
        conn.send(("done",))
    except BaseException as error:  # noqa: BLE001 - whatever it is, the parent must hear of it
        _send_failure(conn, error)
    finally:
        conn.close()


def _send_failure(conn: Connection, error: BaseException) -> None:
    kind, message = type(error), str(error)
    try:
        try:
            conn.send(("failed", kind, message))
        except Exception:  # a type that does not pickle (defined in a function, say): keep its name
            conn.send(("failed", BPEError, f"an export worker failed: {kind.__name__}: {message}"))
    except OSError:
        pass  # the parent has gone; nobody is left to tell


def _rebuild(kind: type, message: str) -> Exception:
    """A worker's error as this process raises it: the same type and message when the type allows."""
    try:
        error = kind(message)
    except Exception:  # noqa: BLE001 - a constructor that wants other arguments
        error = None
    if not isinstance(error, Exception) or str(error) != message:
        return BPEError(f"an export worker failed: {kind.__name__}: {message}")
    return error


def _start_method() -> str:
    # Forked workers share the parent's tokenizer, warm cache included, without pickling anything.
    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


@dataclass(slots=True)
class _Part:
    """One worker and the part file it writes; ``state`` is running, done, failed, stopped or appended."""

    path: Path
    conn: Connection | None = None
    process: BaseProcess | None = None
    state: str = "running"
    error: Exception | None = None


class Workers:
    """The worker processes of one export, one per group after the first, in file order."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.parts: list[_Part] = []

    def start(self, tokenizer: Tokenizer, groups: list[list[tuple[int, int]]], corpus: Path, dtype: str) -> None:
        method = _start_method()
        context = multiprocessing.get_context(method)
        source = tokenizer if method == "fork" else tokenizer.model
        for group in groups:
            try:
                # Beside the output: same file system, and the same place to look for leftovers.
                fd, name = tempfile.mkstemp(prefix=f".{self.out.name}.", suffix=".part", dir=self.out.parent)
            except OSError as error:
                raise OutputError(f"cannot write {self.out}: {error.strerror or error}") from None
            os.close(fd)
            part = _Part(Path(name))
            self.parts.append(part)  # from here on, close() removes the file whatever happens
            part.conn, writer = context.Pipe(duplex=False)
            try:
                part.process = context.Process(
                    target=_encode_part, args=(source, corpus, group, part.path, self.out, dtype, writer), daemon=True
                )
                part.process.start()
            finally:
                # Only the worker may hold the sending end, or its death would never show up here as EOF.
                writer.close()

    def pending(self) -> bool:
        """Whether a worker whose outcome matters is still running (those after a failure are stopped)."""
        return any(part.state == "running" for part in self.parts)

    def receive(self, *, block: bool) -> tuple[int, int]:
        """Progress reported since the last call, as ``(bytes, tokens)``; with ``block``, waits for news first."""
        running = {part.conn: part for part in self.parts if part.state == "running"}
        ready = wait(list(running)) if block and running else [conn for conn in running if conn.poll()]
        done = tokens = 0
        for conn in ready:
            part = running[conn]
            while part.state == "running" and conn.poll():
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    message = ("failed", BPEError, _DIED)
                if message[0] == "progress":
                    done += message[1]
                    tokens += message[2]
                elif message[0] == "done":
                    part.state = "done"
                else:
                    self._fail(part, _rebuild(*message[1:]))
        return done, tokens

    def _fail(self, part: _Part, error: Exception) -> None:
        part.state, part.error = "failed", error
        # Later parts cannot matter any more: stop them. Earlier ones go on, one may hold an earlier error.
        for later in self.parts[self.parts.index(part) + 1:]:
            if later.state == "running":
                assert later.process is not None
                later.process.terminate()
                later.state = "stopped"

    def first_error(self) -> Exception | None:
        """The error of the earliest failed part in file order, if any."""
        return next((part.error for part in self.parts if part.error is not None), None)

    def append_finished(self, handle: BinaryIO) -> None:
        """Append the finished parts to ``handle`` in order, up to the first unfinished one, deleting them."""
        for part in self.parts:
            if part.state == "appended":
                continue
            if part.state != "done":
                return
            with open(part.path, "rb") as source:
                try:
                    shutil.copyfileobj(source, handle, 1 << 20)
                    handle.flush()
                except OSError as error:
                    raise OutputError(f"cannot write {self.out}: {error.strerror or error}") from None
            part.path.unlink()
            part.state = "appended"

    def close(self) -> None:
        """Stop the workers that still run and delete every part file."""
        for part in self.parts:
            if part.process is not None and part.process.is_alive():
                part.process.terminate()
        for part in self.parts:
            if part.process is not None:
                part.process.join(5)
                if part.process.is_alive():
                    part.process.kill()
                    part.process.join()
                part.process.close()
            if part.conn is not None:
                part.conn.close()
            part.path.unlink(missing_ok=True)
