"""Material for MkDocs' ``blog`` plugin: its posts, which ``nav`` never lists, placed where the
site shows them.

The plugin (``blog`` or ``material/blog`` in ``plugins``) builds every Markdown file under
``post_dir`` (``{blog}/posts``, ``blog_dir`` defaulting to ``blog``) as a post, except drafts
(front matter ``draft: true``) unless its ``draft`` option is on. The blog's index page
(``blog_dir``'s ``index.md``) lists them newest first, pinned posts (``pin: true``) before the
rest; posts of one date keep MkDocs' file order. So the posts follow the index page, in that
order, in the section that holds it (the root when ``nav`` does not list it).
"""

from __future__ import annotations

import calendar
import re
from pathlib import Path

from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import Context
from gezel_knowledge.compiler.generators._toc_slugs import slug_function_rule
from gezel_knowledge.compiler.generators._tree import front
from gezel_knowledge.compiler.generators.outline import OutlinePage, OutlineSection
from gezel_knowledge.compiler.text.anchors import slugify
from gezel_knowledge.compiler.text.data import YamlNode, read_text_file
from gezel_knowledge.compiler.text.frontmatter import split_front_matter

__all__ = ["place_posts", "post_urls"]

_DATE_TOKEN = re.compile(r"y+|M+|d+|'[^']*'|[A-Za-z]|[^A-Za-z']+")
_H1 = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)


def _folder(template: object, default: str, blog: str) -> str:
    """A configured folder (``{blog}`` standing for ``blog_dir``), without outer slashes."""
    text = config.string(template) or default
    return text.replace("{blog}", blog).strip("/")


def _created(value: object) -> str:
    """A post's creation date as sortable text: ``date``, or ``date.created``."""
    if isinstance(value, dict):
        value = value.get("created")
    return str(value) if value is not None else ""


def _holder(section: OutlineSection, rel: str) -> OutlineSection | None:
    """The section whose pages include ``rel``, searched depth first."""
    for child in section.children:
        if isinstance(child, OutlinePage) and child.path == rel:
            return section
        if isinstance(child, OutlineSection):
            found = _holder(child, rel)
            if found is not None:
                return found
    return None


def _listed(section: OutlineSection) -> set[str]:
    pages = {c.path for c in section.children if isinstance(c, OutlinePage)}
    for child in section.children:
        if isinstance(child, OutlineSection):
            pages |= _listed(child)
    return pages


def place_posts(ctx: Context, options: dict[str, object], root: OutlineSection) -> None:
    """Append the blog's posts to the section of ``root`` holding its index page (see the
    module docstring); ``options`` are the plugin's."""
    if options.get("enabled") is False:
        return
    blog = _folder(options.get("blog_dir"), "blog", "blog")
    posts = _folder(options.get("post_dir"), "{blog}/posts", blog)
    posts_dir = ctx.content_root.joinpath(*posts.split("/"))
    if not posts_dir.is_dir():
        return
    drafts = options.get("draft") is True
    listed = _listed(root)
    found: list[tuple[bool, str, str]] = []
    for file in sorted(posts_dir.rglob("*")):
        if not file.is_file() or not ctx.is_page(file) or ctx.excluded(file):
            continue
        rel = ctx.rel(file)
        if rel in listed or any(p.startswith(".") for p in rel.split("/")):
            continue
        meta = front(ctx, file)
        if meta.get("draft") is True and not drafts:
            continue
        found.append((meta.get("pin") is True, _created(meta.get("date")), rel))
    # Newest first, pinned first; a stable sort keeps file order among equals.
    found.sort(key=lambda post: (post[0], post[1]), reverse=True)
    names = ("index.md", "README.md")
    index = next((f"{blog}/{n}" for n in names if (ctx.content_root / blog / n).is_file()), None)
    holder = (_holder(root, index) if index is not None else None) or root
    for _, _, rel in found:
        holder.children.append(OutlinePage(rel, None, len(holder.children), None, None))


def _date(value: object) -> tuple[int, int, int] | None:
    """A post's creation date (``date``, or ``date.created``) as (year, month, day)."""
    text = _created(value)
    match = re.match(r"(\d{4})-(\d{1,2})-(\d{1,2})", text)
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


