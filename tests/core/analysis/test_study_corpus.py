"""The study on a corpus of shards: the evaluation text it reads, and token counts equal to a joined ``.txt``."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from tests.data_paths import SAMPLES

from core.analysis.study import StudyFinished, StudyRun
from core.analysis.study_corpus import corpus_sample
from core.encode.tokenizer import Tokenizer
from core.errors import CorpusError
from core.train.run import TrainingRun

SPECIAL = "<|endoftext|>"


def documents() -> list[str]:
    """The English sample's paragraphs plus a Japanese one and an empty one: documents of every kind."""
    english = (SAMPLES / "english.txt").read_text(encoding="utf-8").split("\n\n")
    return [*english[:30], "", "日本語の文書です。", *english[30:]]


def write_jsonl(path: Path, docs: list[str]) -> Path:
    path.write_text("".join(json.dumps({"text": doc}) + "\n" for doc in docs), encoding="utf-8")
    return path


def finished(run: StudyRun):
    events = list(run.events())
    assert isinstance(events[-1], StudyFinished)
    return events[-1].study


def test_a_jsonl_study_counts_the_tokens_of_the_same_documents_in_a_joined_txt(tmp_path: Path) -> None:
    docs = documents()
    jsonl = write_jsonl(tmp_path / "docs.jsonl", docs)
    txt = tmp_path / "docs.txt"
    txt.write_text(SPECIAL.join(docs), encoding="utf-8")
    japanese = (SAMPLES / "japanese.txt").read_text(encoding="utf-8")
    studies = []
    for corpus in (jsonl, txt):
        sample = corpus_sample(corpus, [SPECIAL])
        studies.append(finished(StudyRun(corpus, [280, 400, 700], {"corpus": sample.text, "japanese": japanese},
                                         special_tokens=[SPECIAL], workers=1)))
    from_jsonl, from_txt = studies
    assert corpus_sample(jsonl, [SPECIAL]).text == txt.read_text(encoding="utf-8")
    assert [size.tokens for size in from_jsonl.sizes] == [size.tokens for size in from_txt.sizes]
    assert [size.coverage for size in from_jsonl.sizes] == [size.coverage for size in from_txt.sizes]
    # ... and both are what a tokenizer trained on the .txt to that size gives, separators included.
    for size in from_jsonl.sizes:
        run = TrainingRun(txt, size.vocab, [SPECIAL], workers=1)
        for _ in run.events():
            pass
        tokenizer = Tokenizer.from_model(run.result())
        assert size.tokens["corpus"] == len(tokenizer.encode(SPECIAL.join(docs), allowed_special="all"))
        assert size.tokens["japanese"] == len(tokenizer.encode(japanese))


def test_without_a_special_token_each_document_is_encoded_on_its_own(tmp_path: Path) -> None:
    docs = ["low low", "lo", "w lower"]
    shards = tmp_path / "shards"
    shards.mkdir()
    write_jsonl(shards / "a.jsonl", docs[:2])
    with gzip.open(shards / "b.jsonl.gz", "wt", encoding="utf-8") as handle:
        handle.write(json.dumps({"text": docs[2]}) + "\n")
    sample = corpus_sample(shards)
    assert sample.text == tuple(docs) and sample.bytes == 16 and not sample.capped
    study = finished(StudyRun(shards, [258], {"corpus": sample.text}, workers=1))
    run = TrainingRun(shards, 258, [], workers=1)
    for _ in run.events():
        pass
    tokenizer = Tokenizer.from_model(run.result())
    assert study.sizes[0].tokens["corpus"] == sum(len(tokenizer.encode(doc)) for doc in docs)
    # Merges "lo", then "low". Apart: low ␣ low | lo | w ␣ low e r = 9 tokens; joined, "lo" + "w" would make
    # the pre-token " lowlow" and one token fewer.
    assert study.sizes[0].tokens["corpus"] == 9 and len(tokenizer.encode("".join(docs))) == 8


def test_the_cap_keeps_whole_documents_and_cuts_only_a_first_document_too_long(tmp_path: Path) -> None:
    jsonl = write_jsonl(tmp_path / "a.jsonl", ["aaaa", "bb", "cc"])
    # "aaaa" + "<|x|>" + "bb" is 11 bytes; one more separator and document would be 18.
    assert corpus_sample(jsonl, ["<|x|>"], max_bytes=11).text == "aaaa<|x|>bb"
    assert corpus_sample(jsonl, ["<|x|>"], max_bytes=17).capped
    assert not corpus_sample(jsonl, ["<|x|>"], max_bytes=18).capped
    long = write_jsonl(tmp_path / "b.jsonl", ["日本語", "x"])
    cut = corpus_sample(long, max_bytes=7)  # 7 bytes end inside 語: the character is left out
    assert (cut.text, cut.bytes, cut.capped) == (("日本",), 6, True)


def test_a_text_file_is_read_whole_below_the_cap_and_capped_above_it(tmp_path: Path) -> None:
    text = (SAMPLES / "mixed.txt").read_text(encoding="utf-8")
    assert corpus_sample(SAMPLES / "mixed.txt").text == (text,)
    data = text.encode("utf-8")
    # Text has no record to end at: it is cut where the cap falls, back to the start of a character.
    for cap in range(90, 140):
        small = corpus_sample(SAMPLES / "mixed.txt", max_bytes=cap)
        end = cap
        while data[end] & 0xC0 == 0x80:
            end -= 1
        assert (small.text, small.bytes, small.capped) == ((data[:end].decode(),), end, True), cap


def test_bad_records_fail_as_training_fails_or_are_skipped_and_counted(tmp_path: Path) -> None:
    jsonl = tmp_path / "bad.jsonl"
    jsonl.write_text('{"text": "one"}\nnot json\n{"body": "two"}\n{"text": "three"}\n', encoding="utf-8")
    with pytest.raises(CorpusError) as from_sample:
        corpus_sample(jsonl)
    with pytest.raises(CorpusError) as from_training:
        for _ in TrainingRun(jsonl, 260, [], workers=1).events():
            pass
    assert str(from_sample.value) == str(from_training.value)
    assert "line 2" in str(from_sample.value) and "skip bad records" in str(from_sample.value)
    skipped = corpus_sample(jsonl, [SPECIAL], skip_bad_records=True)
    assert skipped.text == f"one{SPECIAL}three" and skipped.skipped.count == 2


def test_the_text_field_names_the_field(tmp_path: Path) -> None:
    jsonl = tmp_path / "a.jsonl"
    jsonl.write_text('{"body": "hello"}\n{"body": "there"}\n', encoding="utf-8")
    assert corpus_sample(jsonl, [SPECIAL], text_field="body").text == f"hello{SPECIAL}there"
    study = finished(StudyRun(jsonl, [257, 258], {"corpus": "hello"}, special_tokens=[SPECIAL], workers=1,
                              text_field="body"))
    assert [size.vocab for size in study.sizes] == [257, 258]
