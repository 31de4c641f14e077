"""The caller's files: reading an input file, and checking an output path before slow work.

Each failure is one :class:`~gezel_knowledge.errors.InvalidInput` with a stable reason and the
path as its subject, so every command refuses a bad path the same way, and before a build or an
export has spent minutes on work it could not write.
"""

from __future__ import annotations

from pathlib import Path

from gezel_knowledge.errors import InvalidInput

__all__ = ["check_output_file", "check_output_folder", "read_input_bytes"]


def read_input_bytes(path: Path | str, what: str) -> bytes:
    """The bytes of the file at ``path``; ``InvalidInput`` (``unreadable``) naming ``what``
    (``"signing key"``, ``"trust key"``) and the path when it cannot be read."""
    file = Path(path)
    try:
        return file.read_bytes()
    except OSError as exc:
        raise InvalidInput(
            f"cannot read {what} {file}: {exc.strerror or exc}",
            reason="unreadable",
            subject=str(file),
        ) from None


def _check_ancestors(path: Path, what: str) -> None:
    """The nearest existing folder above ``path`` must be a folder, so it can be created."""
    for parent in path.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise InvalidInput(
                    f"cannot write {what} {path}: {parent} is not a folder",
                    reason="output-not-a-folder",
                    subject=str(parent),
                )
            return


def check_output_file(path: Path | str, what: str) -> Path:
    """``path`` as a file to (re)write: not a folder, and below a folder (or one that can be
    made); returns it absolute."""
    file = Path(path).absolute()
    if file.is_dir():
        raise InvalidInput(
            f"cannot write {what} {file}: it is a folder; name the file to write",
            reason="output-is-directory",
            subject=str(file),
        )
    _check_ancestors(file, what)
    return file


def check_output_folder(path: Path | str, what: str) -> Path:
    """``path`` as a folder to write into: a folder, or absent below a folder (or one that can
    be made); returns it absolute."""
    folder = Path(path).absolute()
    if folder.exists() and not folder.is_dir():
        raise InvalidInput(
            f"cannot write {what} into {folder}: it is not a folder",
            reason="output-not-a-folder",
            subject=str(folder),
        )
    _check_ancestors(folder, what)
    return folder
