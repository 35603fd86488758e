"""Placeholder: commands of this module are registered on `cli` when it is filled in."""

from __future__ import annotations
