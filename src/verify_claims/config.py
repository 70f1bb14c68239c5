"""`[tool.verify-claims]` in pyproject.toml: the defaults of a project's runs.

    [tool.verify-claims]
    derivations = "derivations"      # relative to the pyproject.toml
    report-dir = "reports"
    jobs = 2
    seed = 20250221
    timeout = 60                     # CPU seconds per claim
    prover-budget = 20               # CPU seconds of the symbolic attempt
    certify-budget = 20              # CPU seconds of certification
    wall-limit = 600                 # wall-clock seconds per claim (default 10 x timeout)

The nearest pyproject.toml with such a table, from the working directory upwards (as
pytest finds its configuration), is used; the command line overrides it.  An unknown key
or a value of the wrong type is an error naming the file and the key.  The CLI and the
pytest plugin read the same table, so they share the proof store and the settings.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

__all__ = ["Config", "ConfigError", "load_config", "find_config", "KEYS"]


class ConfigError(ValueError):
    """A [tool.verify-claims] table that cannot be used; the message names file and key."""


def _int(lo, hi=None):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"an integer, got {v!r}")
        if v < lo or (hi is not None and v > hi):
            raise ValueError(f"between {lo} and {hi}, got {v}" if hi else f"at least {lo}, got {v}")
        return v
    return check


def _seconds(v, unit="CPU seconds"):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"a number of {unit}, got {v!r}")
    if not math.isfinite(v) or not 0 < v <= 1e6:
        raise ValueError(f"a positive, finite number of {unit}, got {v}")
    return float(v)


def _wall_seconds(v):
    return _seconds(v, "wall-clock seconds")


def _score(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"a percentage, got {v!r}")
    if not math.isfinite(v) or not 0 <= v <= 100:
        raise ValueError(f"a percentage between 0 and 100, got {v}")
    return float(v)


def _path(v):
    if not isinstance(v, str) or not v:
        raise TypeError(f"a path (a string), got {v!r}")
    return v


def _bool(v):
    if not isinstance(v, bool):
        raise TypeError(f"true or false, got {v!r}")
    return v


# key in pyproject -> (argparse dest, check); paths are resolved against the file's directory
KEYS = {
    "derivations": ("derivations", _path),
    "report-dir": ("report_dir", _path),
    "cache-dir": ("cache_dir", _path),
    "jobs": ("jobs", _int(1, 1024)),
    "seed": ("seed", _int(0)),
    "samples": ("samples", _int(10, 100_000)),
    "precision": ("precision", _int(15, 10_000)),
    "timeout": ("timeout", _seconds),
    "prover-budget": ("prover_budget", _seconds),
    "certify-budget": ("certify_budget", _seconds),
    "wall-limit": ("wall_limit", _wall_seconds),
    "pdf": ("pdf", _bool),
    "html": ("html", _bool),
    "mutate": ("mutate", _bool),
    "min-mutation-score": ("min_mutation_score", _score),
}
_PATHS = ("derivations", "report-dir", "cache-dir")


@dataclass
class Config:
    """The validated table: argparse dests -> values (paths absolute), and where it came from."""

    values: dict = field(default_factory=dict)
    path: Path | None = None

    def get(self, dest, default=None):
        return self.values.get(dest, default)


def find_config(start=None) -> Path | None:
    """The nearest pyproject.toml with a [tool.verify-claims] table, from `start` upwards."""
    here = Path(start or Path.cwd()).resolve()
    for d in (here, *here.parents):
        candidate = d / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                continue  # someone else's broken file is not ours to report, unless named
            if isinstance(data.get("tool"), dict) and "verify-claims" in data["tool"]:
                return candidate
    return None


def load_config(path=None, start=None) -> Config:
    """Read and validate [tool.verify-claims] from `path` (or the nearest pyproject.toml
    that has the table; none: an empty Config)."""
    explicit = path is not None
    path = Path(path) if explicit else find_config(start)
    if path is None:
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file (--config names a pyproject.toml)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    table = (data.get("tool") or {}).get("verify-claims")
    if table is None:
        if explicit:
            raise ConfigError(f"{path}: has no [tool.verify-claims] table")
        return Config()
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.verify-claims] must be a table")
    values = {}
    for key, value in table.items():
        if key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f" (known keys: {', '.join(KEYS)})"
            raise ConfigError(f"{path}: [tool.verify-claims] has an unknown key {key!r}{hint}")
        dest, check = KEYS[key]
        try:
            value = check(value)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{path}: [tool.verify-claims] {key} must be {exc}") from None
        if key in _PATHS:
            value = str((path.parent / value).resolve())
        values[dest] = value
    return Config(values=values, path=path)
