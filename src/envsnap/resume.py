"""Public path of `envsnap.training.resume` (kept so that `from envsnap.resume import ...` works)."""

from envsnap.training.resume import load_training_state, save_training_state

__all__ = ["load_training_state", "save_training_state"]
