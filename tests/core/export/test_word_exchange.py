"""The processes of a shared export hand each other the words they encode (``WordExchange``).

Sharing must only save time: the ids are those of one process however the words travel, a record still
being written is picked up later, a words file that cannot be read ends the sharing without an error,
and the caller's tokenizer is left not recording.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.core.export.export_cases import export_ids, in_a_worker, patch_encode_range
from tests.core.formats.format_cases import encoder, small_model

import core.export.word_exchange
from core.export.word_exchange import WordExchange
from core.encode.bounded_memo import BoundedMemo
from tests.waiting import wait_until


class Counted:
    """A cache function that counts its calls, to tell computed entries from adopted ones."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, word: str) -> tuple[int, ...]:
        self.calls += 1
        return tuple(map(ord, word))


def pair(tmp_path: Path) -> tuple[BoundedMemo, Counted, WordExchange, BoundedMemo, Counted, WordExchange]:
    a_fn, b_fn = Counted(), Counted()
    a, b = BoundedMemo(a_fn, limit=100), BoundedMemo(b_fn, limit=100)
    a_file, b_file = tmp_path / "a.words", tmp_path / "b.words"
    a_file.touch()
    b_file.touch()
    return a, a_fn, WordExchange(a, a_file, [b_file]), b, b_fn, WordExchange(b, b_file, [a_file])


def test_words_encoded_by_one_process_are_adopted_by_the_other(tmp_path: Path) -> None:
    a, a_fn, a_side, b, b_fn, b_side = pair(tmp_path)
    for word in ["cat", "dog", "cat"]:
        a[word]
    a_side.publish()
    b_side.adopt()
    assert b == {"cat": (99, 97, 116), "dog": (100, 111, 103)} and b_fn.calls == 0
    assert [b[w] for w in ("cat", "dog")] == [(99, 97, 116), (100, 111, 103)] and b_fn.calls == 0
    # What b computes goes the other way; what b adopted is not sent back.
    b["eel"]
    b_side.publish()
    a_side.adopt()
    assert a["eel"] == (101, 101, 108) and a_fn.calls == 2
    assert b.journal == [] and (tmp_path / "b.words").stat().st_size < (tmp_path / "a.words").stat().st_size
    # Adopting again reads nothing twice.
    b_side.adopt()
    assert len(b) == 3


def test_a_record_still_being_written_is_read_next_time(tmp_path: Path) -> None:
    a, _, a_side, b, _, b_side = pair(tmp_path)
    a["one"]
    a_side.publish()
    whole = (tmp_path / "a.words").read_bytes()
    (tmp_path / "a.words").write_bytes(whole[:-3])  # as a reader may see it mid-write
    b_side.adopt()
    assert "one" not in b
    (tmp_path / "a.words").write_bytes(whole)
    b_side.adopt()
    assert "one" in b


def test_a_full_cache_adopts_nothing_and_keeps_what_it_has(tmp_path: Path) -> None:
    a, _, a_side, _, _, _ = pair(tmp_path)
    small = BoundedMemo(str.upper, limit=2)
    small_side = WordExchange(small, tmp_path / "small.words", [tmp_path / "a.words"])
    small["x"], small["y"]
    for word in ["p", "q", "r"]:
        a[word]
    a_side.publish()
    small_side.adopt()
    assert small == {"x": "X", "y": "Y"}


def test_sharing_stops_after_its_limit_and_on_a_bad_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core.export.word_exchange, "WORDS_SHARED_AT_MOST", 3)
    a, _, a_side, b, _, b_side = pair(tmp_path)
    for word in ["a1", "a2"]:
        a[word]
    a_side.publish()
    for word in ["a3", "a4"]:
        a[word]
    a_side.publish()
    assert a.journal is None  # three sent: it stops recording
    b_side.adopt()
    assert sorted(b) == ["a1", "a2", "a3"]
    (tmp_path / "a.words").write_bytes(b"\x05\x00\x00\x00junk!")  # not a pickle
    b_side_again = WordExchange(b, tmp_path / "b.words", [tmp_path / "a.words"])
    b_side_again.adopt()  # no error: sharing just ends
    assert b.journal is None
    (tmp_path / "a.words").unlink()
    pair_again = pair(tmp_path)
    (tmp_path / "b.words").unlink()
    pair_again[2].adopt()  # a file gone: no error either
    assert pair_again[0].journal is None


def test_a_shared_export_adopts_words_and_leaves_the_tokenizer_not_recording(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    model = small_model()
    tokenizer = encoder(model)
    # Many distinct words, each repeated far apart: whichever process meets one first can hand it over.
    words = [f"w{i}x{i * 7 % 13}q" for i in range(3000)]
    text = (" ".join(words) + "\n") * 4
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text, encoding="utf-8")
    adopted: list[int] = []
    original = BoundedMemo.adopt

    def counting(self: BoundedMemo, entries: list) -> None:
        adopted.append(len(entries))
        original(self, entries)

    monkeypatch.setattr(BoundedMemo, "adopt", counting)
    # The order is fixed, not timed: this process holds its first shared chunk until the worker starts on
    # its second, by when it has published the words of its first (otherwise, on a loaded machine, this
    # process could encode every chunk before the worker published anything).
    published = tmp_path_factory.mktemp("signals") / "worker-published"
    started_in_worker = []

    def before(start: int) -> None:
        if in_a_worker():
            started_in_worker.append(start)
            if len(started_in_worker) == 2:
                published.touch()
        elif start > 0:  # not the warm-up chunk, encoded before the worker exists
            wait_until(published.exists, "the worker to publish its first chunk's words")

    patch_encode_range(monkeypatch, before)
    ids = export_ids(tokenizer, corpus, tmp_path / "ids.npy", workers=2, chunk_bytes=4096)
    assert ids.tolist() == encoder(model).encode(text)
    assert sum(adopted) > 100  # this process took in words its worker had encoded
    assert tokenizer.piece_cache.journal is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt", "ids.npy", "ids.npy.json"]
