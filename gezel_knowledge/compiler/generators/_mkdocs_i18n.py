"""mkdocs-static-i18n: the pages of the site's other languages, which the default language's
navigation never shows.

The plugin (``i18n`` in ``plugins``) builds one site per language; the catalog is the default
language's. Its languages are ``languages``, a list of ``{locale, default, ...}`` (1.x: the
default is the entry with ``default: true``, else the first) or a mapping of locales beside
``default_language`` (0.x). With ``docs_structure: suffix`` (the default) another language's
page is ``page.<locale>.md``; with ``folder``, every page under ``<locale>/`` at the top of
``docs_dir``. Those pages are left out as ``exclude_docs`` patterns would leave them out. A
language entry's own ``nav`` (1.x) is that language's navigation, in place of ``nav``: the
default language's is the catalog's (:func:`default_language_nav`).
"""

from __future__ import annotations

import re

from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._literate_nav import plugin_options
from gezel_knowledge.compiler.text.data import YamlNode

__all__ = ["default_language_nav", "other_language_patterns"]

_LOCALE = re.compile(r"[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{2,8})*\Z")


def _locales(options: dict[str, object]) -> tuple[str | None, list[str]]:
    """The default locale and every locale the plugin's options name."""
    languages = options.get("languages")
    default = config.string(options.get("default_language"))
    found: list[str] = []
    if isinstance(languages, list):
        for entry in languages:
            locale = config.string(config.mapping(entry).get("locale"))
            if locale is None:
                continue
            found.append(locale)
            if config.mapping(entry).get("default") is True and default is None:
                default = locale
        if default is None and found:
            default = found[0]
    elif isinstance(languages, dict):
        found = [str(k) for k in languages]
    return default, [f for f in found if _LOCALE.match(f)]


def other_language_patterns(plugins: object) -> list[str]:
    """``exclude_docs`` lines that leave out the pages of every language but the default
    one (none without the plugin, or when it names no default)."""
    options = plugin_options(plugins, "i18n")
    if options is None:
        return []
    default, locales = _locales(options)
    if default is None:
        return []
    others = [loc for loc in dict.fromkeys(locales) if loc != default]
    if config.string(options.get("docs_structure")) == "folder":
        return [f"/{loc}/" for loc in others]
    return [f"*.{loc}.{suffix}" for loc in others for suffix in ("md", "markdown")]


def _plugin_node(plugins: YamlNode | None, name: str) -> YamlNode | None:
    """The options node ``plugins`` (a list or a mapping) gives plugin ``name``."""
    entries: list[tuple[str, YamlNode]] = []
    if plugins is not None and isinstance(plugins.value, dict):
        entries = list(plugins.value.items())
    elif plugins is not None and isinstance(plugins.value, list):
        for item in plugins.value:
            if isinstance(item.value, dict) and len(item.value) == 1:
                entries += list(item.value.items())
    return next((node for key, node in entries if key.removeprefix("mkdocs-") == name), None)


def default_language_nav(plugins: YamlNode | None) -> YamlNode | None:
    """The ``nav`` the plugin's default language entry states (1.x: ``languages: [{locale:
    en, default: true, nav: [...]}]``), which the plugin builds that language with instead of
    ``nav``; ``None`` when it states none."""
    options = _plugin_node(plugins, "i18n")
    languages = (
        options.value.get("languages") if options and isinstance(options.value, dict) else None
    )
    if languages is None or not isinstance(languages.value, list):
        return None
    entries = [e.value for e in languages.value if isinstance(e.value, dict)]
    chosen = next(
        (e for e in entries if (e.get("default") or YamlNode(None, 0)).text() == "true"), None
    )
    chosen = chosen if chosen is not None else (entries[0] if entries else None)
    nav = chosen.get("nav") if chosen is not None else None
    return nav if nav is not None and isinstance(nav.value, list) else None
