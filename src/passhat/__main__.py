"""``python -m passhat``: the ``passhat`` command (what the GitHub Action calls, with the
interpreter it installed passhat into)."""

from __future__ import annotations

import sys

from passhat.cli import main

if __name__ == "__main__":  # not when a tool imports this file
    sys.exit(main())
