"""Exports of a catalog for other tools: the Parquet companion (spec section 14).

Each export needs an optional extra (``parquet``: pyarrow); names are imported on first use, and
a missing extra is a :class:`~gezel_knowledge.extras.MissingExtra` naming what to install.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_exports

if TYPE_CHECKING:
    from gezel_knowledge.export.parquet import ExportedFile, ParquetExport, export_parquet

_LAZY: dict[str, str] = {
    "ExportedFile": "gezel_knowledge.export.parquet",
    "ParquetExport": "gezel_knowledge.export.parquet",
    "export_parquet": "gezel_knowledge.export.parquet",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())

__all__ = ["ExportedFile", "ParquetExport", "export_parquet"]
