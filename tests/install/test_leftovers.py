"""What a killed install leaves (kill -9 during extraction or validation, a refused download)
is removed at the next install and by ``status --check``, which report it (issue 17 item 5)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.install import KnowledgeHome
from gezel_knowledge.install.staging import staging_directory, sweep_staging
from gezel_knowledge.install.status import home_status

_KILLED_AT = textwrap.dedent(
    """
    import os, signal, sys
    from gezel_knowledge.install import KnowledgeHome

    def progress(event):
        if event.step == sys.argv[3]:
            os.kill(os.getpid(), signal.SIGKILL)

    KnowledgeHome(sys.argv[1]).install(sys.argv[2], progress=progress)
    """
)


def _kill_install(home: Path, archive: Path, step: str, tmp_path: Path) -> None:
    """Run an install in another process that is killed with SIGKILL at ``step``."""
    script = tmp_path / "killed.py"
    script.write_text(_KILLED_AT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), str(home), str(archive), step],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr


def _staging(home: KnowledgeHome) -> list[str]:
    folder = home.staging_dir
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")
@pytest.mark.parametrize("step", ["validate", "publish"])
def test_a_killed_install_leaves_staging_that_the_next_install_removes(
    archive_factory: Any, tmp_path: Path, step: str
) -> None:
    # Before: the whole staging copy stayed in knowledge/.staging and nothing removed it.
    archive = archive_factory()
    home = KnowledgeHome(tmp_path / "home")
    _kill_install(home.root, archive, step, tmp_path)
    left = [n for n in _staging(home) if not n.endswith(".lock")]
    assert len(left) == 1
    result = home.install(archive)
    assert result.status == "installed"
    assert result.cleaned == (f".staging/{left[0]}",)
    assert _staging(home) == []


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")
def test_a_version_published_but_never_registered_is_removed(
    archive_factory: Any, tmp_path: Path
) -> None:
    # Killed between the rename into place and the registry write (under the registry lock).
    home = KnowledgeHome(tmp_path / "home")
    first = home.install(archive_factory())
    archive = archive_factory(version="2.0.0", n_docs=9)
    _kill_install(home.root, archive, "register", tmp_path)
    (orphan,) = (home.knowledge_dir / "tester" / "demo" / "2.0.0").iterdir()
    assert home.catalog("demo").active == first.version
    again = home.install(archive_factory())
    assert again.status == "unchanged"
    # The staging directory it renamed the catalog out of is left too.
    assert [c for c in again.cleaned if not c.startswith(".staging/")] == [
        f"tester/demo/2.0.0/{orphan.name}"
    ]
    assert not orphan.parent.exists()
    assert first.path.is_dir()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")
def test_status_check_removes_and_reports_leftovers(
    archive_factory: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = archive_factory()
    home = KnowledgeHome(tmp_path / "home")
    _kill_install(home.root, archive, "validate", tmp_path)
    (staged,) = [n for n in _staging(home) if not n.endswith(".lock")]
    downloads = home.downloads_dir
    downloads.mkdir(parents=True)
    (downloads / "a.partial").write_bytes(b"")  # a refused download of an older version
    (downloads / "a.meta.json").write_text("{}")
    (downloads / "b.meta.json").write_text("{}")  # its partial is gone
    (downloads / "c.partial").write_bytes(b"x" * 10)  # resumable: kept
    (downloads / "c.meta.json").write_text('{"url": "http://x/c.gezk", "total": 20}')
    grave = home.trash_dir / "old-version-1234"
    (grave / "index").mkdir(parents=True)
    os.utime(grave, (1, 1))
    assert home_status(home).cleaned == ()  # without --check nothing is touched
    assert main(["status", "--check", "--home", str(home.root)]) == 0
    out = capsys.readouterr().out
    for name in (
        f".staging/{staged}",
        ".trash/old-version-1234",
        ".downloads/a.partial",
        ".downloads/a.meta.json",
        ".downloads/b.meta.json",
    ):
        assert f"removed leftover {name}" in out
    assert _staging(home) == []
    assert sorted(p.name for p in downloads.iterdir() if p.suffix != ".lock") == [
        "c.meta.json",
        "c.partial",
    ]
    assert not grave.exists()
    assert home_status(home, check=True).cleaned == ()


def test_a_staging_directory_in_use_is_not_removed(tmp_path: Path) -> None:
    folder = tmp_path / ".staging"
    with staging_directory(folder, "demo") as live:
        (live / "file").write_text("busy")
        killed = folder / "demo-0123456789ab"
        killed.mkdir()
        assert sweep_staging(folder) == [killed.name]
        assert live.exists()
    assert list(folder.iterdir()) == []