def _formatted(pattern: str, year: int, month: int, day: int) -> str | None:
    """``post_url_date_format`` (a Babel date pattern: ``yyyy/MM/dd``) applied, in English;
    ``None`` for a pattern field other than year, month and day."""
    out: list[str] = []
    for token in _DATE_TOKEN.findall(pattern):
        letter = token[0]
        if letter == "y":
            out.append(f"{year % 100:02d}" if len(token) == 2 else f"{year:0{len(token)}d}")
        elif letter == "M":
            names = {3: calendar.month_abbr[month], 4: calendar.month_name[month]}
            out.append(names.get(len(token), f"{month:0{min(len(token), 2)}d}"))
        elif letter == "d":
            out.append(f"{day:0{min(len(token), 2)}d}")
        elif letter == "'":
            out.append(token.strip("'") or "'")
        elif letter.isalpha():
            return None
        else:
            out.append(token)
    return "".join(out)


def _title(meta: dict[str, object], body: str, stem: str) -> str:
    """A post's title: front matter ``title``, else its first level-1 heading, else its name."""
    title = meta.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    heading = _H1.search(_FENCE.sub("", body))
    return heading[1].strip() if heading else stem


def post_urls(
    content: Path, options: dict[str, object], options_node: YamlNode | None, root: Path
) -> dict[str, str]:
    """The URL path of each post of the blog plugin (``options``; ``options_node`` for its
    ``post_slugify`` tag) in ``content`` (docs_dir): ``{blog_dir}/{post_url_format}``, the
    format's ``{date}`` (``post_url_date_format``, ``yyyy/MM/dd``), ``{slug}`` (front matter
    ``slug``, else the title slugified by ``post_slugify`` with ``post_slugify_separator``),
    ``{categories}`` (the first ``post_url_max_categories``, slugified, ``/``-joined) and
    ``{file}`` (the file's name) filled in. A post whose URL cannot be made keeps its path."""
    if options.get("enabled") is False:
        return {}
    blog = _folder(options.get("blog_dir"), "blog", "blog")
    posts = content.joinpath(*_folder(options.get("post_dir"), "{blog}/posts", blog).split("/"))
    if not posts.is_dir():
        return {}
    url_format = config.string(options.get("post_url_format")) or "{date}/{slug}"
    date_format = config.string(options.get("post_url_date_format")) or "yyyy/MM/dd"
    separator = config.string(options.get("post_slugify_separator")) or "-"
    function = None
    if options_node is not None and isinstance(options_node.value, dict):
        function = options_node.value.get("post_slugify")
    rule = slug_function_rule(function, separator)
    most = options.get("post_url_max_categories")
    most = most if isinstance(most, int) and not isinstance(most, bool) else 1
    urls: dict[str, str] = {}
    for file in sorted(posts.rglob("*.md")):
        if not file.is_file() or file.is_symlink():
            continue
        rel = file.relative_to(content).as_posix()
        split = split_front_matter(read_text_file(file, where=rel, within=root), path=rel)
        meta = split.data
        date = _date(meta.get("date"))
        day = _formatted(date_format, *date) if date is not None else None
        slug = meta.get("slug")
        if not isinstance(slug, str) or not slug.strip():
            slug = slugify(_title(meta, split.body, file.stem), rule)
        categories = meta.get("categories")
        names = (
            [c for c in categories if isinstance(c, str)] if isinstance(categories, list) else []
        )
        fields = {
            "date": day,
            "slug": slug.strip(),
            "categories": "/".join(slugify(c, rule) for c in names[:most]),
            "file": file.stem,
        }
        used = re.findall(r"\{(\w+)\}", url_format)
        if any(fields.get(name) is None for name in used):
            continue  # a date or field it cannot fill: the post keeps its path
        path = url_format
        for name in used:
            path = path.replace(f"{{{name}}}", str(fields[name]))
        urls[rel] = "/".join(p for p in f"{blog}/{path}".split("/") if p)
    return urls
