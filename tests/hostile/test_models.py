"""Hostile tokenizer files, one class of problem at a time: each ends in a one-line error, never a traceback,
a gigabyte allocation or a model that silently encodes something else than the file means."""

from __future__ import annotations

import base64
import json
import tracemalloc
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.encode.tokenizer import Tokenizer
from core.errors import SettingsError, TokenizerFileError
from core.export.run import export_events
from core.formats.byte_alphabet import encode_bytes
from core.fingerprint import fingerprint
from core.formats import load_tokenizer, save_tokenizer
from core.formats.common import ID_SLACK
from core.formats.tiktoken_ranks import rebuild_merge
from core.model import BPEModel, TrainingInfo
from core.pretokenize.coverage import PROBES, pattern_problem
from core.train.run import TrainingRun
from tests.core.formats.format_cases import SPECIAL, gpt2_model, train_small
from tests.data_paths import GPT2_MERGES, GPT2_VOCAB
from tests.hostile.model_cases import FILE_NAMES, LETTERS_PATTERN, ROUND_TRIP_TEXTS, seed_models

BYTES = {i: bytes([i]) for i in range(256)}
TINY = BPEModel(BYTES | {256: b"ab", 257: SPECIAL.encode()}, [(b"a", b"b")], [SPECIAL], name="tiny")


def refused(path: Path, *expected: str) -> str:
    """Load ``path``, expecting a one-line TokenizerFileError containing each of ``expected``."""
    with pytest.raises(TokenizerFileError) as caught:
        load_tokenizer(path)
    message = str(caught.value)
    assert "\n" not in message, message
    for part in expected:
        assert part in message, message
    return message


def saved(tmp_path: Path, model: BPEModel, fmt: str) -> Path:
    return save_tokenizer(model, tmp_path / FILE_NAMES[fmt], format=fmt)[0]


def edit_json(path: Path, edit) -> Path:
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def unverified(tmp_path: Path, model: BPEModel, edit) -> Path:
    """``model`` saved as a bpe-tui file, edited, and without its fingerprint (so the edit is accepted)."""

    def change(data: dict) -> None:
        data.pop("fingerprint")
        edit(data)

    return edit_json(saved(tmp_path, model, "bpe-tui"), change)


def with_pattern(tmp_path: Path, pattern: str) -> Path:
    return unverified(tmp_path, TINY, lambda d: d.__setitem__("pattern", pattern))


def edit_text(path: Path, old: str, new: str) -> Path:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------- numbers past Python's limit

HUGE = "9" * 5000


@pytest.mark.parametrize(
    "fmt, old, new",
    [
        ("bpe-tui", '"256":', f'"{HUGE}":'),
        ("bpe-tui", '"vocab_size": 258', f'"vocab_size": {HUGE}'),
        ("bpe-tui", '"version": 1,', f'"version": 1, "x": {HUGE},'),
        ("hf", '"ab": 256', f'"ab": {HUGE}'),
        ("hf", '"id": 257', f'"id": {HUGE}'),
        ("gpt2", '"ab": 256', f'"ab": {HUGE}'),
        ("tiktoken", "YWI= 256", f"YWI= {HUGE}"),
    ],
    ids=["native-key", "native-training", "native-extra", "hf-vocab", "hf-added", "gpt2-vocab", "rank"],
)
def test_numbers_of_thousands_of_digits(tmp_path: Path, fmt: str, old: str, new: str) -> None:
    """Python refuses to read an int of over 4,300 digits (a ValueError from json or int())."""
    model = replace(TINY, training=TrainingInfo(vocab_size=258))
    if fmt == "tiktoken":
        model = BPEModel(BYTES | {256: b"ab"}, [(b"a", b"b")])
    message = refused(edit_text(saved(tmp_path, model, fmt), old, new))
    assert "digits" in message or "far beyond" in message


# ---------------------------------------------------------------------------------------------- huge ids


def _with_id(tmp_path: Path, fmt: str, huge: int) -> Path:
    """A file of TINY whose token ``ab`` has id ``huge`` (its rank, for a rank file)."""
    if fmt == "tiktoken":
        lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)] + [f"YWI= {huge}"]
        path = tmp_path / "t.tiktoken"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path
    if fmt == "bpe-tui":
        return unverified(tmp_path, TINY, lambda d: d["vocab"].__setitem__(str(huge), d["vocab"].pop("256")))
    path = saved(tmp_path, TINY, fmt)
    if fmt == "hf":
        return edit_json(path, lambda d: d["model"]["vocab"].__setitem__("ab", huge))
    return edit_text(path, '"ab": 256', f'"ab": {huge}')


