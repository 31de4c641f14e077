"""Developer sessions: ``nox -s tests lint typecheck bench``."""

from __future__ import annotations

import pathlib

import nox

nox.options.sessions = ["lint", "typecheck", "tests"]
nox.options.reuse_existing_virtualenvs = True


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite."""
    session.install("-e", ".[test]")
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Lint with ruff; check the layer contracts with import-linter."""
    session.install("ruff>=0.5", "import-linter>=2.17")
    paths = ["gezk", "gezel_knowledge", "tests", "benchmarks", "noxfile.py"]
    session.run("ruff", "check", *paths)
    session.run("ruff", "format", "--check", *paths)
    # import-linter reads the source from the working directory; nothing is installed.
    session.run("lint-imports")


@nox.session
def typecheck(session: nox.Session) -> None:
    """Type-check both packages with mypy --strict."""
    session.install("-e", ".[dev]")
    session.run("mypy", "--strict", "gezk", "gezel_knowledge")


@nox.session
def bench(session: nox.Session) -> None:
    """Run every benchmark script with its default (quick) settings, with the peer libraries."""
    session.install("-e", ".[test,bench]")
    for script in sorted(pathlib.Path("benchmarks").glob("*.py")):
        if script.name.startswith("_"):
            continue
        session.run("python", str(script), *session.posargs)
