"""The performance model's lab: offline fitting, cross-validation and reports.

Nothing the product serves imports it (import-linter checks that); the served model reads
the parameters the lab writes (`shared/perfmodel/params/`).
"""