@pytest.mark.parametrize("huge", [10**30, 10**18, 2**31, 2**32 + 1], ids=["1e30", "1e18", "2^31", "2^32+1"])
@pytest.mark.parametrize("fmt", ["bpe-tui", "gpt2", "hf", "tiktoken"])
def test_huge_ids_are_refused_without_allocating(tmp_path: Path, fmt: str, huge: int) -> None:
    path = _with_id(tmp_path, fmt, huge)
    tracemalloc.start()
    try:
        message = refused(path, "far beyond")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20, f"{peak:,} bytes"
    assert f"{len(TINY.vocab) - 1:,} tokens" in message or "tokens" in message


def test_huge_special_token_id_in_hf_added_tokens(tmp_path: Path) -> None:
    path = edit_json(saved(tmp_path, TINY, "hf"), lambda d: d["added_tokens"][0].update(id=2**40, content="<|far|>"))
    refused(path, "far beyond")


def test_ids_may_leave_a_bounded_number_unused(tmp_path: Path) -> None:
    """Ids may skip up to ID_SLACK numbers (a rank file leaves its special tokens' ids free), no more."""
    n = len(TINY.vocab)
    top = n + ID_SLACK - 1
    assert load_tokenizer(_with_id(tmp_path, "bpe-tui", top)).vocab[top] == b"ab"
    refused(_with_id(tmp_path, "bpe-tui", top + 1), "far beyond", f"{n:,} tokens")
    # Our own rank file of a model with special tokens leaves their ids free, and loads.
    model = seed_models("tiktoken")[0]
    assert load_tokenizer(saved(tmp_path, model, "tiktoken")).vocab_size == model.vocab_size - 1


def test_sparse_huge_ids_in_memory_cost_no_memory() -> None:
    """A model built in Python may use any ids: encoding must not allocate a table up to the largest one."""
    vocab = BYTES | {2**40: b"\xe6\x97", 2**40 + 1: "日".encode(), 2**40 + 7: b"ab"}
    tokenizer = Tokenizer(vocab, [(b"\xe6", b"\x97"), (b"\xe6\x97", b"\xa5"), (b"a", b"b")])
    tracemalloc.start()
    try:
        ids = tokenizer.encode("日本語のテキスト、日本 ab " * 20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 2**40 + 1 in ids and 2**40 + 7 in ids and peak < 64 << 20


def test_export_refuses_ids_beyond_32_bits(tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("ab <|big|> ab", encoding="utf-8")
    model = BPEModel(BYTES | {256: b"ab", 2**32 + 3: b"<|big|>"}, [(b"a", b"b")], ["<|big|>"])
    with pytest.raises(SettingsError, match="32-bit") as caught:
        list(export_events(corpus, model, tmp_path / "ids.npy"))
    assert "\n" not in str(caught.value) and not (tmp_path / "ids.npy").exists()


# --------------------------------------------------------------------------- other values loaders choked on


@pytest.mark.parametrize("fmt", ["bpe-tui", "hf", "gpt2"])
def test_lone_surrogates_in_token_text(tmp_path: Path, fmt: str) -> None:
    path = saved(tmp_path, TINY, fmt)
    if fmt == "bpe-tui":
        path = unverified(tmp_path, TINY, lambda d: d.__setitem__("special_tokens", ["<\ud800>"]))
    elif fmt == "hf":
        edit_json(path, lambda d: d["added_tokens"][0].__setitem__("content", "<\ud800>"))
    else:
        edit_json(path, lambda d: d.__setitem__("<\ud800|>", d.pop(SPECIAL)))
    refused(path, "surrogate")


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d.__setitem__("pattern", "[\ud800]|[\\s\\S]"),
        lambda d: d.__setitem__("name", "\udfff"),
        lambda d: d.__setitem__("training", {"vocab_size": 300, "corpus_path": "c\ud800.txt"}),
    ],
    ids=["pattern", "name", "corpus-path"],
)
def test_lone_surrogates_in_what_a_native_file_keeps(tmp_path: Path, edit) -> None:
    """Text the model keeps must be writable again: a surrogate loaded fine, then failed the next save."""
    refused(unverified(tmp_path, TINY, edit), "surrogate")


