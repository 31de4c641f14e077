"""The heading slug rule an MkDocs site configures: ``markdown_extensions`` ``toc``'s
``slugify`` and ``separator``.

``slugify`` names a Python function with a YAML tag, which is read, never imported:
``!!python/name:markdown.extensions.toc.slugify_unicode`` (Python-Markdown's Unicode slugs),
``!!python/name:pymdownx.slugs.uslugify`` and its siblings (``uslugify_cased``, ``gfm``, the
``_encoded`` forms), and ``!!python/object/apply:pymdownx.slugs.slugify`` with ``kwds``
(``case``, ``normalize``, ``percent_encode``). A function this module does not know leaves
Python-Markdown's default in place.
"""

from __future__ import annotations

from gezel_knowledge.compiler.text.anchors import SlugRule, SlugStyle
from gezel_knowledge.compiler.text.data import YamlNode

__all__ = ["slug_function_rule", "toc_slug_rule"]

_TOC_NAMES = ("toc", "markdown.extensions.toc")
_PYTHON_NAME = "tag:yaml.org,2002:python/name:"
_PYTHON_APPLY = "tag:yaml.org,2002:python/object/apply:"
# pymdownx.slugs' fixed functions, by the case each applies (percent encoding changes how an
# anchor is written, not which heading a decoded link names).
_PYMDOWNX_CASES = {
    "uslugify": "lower",
    "uslugify_encoded": "lower",
    "uslugify_cased": "none",
    "uslugify_cased_encoded": "none",
    "gfm": "lower-ascii",
    "gfm_encoded": "lower-ascii",
}


def _toc_options(extensions: YamlNode | None) -> dict[str, YamlNode] | None:
    """The ``toc`` extension's options in ``markdown_extensions`` (a list of names and
    single-key mappings, or one mapping), or ``None`` when it configures none."""
    if extensions is None:
        return None
    entries: list[tuple[str, YamlNode]] = []
    if isinstance(extensions.value, dict):
        entries = list(extensions.value.items())
    elif isinstance(extensions.value, list):
        for item in extensions.value:
            if isinstance(item.value, dict) and len(item.value) == 1:
                entries += list(item.value.items())
    found = None
    for name, options in entries:
        if name in _TOC_NAMES and isinstance(options.value, dict):
            found = options.value  # a later entry's options win, as Python-Markdown's do
    return found


def toc_slug_rule(extensions: YamlNode | None) -> SlugStyle | SlugRule:
    """The slug rule of a site whose ``markdown_extensions`` node is ``extensions``:
    Python-Markdown's default (``python-markdown``) unless ``toc`` configures another."""
    options = _toc_options(extensions)
    if options is None:
        return "python-markdown"
    separator_node = options.get("separator")
    separator = separator_node.text() if separator_node is not None else None
    return slug_function_rule(options.get("slugify"), separator if separator else "-")


def slug_function_rule(function: YamlNode | None, separator: str = "-") -> SlugStyle | SlugRule:
    """The slug rule a ``slugify`` function node names (a YAML tag, never imported) with
    ``separator``: Python-Markdown's default when it names none this module knows."""
    tag = function.tag if function is not None else None
    rule: SlugRule | None = None
    if tag is not None and tag.startswith(_PYTHON_NAME):
        name = tag.removeprefix(_PYTHON_NAME)
        module, _, short = name.rpartition(".")
        if module == "markdown.extensions.toc" and short in ("slugify", "slugify_unicode"):
            rule = SlugRule("python-markdown", unicode=short == "slugify_unicode")
        elif module == "pymdownx.slugs" and short in _PYMDOWNX_CASES:
            rule = SlugRule("pymdownx", case=_PYMDOWNX_CASES[short])
    elif tag is not None and tag.removeprefix(_PYTHON_APPLY) == "pymdownx.slugs.slugify":
        assert function is not None
        kwds = function.value.get("kwds") if isinstance(function.value, dict) else None
        values = kwds.value if kwds is not None and isinstance(kwds.value, dict) else {}
        case = values["case"].text() if "case" in values else None
        form = values["normalize"].text() if "normalize" in values else None
        rule = SlugRule("pymdownx", case=case or "none", normalize=form or "NFC")
    if rule is None:
        return "python-markdown" if separator == "-" else SlugRule(separator=separator)
    return SlugRule(rule.family, rule.unicode, rule.case, rule.normalize, separator)
