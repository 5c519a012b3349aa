"""Cluster quotes: bills of materials for multi-GPU builds, stored and recomputed."""