def test_lone_surrogate_in_hf_vocab_key(tmp_path: Path) -> None:
    path = edit_json(saved(tmp_path, TINY, "hf"), lambda d: d["model"]["vocab"].__setitem__("\udcff", 300))
    refused(path, "surrogate")


@pytest.mark.parametrize(
    "edit, expected",
    [
        (lambda d: d["training"].__setitem__("vocab_size", float("inf")), "vocab_size"),
        (lambda d: d["training"].__setitem__("workers", -2), "workers"),
        (lambda d: d["training"].__setitem__("corpus_path", ["a"]), "corpus_path"),
        (lambda d: d["merges"][0].__setitem__(2, -5), "count"),
        (lambda d: d["merges"][0].__setitem__(2, 10**400), "count"),
        (lambda d: d["training"].__setitem__("corpus_bytes", 10**30), "corpus_bytes"),
        (lambda d: d["merges"][0].__setitem__(2, float("nan")), "count"),
        (lambda d: d.__setitem__("version", 0), "version"),
        (lambda d: d["vocab"].__setitem__("300", ""), "empty"),
    ],
    ids=["inf", "negative-workers", "list-path", "negative-count", "huge-count", "huge-bytes", "nan-count", "version-0",
         "empty-token"],
)
def test_native_values_of_the_wrong_kind(tmp_path: Path, edit, expected: str) -> None:
    refused(unverified(tmp_path, seed_models("bpe-tui")[0], edit), expected)


def test_hf_added_tokens_of_the_wrong_type(tmp_path: Path) -> None:
    refused(edit_json(saved(tmp_path, TINY, "hf"), lambda d: d.__setitem__("added_tokens", 5)), "added_tokens")


def test_hf_type_with_a_newline_stays_one_line(tmp_path: Path) -> None:
    refused(edit_json(saved(tmp_path, TINY, "hf"), lambda d: d["model"].__setitem__("type", "BPE\nWordPiece")))


