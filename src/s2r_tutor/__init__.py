"""s2r-tutor: a cited study assistant for the Sim2Real concept card.

The public names are re-exported lazily, so `s2r-tutor --help` (which imports this package) does not
pay for NumPy, FAISS or pydantic models it will never use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .lazy import lazy_exports

__version__ = "0.1.0"
__all__ = ["Answer", "Citation", "Hit", "Intent", "Turn", "Tutor", "__version__"]

# name -> the submodule that defines it
_EXPORTS = {**{name: "models" for name in ("Answer", "Citation", "Hit", "Intent", "Turn")}, "Tutor": "tutor"}

if TYPE_CHECKING:
    from .models import Answer, Citation, Hit, Intent, Turn
    from .tutor import Tutor


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
