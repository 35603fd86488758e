"""The public API stays callable however the package's modules were imported."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.slow
def test_capture_is_callable_twice_after_the_capture_machinery_is_imported() -> None:
    """A submodule named like the function would shadow `envsnap.capture`; none may."""
    code = (
        "import envsnap, envsnap.capturing.run, envsnap.capturing.api\n"
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


def test_public_module_paths_name_the_same_objects_as_their_homes() -> None:
    """`envsnap.seeding`, `envsnap.trace` and `envsnap.resume` are the documented import paths."""
    import envsnap.resume
    import envsnap.seeding
    import envsnap.trace
    from envsnap.training import resume, seeding, trace

    assert envsnap.seeding.SeedManager is seeding.SeedManager
    assert envsnap.trace.TraceRecorder is trace.TraceRecorder
    assert envsnap.resume.save_training_state is resume.save_training_state
    assert set(envsnap.seeding.__all__) == set(seeding.__all__)
    assert set(envsnap.trace.__all__) == set(trace.__all__)
