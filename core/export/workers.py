"""Sharing an export among processes: chunks handed out one at a time, each process writing a part file.

How the work is shared decides the speed-up, and two earlier ways fell short on two cores:

* small chunks sent to a process pool, their ids sent back through pipes: each worker started with a
  cold pre-token cache (the tokenizer's speed comes from that cache), and pickling ids, pipe traffic and
  per-chunk bookkeeping ate most of the rest of the gain;
* one fixed, contiguous share per process: one process often waited a long while for the other at the
  end, whenever something slowed one of them down.

(Their figures are in ``benchmarks/README.md``.)

So the exporting process first encodes the warm-up chunk straight into the output (cut near
:data:`WARM_UP_BYTES`: the most frequent pre-tokens are all in it), then forks ``workers - 1`` children,
which inherit its warm tokenizer. From then on every process, this one included, takes the next chunk
from a shared counter (:class:`~core.export.chunk_queue.ChunkQueue`), encodes it and appends its ids to a part
file of its own beside the output, so that a process that is slowed down simply takes fewer chunks. A
child reports each chunk it finishes (its index and id count) on a pipe of its own; since each process
takes chunks in increasing order, that is enough to find every chunk in the part files, and at the end
this process copies them into the output in file order (:class:`SharedExport`). Only these small reports
(and, on failure, an error's type and message) cross the pipes. Between chunks the processes also hand
each other, through small files, the words each encoded for the first time
(:class:`~core.export.word_exchange.WordExchange`), so that few words are encoded by more than one process.
Where fork is unavailable the children are spawned and build the tokenizer from the model (cold, but
correct). The part files need disk space for the ids until they are copied.
"""

from __future__ import annotations

import glob
import multiprocessing
import os
import signal
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from core.export.chunk_queue import WORKER_DIED, ChunkQueue, ForkedChunkQueue
from core.errors import BPEError
from core.export.encoding import ITEM_BYTES, encode_into
from core.output_errors import OutputError, describe_write_error
from core.temporaries import temp_prefix
from core.input_files import shown_path
from core.signals import WAKE_SECONDS, signals_held, worker_ready
from core.export.word_exchange import WordExchange

if TYPE_CHECKING:
    from core.model import BPEModel
    from core.encode.tokenizer import Tokenizer

WARM_UP_BYTES = 64 << 10
"""The first chunk of a shared export is cut near this size. This process encodes it before starting the
workers, so that they inherit a warm cache: the most frequent pre-tokens are all in it. A fixed share of
the file instead delayed the fork on large files, for little more warmth."""

NOT_A_CHUNK = -1
"""The chunk index given to a failure that belongs to no chunk (a worker that died, a part file that
cannot be made): it comes before every chunk's error."""

_COPY_BYTES = 1 << 20


def _encode_share(source: BPEModel | Tokenizer, corpus: Path, ranges: list[tuple[int, int]], queue: ChunkQueue,
                  part: Path, out: Path, dtype: str, conn: Connection, words: list[Path], me: int) -> None:
    """A worker process: encode chunks from ``queue`` into the file ``part``, reporting each on ``conn``.

    Sends ``("chunk", index, tokens)`` after each chunk and ``("done",)`` when the queue is empty, or
    ``("failed", index, type, message)``. A forked worker gets the parent's tokenizer (warm cache
    included), a spawned one the model, which pickles small and fast. ``words`` are the processes' words
    files (:class:`WordExchange`), ``words[me]`` this one's.
    """
    # Ctrl-C reaches the whole process group; the parent alone handles it (stops the workers and cleans
    # up), so a worker must not die mid-chunk and look like a crash. SIGTERM is how the parent stops it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    worker_ready()
    index = NOT_A_CHUNK
    try:
        from core.encode.tokenizer import Tokenizer

        tokenizer = source if isinstance(source, Tokenizer) else Tokenizer.from_model(source)
        exchange = WordExchange(tokenizer.piece_cache, words[me], words[:me] + words[me + 1 :])
        # "r+b", never "wb": this process made the file. A worker forked while Ctrl-C cut its start short
        # is not known to that process, and may get here after the file was cleaned up: it must not
        # make it again.
        with open(part, "r+b") as handle:
            while (index := queue.take()) is not None:
                exchange.adopt()
                tokens = encode_into(handle, tokenizer, corpus, ranges[index], dtype, out)
                conn.send(("chunk", index, tokens))
                exchange.publish()
        conn.send(("done",))
    except BaseException as error:  # noqa: BLE001 - whatever it is, the parent must hear of it
        failed_at = NOT_A_CHUNK if index is None else index
        queue.stop_before(failed_at)
        _send_failure(conn, failed_at, error)
    finally:
        conn.close()


