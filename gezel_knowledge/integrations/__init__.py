"""Seams for other tools: retrievers for LangChain, LlamaIndex and Haystack, and an MCP server.

Each framework module imports its framework when it is imported, behind an optional extra
(``pip install 'gezel-knowledge[langchain]'``, ``[llama-index]``, ``[haystack]``, ``[mcp]``);
without the extra, importing it raises :class:`~gezel_knowledge.extras.MissingExtra` naming what
to install. This package itself imports none of them.

- :mod:`.langchain`, :mod:`.llama_index`, :mod:`.haystack`: ``GezelRetriever``, the framework's
  own retriever type over a catalog, the installed catalogs or a search.
- :mod:`.mcp`: ``gezel-knowledge mcp``, the catalogs and memory as tools for an agent.
- :mod:`.tools`: what those tools do, as plain functions returning budgeted, framed text.
- :mod:`.passages` and :mod:`.sources`: the one mapping of a hit to a retrieved passage, and
  the one resolution of what a retriever searches.
"""
