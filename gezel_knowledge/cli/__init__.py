"""The ``gezel-knowledge`` command line: a thin shell over the Python API.

Each subcommand lives in a module ``gezel_knowledge.cli.cmd_<name>`` that exposes
``register(subparsers)``; the parser it adds sets ``handler`` to a function taking the parsed
arguments and returning an exit code. Typed errors, and operating-system errors (``os-error``),
become one ``error:`` line and exit code 1; usage errors exit with 2.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from gezk.errors import ReasonedError

__all__ = ["build_parser", "main"]


def _command_modules() -> dict[str, str]:
    """Subcommand name -> module name, for every ``cmd_*`` module (``cmd_index_search`` is
    ``index-search``)."""
    package = importlib.import_module(__name__)
    return {
        m.name[4:].replace("_", "-"): m.name
        for m in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name)
        if m.name.startswith("cmd_")
    }


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every registered subcommand, or just the one named ``only``.

    Registering one subcommand imports only its module, which keeps start-up quick: ``find``
    need not import the compiler, nor ``build`` the install manager.
    """
    parser = argparse.ArgumentParser(
        prog="gezel-knowledge",
        description="Build, verify, install, browse, search and cite .gezk knowledge catalogs.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = _command_modules()
    names = [only] if only in modules else list(modules)
    for name in names:
        module = importlib.import_module(f"{__name__}.{modules[name]}")
        module.register(subparsers)
    for command in subparsers.choices.values():
        if "--verbose" not in command._option_string_actions:
            command.add_argument(
                "--verbose",
                action="store_true",
                help="say more when something fails (model files, digests, places looked in)",
            )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the process exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(arguments[0] if arguments else None)
    args = parser.parse_args(arguments)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        code = handler(args)
    except ReasonedError as exc:
        details = getattr(exc, "details", None)  # ModelUnavailable: files, digests, places
        verbose = bool(details) and getattr(args, "verbose", False)
        more = " (--verbose for details)" if details and not verbose else ""
        print(f"gezel-knowledge: error: {exc} [{exc.reason}]{more}", file=sys.stderr)
        if verbose:
            print(f"gezel-knowledge: details: {details}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("gezel-knowledge: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a full disk, a refused write: the system's words, one line
        what = exc.strerror or str(exc)
        where = f": {exc.filename}" if exc.filename is not None else ""
        print(f"gezel-knowledge: error: {what}{where} [os-error]", file=sys.stderr)
        return 1
    return int(code)
