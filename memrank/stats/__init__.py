"""Paired tests and intervals that respect clusters, and tie-aware ranks (numpy only).

``memrank.paired`` and the board both use these, so a rank on the board and the paired reading
behind it come from the same test. Columnar: columns of values per task, NaN where absent, and
an integer cluster index per task. docs/methodology.md says which test applies when, and why.
"""

from memrank.stats.bounded import Bounds
from memrank.stats.clustered import (
    FEW_CLUSTERS,
    LEVEL,
    ClusteredReading,
    MeanInterval,
    cluster_codes,
    mean_interval,
    mean_intervals,
    paired_reading,
)
from memrank.stats.kernels import EXACT_MAX_CLUSTERS, mcnemar_exact
from memrank.stats.pairwise import (
    PairMatrices,
    PairTests,
    pair_spans,
    pairwise_p_values,
    pairwise_tests,
)
from memrank.stats.ranks import RankRange, tie_aware_ranks, wins

__all__ = [
    "EXACT_MAX_CLUSTERS",
    "FEW_CLUSTERS",
    "LEVEL",
    "Bounds",
    "ClusteredReading",
    "MeanInterval",
    "PairMatrices",
    "PairTests",
    "RankRange",
    "cluster_codes",
    "mcnemar_exact",
    "mean_interval",
    "mean_intervals",
    "paired_reading",
    "pair_spans",
    "pairwise_p_values",
    "pairwise_tests",
    "tie_aware_ranks",
    "wins",
]
