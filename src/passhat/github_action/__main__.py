"""``python -m passhat.github_action``: the GitHub Action's step (see :mod:`.run`)."""

from __future__ import annotations

import sys

from passhat.github_action.run import main

if __name__ == "__main__":  # not when a tool imports this file
    sys.exit(main())
