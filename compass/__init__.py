"""compass: SIF, COMPASS-ABS and its baselines on an event-driven GPU-cluster simulator."""

__version__ = "0.1.0"
