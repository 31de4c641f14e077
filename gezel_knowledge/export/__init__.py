"""Exports of a catalog for other tools: the Parquet companion (spec section 14).

Each export needs an optional extra (``parquet``: pyarrow); names are imported on first use, and
a missing extra is a :class:`~gezel_knowledge.extras.MissingExtra` naming what to install.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_face

if TYPE_CHECKING:
    from gezel_knowledge.export.parquet import ExportedFile as ExportedFile
    from gezel_knowledge.export.parquet import ParquetExport as ParquetExport
    from gezel_knowledge.export.parquet import export_parquet as export_parquet
else:
    __getattr__, __dir__, __all__ = lazy_face(
        __name__,
        globals(),
        {
            "gezel_knowledge.export.parquet": (
                "ExportedFile",
                "ParquetExport",
                "export_parquet",
            ),
        },
    )
