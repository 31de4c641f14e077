"""The ``gezel-knowledge`` command line: a thin shell over the Python API.

Each subcommand lives in a module ``gezel_knowledge.cli.cmd_<name>`` that exposes
``register(subparsers)``; the parser it adds sets ``handler`` to a function taking the parsed
arguments and returning an exit code. Typed errors, and operating-system errors (``os-error``),
become one ``error:`` line and exit code 1; usage errors exit with 2. SIGINT and SIGTERM both
unwind the command (its clean-up runs) and exit with 130 and 143.

Start-up stays quick: ``--help`` and ``--version`` import no command module (the summaries come
from :data:`~gezel_knowledge.cli._commands.COMMANDS`), and running a command imports only its
own module.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import pkgutil
import signal
import sys
import threading
from collections.abc import Iterator, Sequence

from gezel_knowledge._version import __version__
from gezel_knowledge.cli._commands import COMMANDS
from gezk.errors import ReasonedError

__all__ = ["build_parser", "main"]


def _command_modules() -> dict[str, str]:
    """Subcommand name -> module name, in ``--help`` order: the table's commands first, then
    any ``cmd_*`` module the table does not list (``cmd_index_search`` is ``index-search``)."""
    package = importlib.import_module(__name__)
    found = {
        m.name[4:].replace("_", "-"): m.name
        for m in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name)
        if m.name.startswith("cmd_")
    }
    ordered = {name: found[name] for name in COMMANDS if name in found}
    return {**ordered, **found}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser: every subcommand complete, or only the one named ``only``.

    With ``only`` the other subcommands are listed by their summaries without importing their
    modules, so ``find`` need not import the compiler, nor ``--help`` anything at all. A name
    that is no command (``--help``) gives the listing alone.
    """
    parser = argparse.ArgumentParser(
        prog="gezel-knowledge",
        description="Build, verify, install, browse, search and cite .gezk knowledge catalogs.",
        epilog="Run 'gezel-knowledge COMMAND --help' for a command's options. Every command "
        "prints JSON with --json.",
    )
    parser.add_argument(
        "-V", "--version", action="version", version=f"gezel-knowledge {__version__}"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in _command_modules().items():
        if only is None or name == only or name not in COMMANDS:
            module = importlib.import_module(f"{__name__}.{module_name}")
            module.register(subparsers)
        else:
            subparsers.add_parser(name, help=COMMANDS[name], add_help=False)
    for command in subparsers.choices.values():
        _add_verbose(command, default=False)
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):  # memory's and cache's actions
                for sub in action.choices.values():
                    # Suppressed: an action's default must not undo the command's --verbose.
                    _add_verbose(sub, default=argparse.SUPPRESS)
    return parser


def _add_verbose(parser: argparse.ArgumentParser, *, default: object) -> None:
    if "--verbose" not in parser._option_string_actions:
        parser.add_argument(
            "--verbose",
            action="store_true",
            default=default,
            help="say more when something fails (model files, digests, places looked in)",
        )


class Terminated(BaseException):
    """SIGTERM arrived: raised where the command is, so its clean-up runs as for Ctrl-C."""


def _terminate(signum: int, frame: object) -> None:
    del frame
    raise Terminated(signum)


@contextlib.contextmanager
def _terminate_cleanly() -> Iterator[None]:
    """While a command runs, SIGTERM unwinds it like SIGINT does: ``finally`` blocks run, so a
    build's staging folder, an install's staging and partial files are removed or kept as an
    interrupted run leaves them. (By default SIGTERM ends the process where it stands.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the process exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(arguments[0] if arguments else "")
    args = parser.parse_args(arguments)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    # The commands say what the library logs (semantic search off...) as notes of their own.
    logging.getLogger("gezel_knowledge").addHandler(logging.NullHandler())
    try:
        with _terminate_cleanly():
            code = handler(args)
    except Terminated:
        print("gezel-knowledge: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
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
