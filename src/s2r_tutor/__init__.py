"""s2r-tutor: a cited study assistant for the Sim2Real concept card.

The public names are re-exported lazily, so `s2r-tutor --help` (which imports this package) does not
pay for NumPy, FAISS or pydantic models it will never use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"
__all__ = ["Answer", "Citation", "Hit", "Intent", "Turn", "Tutor", "__version__"]

_MODELS = {"Answer", "Citation", "Hit", "Intent", "Turn"}

if TYPE_CHECKING:
    from .models import Answer, Citation, Hit, Intent, Turn
    from .tutor import Tutor


def __getattr__(name: str):
    if name in _MODELS:
        from . import models

        return getattr(models, name)
    if name == "Tutor":
        from .tutor import Tutor

        return Tutor
    raise AttributeError(f"module 's2r_tutor' has no attribute {name!r}")
