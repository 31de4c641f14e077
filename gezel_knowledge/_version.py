"""The distribution's version, in the one module every layer may import.

The package face re-exports it as ``gezel_knowledge.__version__``; modules inside the package
import it from here, so none of them imports the face (which names every layer).
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
