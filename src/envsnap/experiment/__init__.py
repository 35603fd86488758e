"""Experiments on recorded conditions: run a job as another run did, and bisect the differences.

`conditions` says what of a manifest can be applied on this machine; `startup` is the hook that
applies torch flags and seeds inside the job; `packages` builds a venv of recorded versions;
`launch` runs a command under a set of conditions; `ddmin` and `bisect` search the differences.
"""