def _send_failure(conn: Connection, index: int, error: BaseException) -> None:
    kind, message = type(error), str(error)
    if isinstance(error, OSError) and error.errno is not None:
        # Its number says what went wrong (out of space, out of descriptors): rebuilt from the message
        # alone, the parent could only print "[Errno 24] Too many open files: 'corpus.txt'".
        message = (error.errno, error.strerror, error.filename)
    try:
        try:
            conn.send(("failed", index, kind, message))
        except Exception:  # a type that does not pickle (defined in a function, say): keep its name
            conn.send(("failed", index, BPEError, f"an export worker failed: {kind.__name__}: {message}"))
    except OSError:
        pass  # the parent has gone; nobody is left to tell


def _rebuild(kind: type, message: str | tuple[int, str, str | None]) -> Exception:
    """A worker's error as this process raises it: the same type and message when the type allows (an
    OSError from its number, text and file name)."""
    if isinstance(message, tuple):
        try:
            return kind(*message)
        except Exception:  # noqa: BLE001 - an OSError subclass that wants other arguments
            return OSError(*message)
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
    """A part file and the process writing it (none for this process's own); ``running`` until it is done."""

    path: Path
    words: Path  # this process's words file (see WordExchange)
    conn: Connection | None = None
    process: BaseProcess | None = None
    running: bool = True
    chunks: list[tuple[int, int]] = field(default_factory=list)  # (index, tokens), in the order written


