"""s2r-tutor: a cited study assistant for the Sim2Real concept card."""

from .models import Answer, Citation, Hit, Intent, Turn
from .tutor import Tutor

__version__ = "0.1.0"
__all__ = ["Answer", "Citation", "Hit", "Intent", "Turn", "Tutor", "__version__"]
