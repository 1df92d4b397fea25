"""Where states written by 0.1.0 and 0.2.0 find the dynamic provider.

A dynamic provider is pickled into the state by reference to its module: those states name
``pulumi_modelarts.provider.TrainingJobProvider``. The class lives in ``frontends.dynamic``; this name keeps
old states working.
"""

from __future__ import annotations

from .frontends.dynamic import TrainingJobProvider

__all__ = ["TrainingJobProvider"]
