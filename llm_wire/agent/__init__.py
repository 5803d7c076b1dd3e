"""Typed tools, their providers, descriptors and runner; output projection and run stores."""

from llm_wire.agent.projection import (
    HeuristicEstimator,
    OutputProjectionError,
    ProjectedOutput,
    ProjectionPolicy,
    ProjectionReport,
    TokenEstimator,
    project,
)

__all__ = [
    "HeuristicEstimator",
    "OutputProjectionError",
    "ProjectedOutput",
    "ProjectionPolicy",
    "ProjectionReport",
    "TokenEstimator",
    "project",
]
