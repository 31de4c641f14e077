"""Catalog metadata: catalog.yaml, values given beside it, licence notices, the generated README."""
