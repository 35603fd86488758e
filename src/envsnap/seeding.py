"""Public path of `envsnap.training.seeding` (kept so that `from envsnap.seeding import ...` works)."""

from envsnap.training import seeding as _home
from envsnap.training.seeding import *  # noqa: F403

__all__ = _home.__all__
