"""Text the compiler reads: Markdown blocks, links and heading anchors, front matter, and the
YAML, TOML and JSON of configuration files (every parse of untrusted text goes through here)."""
