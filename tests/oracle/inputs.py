"""The Python side of inputs.sh: a core this machine could not make is a
skip with its reason (exit 77), never a failure and never a silent pass."""
import os
import sys


def skip(reason):
    print("skip: " + reason)
    sys.exit(77)


def require_inputs(maker, core, *files):
    """Skips unless core and every file exist; a skip-reason file next to
    core says why it is missing."""
    reason = os.path.join(os.path.dirname(core), "skip-reason")
    if not os.path.exists(core) and os.path.exists(reason):
        skip(open(reason).read().strip())
    for f in (core,) + files:
        if not os.path.exists(f):
            skip(f + " does not exist (run " + maker + ")")
