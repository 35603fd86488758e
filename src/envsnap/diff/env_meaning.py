"""Environment variables by what they mean, not by prefix.

`TF_CLI_CONFIG_FILE` is Terraform's, not TensorFlow's; `TORCHINDUCTOR_CACHE_DIR` is a cache
location torch may set itself. A variable that names a location, a log level or another tool's
setting cannot change results, whatever prefix it shares with one that can.
"""

from __future__ import annotations

import re

# Locations that do change what runs: which libraries load, which topology NCCL assumes.
_ACTING_PATHS = frozenset(
    {"LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH", "NCCL_TOPO_FILE", "NCCL_GRAPH_FILE"}
)
_LOCATION = re.compile(
    r".*_(DIR|DIRS|PATH|FILE|HOME|ROOT|CACHE|LOG|LOGS|LOGDIR|PREFIX|SOCKET|URL|ENDPOINT|HOST"
    r"|ADDR|PORT|LOG_LEVEL|LOGLEVEL|VERBOSE|VERBOSITY|DEBUG_FILE)"
)
# Network interfaces and adapters a cluster's collectives use (NCCL_SOCKET_IFNAME,
# GLOO_SOCKET_IFNAME, NCCL_IB_HCA): they select an interface, not an algorithm (noise.md, "The
# run").
_INTERFACE = re.compile(r".*_(IFNAME|HCA)")
# Terraform's variables (https://developer.hashicorp.com/terraform/cli/config/environment-variables)
# and TensorFlow's log filter.
_OTHER_TOOLS = re.compile(
    r"TF_(CLI_\w+|LOG\w*|INPUT|VAR_\w+|DATA_DIR|WORKSPACE|IN_AUTOMATION|REGISTRY_\w+"
    r"|PLUGIN_CACHE\w*|IGNORE|STATE_PERSIST_INTERVAL|TOKEN_\w+|CPP_MIN_LOG_LEVEL|CPP_MAX_VLOG_LEVEL)"
)


def names_location(name: str) -> bool:
    """True for a variable whose value is a place on its machine (a directory, a search path,
    a file, a host or port), whether or not that place changes results."""
    return name in _ACTING_PATHS or _LOCATION.fullmatch(name) is not None


def cannot_act(name: str) -> bool:
    """True for a variable that names a location, a network interface, a log setting or another
    tool's setting."""
    if name in _ACTING_PATHS:
        return False
    return bool(
        _LOCATION.fullmatch(name) or _INTERFACE.fullmatch(name) or _OTHER_TOOLS.fullmatch(name)
    )
