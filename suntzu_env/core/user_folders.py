"""The folders the package keeps of its own in the user's home, outside every run folder."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_FOLDER = "suntzu-env"


def config_folder() -> Path:
    """`$XDG_CONFIG_HOME/suntzu-env` (default `~/.config/suntzu-env`): the user's own settings and keys."""
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / PACKAGE_FOLDER