def test_deeply_nested_vocab_json_through_from_files(tmp_path: Path) -> None:
    (tmp_path / "vocab.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    (tmp_path / "merges.txt").write_text("", encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="nested|JSON"):
        Tokenizer.from_files(tmp_path / "vocab.json", tmp_path / "merges.txt")


# ------------------------------------------------------------------------ patterns that do not cover text


@pytest.mark.parametrize(
    "pattern, expected",
    [
        (r"\w+", "drops ','"),
        (r"a*", "drops"),
        (r"\w+|\s+", "drops"),
        (r"(\w+)|\W+", "capturing group"),
        (r"(?P<word>\w+)|\W+", "capturing group"),
        (r"[^\x00]+", "U+0000"),
        (r".+", "U+000A"),
        ("(", "does not compile"),
        ("[z-a]", "does not compile"),
        (r"a\Kb|[^b]+|b", r"has \K"),
        (r"\D++|\S{2,}", "drops '1' (U+0031) from text such as 'aa1'"),  # only after other characters  # 'ab' at the start of a text lost its a; no probe starts so
    ],
)
def test_patterns_that_lose_text_are_refused(tmp_path: Path, pattern: str, expected: str) -> None:
    path = with_pattern(tmp_path, pattern)
    refused(path, "split pattern", expected)
    with pytest.raises(SettingsError, match="split pattern"):
        TrainingRun.from_text("hello world!", 300, [], workers=1, pattern=pattern)


def test_hf_split_on_words_only_keeps_the_text_between_them(tmp_path: Path) -> None:
    """Hugging Face's ``Isolated`` split makes a piece of the text between matches: nothing is dropped."""

    def split_words(data: dict) -> None:
        data["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {"Regex": r"\p{L}+"}

    tokenizer = Tokenizer.from_model(load_tokenizer(edit_json(saved(tmp_path, TINY, "hf"), split_words)))
    for text in ROUND_TRIP_TEXTS:
        assert tokenizer.decode(tokenizer.encode(text)) == text


@pytest.mark.parametrize("pattern", [r"\S+|\s+", LETTERS_PATTERN, r"\w+|\W+", r"[\s\S]", r"\w*|\W"])
def test_patterns_that_keep_text_load_and_round_trip(tmp_path: Path, pattern: str) -> None:
    path = with_pattern(tmp_path, pattern)
    tokenizer = Tokenizer.from_model(load_tokenizer(path))
    for text in ROUND_TRIP_TEXTS:
        assert tokenizer.decode(tokenizer.encode(text)) == text


def test_every_probe_is_free_of_surrogates_and_the_check_is_quick() -> None:
    import time

    assert all(text.encode("utf-8") for text in PROBES)
    started = time.monotonic()
    assert pattern_problem(r"\p{L}+|\p{N}+|[^\p{L}\p{N}]+|\S") is None
    assert time.monotonic() - started < 1.0


@pytest.mark.parametrize("pattern", [r"a{4294967294}|[\s\S]", r"(?:(?:a{1000}){1000}){1000}|\S", "x{" + "9" * 5000 + "}"])
def test_patterns_that_unroll_to_gigabytes_are_refused_before_compiling(tmp_path: Path, pattern: str) -> None:
    """regex builds ``a{4294967294}`` node by node: gigabytes, from a pattern of 14 characters."""
    import time

    path = with_pattern(tmp_path, pattern)
    started = time.monotonic()
    refused(path, "unroll to over 100,000 steps")
    assert time.monotonic() - started < 2


def test_a_pattern_that_backtracks_for_ever_is_refused_in_time() -> None:
    import time

    started = time.monotonic()
    problem = pattern_problem(r"(?:(?:\w|\W)+)+\$|[\s\S]")
    assert time.monotonic() - started < 10
    assert problem is None or "takes over" in problem


# ------------------------------------------------------------------------------ vocab and merges that differ


def _gpt2_pair(tmp_path: Path, merge_lines: int) -> Path:
    """GPT-2's vocab.json with its merges.txt cut after ``merge_lines`` lines (a cut at a line boundary)."""
    (tmp_path / "vocab.json").write_bytes(GPT2_VOCAB.read_bytes())
    lines = GPT2_MERGES.read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "merges.txt").write_text("".join(lines[:merge_lines]), encoding="utf-8")
    return tmp_path / "vocab.json"


def test_gpt2_merges_cut_short_is_refused_naming_the_counts(tmp_path: Path) -> None:
    path = _gpt2_pair(tmp_path, 1469)  # (the bundled merges.txt has no version line)
    refused(path, "vocab.json has 50,257 tokens but merges.txt makes only 1,469 of them", "48,531 are neither",
            "is merges.txt complete?")
    with pytest.raises(TokenizerFileError, match="is merges.txt complete"):
        Tokenizer.from_files(path, tmp_path / "merges.txt", [SPECIAL])


def test_whole_gpt2_still_loads_with_its_one_special_token() -> None:
    model = gpt2_model()
    assert model.special_tokens == [SPECIAL] and len(model.merges) == 50_000
    assert Tokenizer.from_model(model).encode(" world") == [995]


def test_hf_and_native_merges_cut_short(tmp_path: Path) -> None:
    model = seed_models("bpe-tui")[0]
    hf = edit_json(saved(tmp_path, model, "hf"), lambda d: d["model"].__setitem__("merges", d["model"]["merges"][:40]))
    refused(hf, "model.vocab has", "model.merges makes only 40 of them", "is model.merges complete?")
    refused(unverified(tmp_path, model, lambda d: d.__setitem__("merges", d["merges"][:40])), "makes only 40 of them")


def test_special_tokens_are_guessed_only_by_name(tmp_path: Path) -> None:
    spelled = {encode_bytes(bytes([b])): b for b in range(256)}
    base = spelled | {"ab": 256}
    (tmp_path / "merges.txt").write_text("#version: 0.2\na b\n", encoding="utf-8")
    (tmp_path / "vocab.json").write_text(json.dumps(base | {"<|eot|>": 257}), encoding="utf-8")
    assert load_tokenizer(tmp_path / "vocab.json").special_tokens == ["<|eot|>"]
    (tmp_path / "vocab.json").write_text(json.dumps(base | {"<eot>": 257}), encoding="utf-8")
    refused(tmp_path / "vocab.json", "named like special tokens but not marked as such (the first: '<eot>', id 257)")
    # An explicit list is the other way to name them.
    tokenizer = Tokenizer.from_files(tmp_path / "vocab.json", tmp_path / "merges.txt", ["<eot>"])
    assert tokenizer.encode("ab<eot>") == [256, 257]


def test_gpt2_save_refuses_special_tokens_it_could_not_read_back(tmp_path: Path) -> None:
    model = BPEModel(BYTES | {256: b"ab", 257: b"<s>"}, [(b"a", b"b")], ["<s>"], name="s")
    with pytest.raises(SettingsError, match="'<s>' would be not read back as a special token"):
        save_tokenizer(model, tmp_path / "gpt2", format="gpt2")
    assert not (tmp_path / "gpt2").exists()


# ----------------------------------------------------------------------------------------------- fingerprint


def test_fingerprint_null_wrong_type_or_renamed_is_refused(tmp_path: Path) -> None:
    def edited(edit) -> Path:
        """TINY with ``ab`` changed to ``ba``, so the recorded fingerprint no longer matches."""

        def change(data: dict) -> None:
            edit(data)
            data["vocab"]["256"], data["merges"] = "ba", [["b", "a", None]]

        return edit_json(saved(tmp_path, TINY, "bpe-tui"), change)

    refused(edited(lambda d: d.__setitem__("fingerprint", None)), "'fingerprint' must be", "delete the key")
    refused(edited(lambda d: d.__setitem__("fingerprint", 12345)), "'fingerprint' must be")
    refused(edited(lambda d: d.__setitem__("fingerprint", "0" * 64)), "fingerprint mismatch")
    refused(edited(lambda d: d.__setitem__("Fingerprint", d.pop("fingerprint"))), "unknown key 'Fingerprint'")


def test_fingerprint_verified_is_recorded(tmp_path: Path) -> None:
    path = saved(tmp_path, TINY, "bpe-tui")
    verified = load_tokenizer(path)
    assert verified.fingerprint_verified is True
    unverified = load_tokenizer(edit_json(path, lambda d: d.pop("fingerprint")))
    assert unverified.fingerprint_verified is False
    assert unverified == verified and fingerprint(unverified) == fingerprint(verified)
    assert load_tokenizer(saved(tmp_path, TINY, "hf")).fingerprint_verified is None
    assert TINY.fingerprint_verified is None


# ------------------------------------------------------------------------------- trained models still load


@pytest.mark.parametrize("fmt", ["bpe-tui", "gpt2", "hf", "tiktoken"])
def test_a_freshly_trained_tokenizer_passes_every_check(tmp_path: Path, fmt: str) -> None:
    model = train_small(vocab_size=400)
    assert load_tokenizer(saved(tmp_path, model, fmt)).merges == model.merges


# ----------------------------------------------------------------------------------- work that grows too fast


def test_a_rank_file_of_long_tokens_loads_quickly(tmp_path: Path) -> None:
    """Tokens of 2, 4, ... 65,536 ``a``s, each two halves: rebuilding merges by rescanning took hours."""
    import time

    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    lines += [f"{base64.b64encode(b'a' * 2**k).decode()} {255 + k}" for k in range(1, 17)]
    path = tmp_path / "long.tiktoken"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    started = time.monotonic()
    model = load_tokenizer(path)
    assert time.monotonic() - started < 20
    assert model.merges[-1] == (b"a" * 2**15, b"a" * 2**15)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(
    tokens=st.lists(st.binary(min_size=2, max_size=8).map(lambda b: bytes(97 + x % 3 for x in b)), max_size=14),
    text=st.binary(min_size=65, max_size=160).map(lambda b: bytes(97 + x % 3 for x in b)),
)
def test_long_tokens_rebuild_as_tiktoken_merges(tokens: list[bytes], text: bytes) -> None:
    """Tokens over 64 bytes go through the heap; it must reach the parts tiktoken's own loop reaches."""
    ranks = {bytes([b]): b for b in range(256)}
    for token in tokens:
        ranks.setdefault(token, len(ranks))
    for rank in (len(ranks) + 1, len(ranks) - 2):
        assert rebuild_merge(text, rank, ranks) == _rescanned(text, rank, ranks)


def _rescanned(token: bytes, rank: int, ranks: dict[bytes, int]) -> list[bytes]:
    """tiktoken's loop, written out: merge the leftmost lowest-ranked neighbouring pair until none is left."""
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 2:
        found = [(ranks[a + b], i) for i, (a, b) in enumerate(zip(parts, parts[1:])) if ranks.get(a + b, rank) < rank]
        if not found:
            break
        _, at = min(found)
        parts[at : at + 2] = [parts[at] + parts[at + 1]]
    return parts
