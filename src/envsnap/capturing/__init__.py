"""Run a capture: collectors, their orchestration, and the inputs a job declares.

- `collectors/`: one module per manifest section, registered in `collectors.COLLECTORS`.
- `run.py`: runs the selected collectors in isolation with time limits and builds a Manifest.
- `api.py`: the in-job `envsnap.capture(...)`; `inputs.py`, `declared.py`, `config.py`: what
  the job or its config file declares; `redact.py`, `datahash.py`, `datacache.py`: helpers.
"""
