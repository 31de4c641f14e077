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

from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import Context
from gezel_knowledge.compiler.generators._tree import front
from gezel_knowledge.compiler.generators.outline import OutlinePage, OutlineSection

__all__ = ["place_posts"]


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
