"""Modules written by ``scripts/generate`` from the models (do not edit): the typed inputs (``inputs``), the
resource's property names and the settings' defaults (``fields``), the typed outputs (``outputs``), the native
provider's package schema (``schema.json``) and its names per object type (``schema_names``). They import
nothing of the package; ``scripts/generate --check`` fails when they drift.
"""
