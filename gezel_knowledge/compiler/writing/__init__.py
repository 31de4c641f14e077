"""Writing: the router and shard databases, the manifest, smoke queries, signing."""
