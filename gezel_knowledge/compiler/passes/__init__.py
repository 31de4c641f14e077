"""The build's passes: documents listed and staged, bodies read, chunked and embedded (here, in
worker processes or on Ray), vectors cached and spilled, shards assigned."""
