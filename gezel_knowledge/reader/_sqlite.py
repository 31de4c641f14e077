"""Opening catalog databases: read-only, immutable, extension-free (spec section 5.1); and the
boundary where what a database's contents make SQLite or a row conversion raise becomes a typed
error.

A catalog database is part of a publisher's artifact and untrusted input, so it is opened with
``mode=ro&immutable=1`` (no locks, no journal, no writes), ``query_only``, ``trusted_schema =
OFF`` (a hostile schema cannot make SQLite call functions from views or triggers) and
``cell_size_check`` (corrupt pages are detected rather than read). The ``application_id`` and
``user_version`` are checked before any table is read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gezel_knowledge.errors import IntegrityFailure, NotFound
from gezk.ddl import APPLICATION_ID
from gezk.errors import ReasonedError

__all__ = ["catalog_errors", "open_catalog_database"]

# What a value of an unexpected storage class raises when a row is converted (``int('x')``,
# ``b"".join`` over text, ``float(b"...")``); SQLite keeps whatever type a writer stored.
_VALUE_ERRORS = (ValueError, TypeError, OverflowError)


def open_catalog_database(path: Path, schema_version: int) -> sqlite3.Connection:
    """Open one catalog database read-only and check its ``application_id``/``user_version``."""
    if not path.is_file():
        raise NotFound(
            f"catalog database {path} is missing", reason="missing-entry", subject=str(path)
        )
    uri = path.resolve().as_uri() + "?mode=ro&immutable=1"
    # check_same_thread=False: a Catalog serialises its own calls with a lock (see Catalog).
    conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
    try:
        conn.execute("PRAGMA query_only = ON")
        conn.execute("PRAGMA trusted_schema = OFF")
        conn.execute("PRAGMA cell_size_check = ON")
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        if app_id != APPLICATION_ID:
            raise IntegrityFailure(
                f"{path.name} is not a gezk catalog database (application_id {app_id:#x})",
                reason="not-a-catalog-database",
                subject=str(path),
            )
        user_version = conn.execute("PRAGMA user_version").fetchone()[0]
        if user_version != schema_version:
            raise IntegrityFailure(
                f"{path.name} has index schema {user_version}, the manifest says {schema_version}",
                reason="schema-version-mismatch",
                subject=str(path),
            )
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise IntegrityFailure(
            f"{path.name} is not a readable SQLite database: {exc}",
            reason="corrupt-database",
            subject=str(path),
        ) from exc
    except BaseException:
        conn.close()
        raise
    return conn


@contextmanager
def catalog_errors(subject: str) -> Iterator[None]:
    """Turn SQLite errors and stored values of the wrong type into :class:`IntegrityFailure`.

    ``corrupt-database`` for anything SQLite raises (a malformed page or FTS5 index, text that
    is not UTF-8), ``invalid-value`` for a value a row conversion cannot use. Typed errors pass
    through unchanged.
    """
    try:
        yield
    except ReasonedError:
        # Typed errors of either layer are input errors too (InvalidInput is a ValueError).
        raise
    except sqlite3.Error as exc:
        raise IntegrityFailure(
            f"{subject}: the catalog database cannot be read: {exc}",
            reason="corrupt-database",
            subject=subject,
        ) from exc
    except _VALUE_ERRORS as exc:
        raise IntegrityFailure(
            f"{subject}: a stored value does not fit its column ({type(exc).__name__}: {exc})",
            reason="invalid-value",
            subject=subject,
        ) from exc
