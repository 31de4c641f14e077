"""Transcripts and image descriptions (issue 16 item 13): optional enrichment providers beside
the summarizer and the image embedder; keyword search finds a file by its transcript."""

from __future__ import annotations

from pathlib import Path

import pytest

from gezel_knowledge.indexes import ContentIndex, Describer, Transcriber, index_workspace
from gezel_knowledge.indexes._discover import classify
from tests.indexes.helpers import ScriptedDescriber, ScriptedTranscriber

WAV = b"RIFF\x00\x00\x00\x00WAVEfmt " + bytes(range(64)) + b"SPEECH: the quarterly budget review"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(32)) + b"CAPTION: a red lighthouse on a cliff"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "recordings").mkdir(parents=True)
    (root / "recordings" / "meeting.wav").write_bytes(WAV)
    (root / "photo.png").write_bytes(PNG)
    (root / "notes.md").write_text("# Notes\n\nNothing about money here.\n")
    return root


def _search(root: Path, home: Path, query: str) -> list[str]:
    with ContentIndex(root, home=home) as index:
        return [h.document_id for h in index.search(query, mode="keyword").hits]


@pytest.mark.parametrize("name", ["a.mp3", "a.wav", "a.flac", "a.ogg", "a.m4a", "a.opus"])
def test_audio_files_are_their_own_class(name: str) -> None:
    assert classify(name)[0] == "audio"


def test_the_test_doubles_answer_the_protocols() -> None:
    transcriber: Transcriber = ScriptedTranscriber()
    describer: Describer = ScriptedDescriber()
    assert transcriber("x.wav", WAV) == " the quarterly budget review"
    assert describer("x.png", PNG) == " a red lighthouse on a cliff"


def test_without_providers_audio_and_images_are_found_by_name_only(
    workspace: Path, tmp_path: Path
) -> None:
    index_workspace(workspace, home=tmp_path / "home")
    assert _search(workspace, tmp_path / "home", "meeting") == ["recordings/meeting.wav"]
    assert _search(workspace, tmp_path / "home", "quarterly budget") == []
    assert _search(workspace, tmp_path / "home", "lighthouse") == []


def test_keyword_search_finds_a_file_by_its_transcript_and_description(
    workspace: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    transcriber, describer = ScriptedTranscriber(), ScriptedDescriber()
    report = index_workspace(workspace, home=home, transcriber=transcriber, describer=describer)
    assert report.enrichment is not None
    assert (report.enrichment.audio_transcribed, report.enrichment.images_described) == (1, 1)
    assert transcriber.calls == ["recordings/meeting.wav"]
    assert describer.calls == ["photo.png"]
    with ContentIndex(workspace, home=home) as index:
        hit = index.search("quarterly budget", mode="keyword").hits[0]
    assert hit.document_id == "recordings/meeting.wav"
    assert hit.text == "the quarterly budget review"
    assert hit.signal("name") is not None
    assert _search(workspace, home, "lighthouse") == ["photo.png"]


def test_a_file_is_transcribed_once_per_content(workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    transcriber = ScriptedTranscriber()
    index_workspace(workspace, home=home, transcriber=transcriber)
    index_workspace(workspace, home=home, transcriber=transcriber)
    assert transcriber.calls == ["recordings/meeting.wav"]
    (workspace / "recordings" / "meeting.wav").write_bytes(WAV + b" and the hiring plan")
    index_workspace(workspace, home=home, transcriber=transcriber)
    assert transcriber.calls == ["recordings/meeting.wav"] * 2
    assert _search(workspace, home, "hiring plan") == ["recordings/meeting.wav"]