class SharedExport:
    """One shared export of ``ranges`` (the chunks after the warm-up chunk) into ``out``, by ``processes``
    processes: this one and ``processes - 1`` workers. Use :meth:`start`, iterate :meth:`run`, check
    :meth:`first_error`, then :meth:`copy_into` the output; :meth:`close` always, even on an error."""

    def __init__(self, out: Path, ranges: list[tuple[int, int]], processes: int) -> None:
        self.out = out
        self.ranges = ranges
        self.processes = processes
        self.parts: list[_Part] = []
        self.failures: list[tuple[int, Exception]] = []  # (chunk index, error)
        self._context: Any = None
        self._queue: ChunkQueue | None = None
        self._dtype = "uint16"
        # Named like every temporary (core.temporaries): a later export to ``out`` removes them if this process is
        # killed. The object's id keeps two exports in one process apart.
        self._prefix = f"{temp_prefix(out)}{id(self):x}-"

    def _new_part(self) -> _Part:
        try:
            # Beside the output: same file system, and the same place to look for leftovers. The prefix
            # is this export's own, so close() finds even a file whose making Ctrl-C interrupted.
            fd, name = tempfile.mkstemp(prefix=self._prefix, suffix=".part", dir=self.out.parent)
            os.close(fd)
            fd, words = tempfile.mkstemp(prefix=self._prefix, suffix=".words", dir=self.out.parent)
            os.close(fd)
        except OSError as error:
            raise OutputError(f"cannot write {shown_path(self.out)}: {describe_write_error(error)}") from None
        part = _Part(Path(name), Path(words))
        self.parts.append(part)
        return part

    def start(self, tokenizer: Tokenizer, corpus: Path, dtype: str) -> None:
        """Make this process's part file and start the workers."""
        method = _start_method()
        self._dtype = dtype
        self._context = multiprocessing.get_context(method)
        count = len(self.ranges)
        try:
            # Beside the output, like the part files: where this export may write.
            if method == "fork":
                self._queue = ForkedChunkQueue(count, self.out.parent)
            else:
                self._queue = ChunkQueue(self._context, count)
        except OSError as error:
            raise OutputError(f"cannot write {shown_path(self.out)}: {describe_write_error(error)}") from None
        source = tokenizer if method == "fork" else tokenizer.model
        for _ in range(self.processes):
            self._new_part()  # the first is this process's
        words = [part.words for part in self.parts]
        for me, part in enumerate(self.parts[1:], start=1):
            part.conn, writer = self._context.Pipe(duplex=False)
            try:
                process = self._context.Process(
                    target=_encode_share,
                    args=(source, corpus, self.ranges, self._queue, part.path, self.out, dtype, writer, words, me),
                    daemon=True,
                )
                # A Ctrl-C waits until the worker has set its handlers (then comes here, once it is known):
                # landing in the child's start-up, it printed a traceback over the parent's message.
                with signals_held():
                    process.start()
                    part.process = process
            finally:
                # Only the worker may hold the sending end, or its death would never show up here as EOF.
                writer.close()

    def run(self, tokenizer: Tokenizer, corpus: Path, dtype: str) -> Iterator[tuple[int, int]]:
        """Encode chunks here until none is left, then wait for the workers; yields ``(bytes, tokens)`` done
        (here or by a worker) since the last step."""
        assert self._queue is not None
        own = self.parts[0]
        exchange = WordExchange(tokenizer.piece_cache, own.words, [part.words for part in self.parts[1:]])
        try:
            with open(own.path, "wb") as handle:
                while (index := self._queue.take()) is not None:
                    exchange.adopt()
                    try:
                        tokens = encode_into(handle, tokenizer, corpus, self.ranges[index], dtype, self.out)
                    except Exception as error:  # an earlier chunk, in a worker, may still fail first
                        self._fail(index, error)
                        break
                    own.chunks.append((index, tokens))
                    exchange.publish()
                    more_bytes, more_tokens = self._receive(block=False)
                    yield self._bytes(index) + more_bytes, tokens + more_tokens
        finally:
            exchange.close()  # the caller's tokenizer must not go on recording
        own.running = False
        while any(part.running for part in self.parts):
            yield self._receive(block=True)

    def _bytes(self, index: int) -> int:
        start, end = self.ranges[index]
        return end - start

    def _fail(self, index: int, error: Exception) -> None:
        assert self._queue is not None
        self._queue.stop_before(index)
        self.failures.append((index, error))

    def _receive(self, *, block: bool) -> tuple[int, int]:
        """Reports from the workers since the last call, as ``(bytes, tokens)``; with ``block``, waits first."""
        running = {part.conn: part for part in self.parts[1:] if part.running}
        if block and running:
            ready: list[Any] = []
            while not ready:  # woken now and then, to raise a Ctrl-C another thread took (core.signals)
                ready = wait(list(running), WAKE_SECONDS)
        else:
            ready = [conn for conn in running if conn.poll()]
        done = tokens = 0
        for conn in ready:
            part = running[conn]
            while part.running and conn.poll():
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    message = ("failed", NOT_A_CHUNK, BPEError, WORKER_DIED)
                if message[0] == "chunk":
                    _, index, count = message
                    part.chunks.append((index, count))
                    done += self._bytes(index)
                    tokens += count
                elif message[0] == "done":
                    part.running = False
                else:
                    part.running = False
                    _, index, kind, text = message
                    self._fail(index, _rebuild(kind, text))
        return done, tokens

    def first_error(self) -> Exception | None:
        """The error of the earliest failed chunk in file order (a dead worker's before all), if any."""
        return min(self.failures, key=lambda failure: failure[0])[1] if self.failures else None

    def copy_into(self, handle: BinaryIO) -> int:
        """Append every chunk's ids to ``handle`` in file order, from the part files; returns the id count."""
        owner: dict[int, tuple[int, int]] = {}
        for number, part in enumerate(self.parts):
            owner.update((index, (number, tokens)) for index, tokens in part.chunks)
        assert sorted(owner) == list(range(len(self.ranges))), "lost a chunk"
        item = ITEM_BYTES[self._dtype]
        sources = [open(part.path, "rb") for part in self.parts]  # noqa: SIM115 - closed below
        total = 0
        try:
            for index in range(len(self.ranges)):
                number, tokens = owner[index]
                left = tokens * item
                total += tokens
                while left:
                    data = sources[number].read(min(left, _COPY_BYTES))
                    handle.write(data)
                    left -= len(data)
            handle.flush()
        except OSError as error:
            raise OutputError(f"cannot write {shown_path(self.out)}: {describe_write_error(error)}") from None
        finally:
            for source in sources:
                source.close()
        return total

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
        if self._queue is not None:
            self._queue.close()
            self._queue = None
        for leftover in self.out.parent.glob(f"{glob.escape(self._prefix)}*"):
            leftover.unlink(missing_ok=True)
