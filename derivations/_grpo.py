"""Definitions shared by the derivation modules (a helper: not scanned for claims).

Section 1, Eq. (2): group mean, population std and the normalised advantage, with and
without the paper's convention A_i = 0/0 := 0 when all rewards of the group are equal.
They live in the installed package ``grpo_formulas`` (reusable by any derivations
directory); this file keeps the names the modules import.
"""

from grpo_formulas.advantage import advantage_with_ties, all_equal, mean, std
from grpo_formulas.advantage import normalised_advantage as advantage

# the names the derivation modules import (re-exported from grpo_formulas or defined here)
__all__ = ["advantage", "advantage_with_ties", "all_equal", "mean", "std"]
