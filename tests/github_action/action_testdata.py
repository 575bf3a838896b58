"""Helpers of the Action's tests: a hostile system name, and the commands' own ``--json``
documents as oracles (run in this process through :func:`passhat.cli.main`)."""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any

from passhat.cli import main as passhat_main

#: A system name that would break a Markdown table or inject HTML if printed raw.
HOSTILE = "a|b <script>x</script> *c*"


def passhat_json(*args: str) -> tuple[int, dict[str, Any]]:
    """``passhat ARGS --json`` in this process: its exit status and document."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = passhat_main([*args, "--json"])
    return code, json.loads(out.getvalue())
