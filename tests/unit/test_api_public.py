"""The public API stays callable however the package's modules were imported."""

from __future__ import annotations

import subprocess
import sys


def test_capture_is_callable_twice_after_the_capture_machinery_is_imported() -> None:
    """A submodule named like the function would shadow `envsnap.capture`; none may."""
    code = (
        "import envsnap, envsnap.capturing, envsnap.api\n"
        "first = envsnap.capture(only=['python'])\n"
        "second = envsnap.capture(only=['python'])\n"
        "assert first.python is not None and second.python is not None\n"
        "print(callable(envsnap.capture), callable(envsnap.load))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True True"
