"""Public path of `envsnap.training.trace` (kept so that `from envsnap.trace import ...` works)."""

from envsnap.training import trace as _home
from envsnap.training.trace import *  # noqa: F403

__all__ = _home.__all__
