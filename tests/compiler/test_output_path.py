"""The output path of a build is checked before anything is read, chunked or embedded."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from gezel_knowledge.cli import main
from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.errors import InvalidInput
from tests.compiler.trees import CREATED_AT, build, write_tree


class _Counting(HashEmbedder):
    """The hash embedder, counting the passages it is asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.passages = 0

    def embed_passages(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.passages += len(texts)
        return super().embed_passages(texts)


def _source(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "src", {"t/a.md": "# A\n\nSome text.\n"})


def test_an_existing_folder_as_output_is_refused_before_embedding(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    embedder = _Counting()
    with pytest.raises(InvalidInput) as caught:
        build(_source(tmp_path), out, embedder=embedder)
    assert (caught.value.reason, caught.value.subject) == ("output-is-directory", str(out))
    assert embedder.passages == 0
    assert list(out.iterdir()) == []
    assert not list(tmp_path.glob(".out*"))  # no scratch folder was made either


def test_an_output_below_a_file_is_refused_before_embedding(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    embedder = _Counting()
    with pytest.raises(InvalidInput) as caught:
        build(_source(tmp_path), blocker / "sub" / "out.gezk", embedder=embedder)
    assert (caught.value.reason, caught.value.subject) == ("output-not-a-folder", str(blocker))
    assert embedder.passages == 0


def test_the_cli_says_so_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    source = _source(tmp_path)
    argv = ["build", str(source), "-o", str(out), "--embedder", "test-hash-embed@1"]
    assert main([*argv, "--created-at", CREATED_AT]) == 1
    err = capsys.readouterr().err.strip()
    assert err.endswith("[output-is-directory]")
    assert len(err.splitlines()) == 1
