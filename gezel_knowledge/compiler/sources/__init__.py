"""Sources: a Markdown tree or a document list read into a :class:`~.source.CatalogSource`, its
table of contents, links and checked inputs."""
