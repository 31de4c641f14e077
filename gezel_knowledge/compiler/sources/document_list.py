"""The document-list adapter: JSON Lines of normalised documents to a :class:`CatalogSource`.

One JSON object per line, the compiler input of spec section 5.2.1: ``id``, ``title``,
``topicPath`` and the body (``markdown``, as the document schema names it, or ``body``), plus
optional ``slug``, ``summary``, ``language``, ``ordinal``, ``tocReferences``, ``aliases``,
``sourceUrl``, ``sourceRevision``, ``sourceUpdatedAt``, ``attribution``, ``meta`` and
``locations``. Blank lines are skipped. Topic names and descriptions come from catalog.yaml
``topics``; a topic id used in a ``topicPath`` but not declared there is declared with a name
made from its id. Bodies may reference images as ``assets/...``; they are read from the assets
folder (by default the ``assets`` folder beside the list).

The file is read once here to validate every line and learn the topics and assets it uses;
what is kept is where each line starts (:class:`ListedDocuments`, 16 bytes a document), and a
document is parsed again from its line whenever it is asked for, its body when the build reaches
it. So a list of millions of documents loads in flat memory.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, overload

from gezel_knowledge.archive.assets import asset_problem, asset_references, catalog_assets_problem
from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.metadata.catalog_yaml import (
    CatalogFile,
    CatalogMetadata,
    source_metadata,
)
from gezel_knowledge.compiler.metadata.overrides import MetadataInput, apply_metadata
from gezel_knowledge.compiler.sources.inputs import notice_files
from gezel_knowledge.compiler.sources.markdown_tree import (
    parse_aliases,
    parse_attribution,
    parse_locations,
    parse_toc_references,
)
from gezel_knowledge.compiler.sources.source import (
    CatalogSource,
    LinkBase,
    SourceAsset,
    SourceDocument,
)
from gezel_knowledge.compiler.sources.toc import topic_sort_key
from gezel_knowledge.compiler.text.blocks import normalize_body
from gezel_knowledge.compiler.text.data import load_json, read_asset_bytes, read_lines
from gezel_knowledge.compiler.text.names import document_slug
from gezk.toc import Topic

__all__ = ["ListedDocuments", "load_document_list"]

_KNOWN_FIELDS = {
    "id",
    "title",
    "slug",
    "summary",
    "language",
    "topicPath",
    "tocReferences",
    "markdown",
    "body",
    "sourceUrl",
    "sourceRevision",
    "sourceUpdatedAt",
    "attribution",
    "aliases",
    "ordinal",
    "meta",
    "locations",
}


@dataclass(frozen=True, slots=True)
class _Line:
    offset: int
    number: int


def _string(
    obj: Mapping[str, Any], key: str, where: str, line: int, *, required: bool = False
) -> str | None:
    value = obj.get(key)
    if value is None:
        if required:
            raise SourceError(
                f"{key} is required", reason="invalid-document", path=where, line=line
            )
        return None
    if not isinstance(value, str):
        raise SourceError(
            f"{key} must be a string", reason="invalid-document", path=where, line=line
        )
    return value


def _body_of(obj: Mapping[str, Any], where: str, line: int) -> str:
    markdown, body = obj.get("markdown"), obj.get("body")
    if markdown is not None and body is not None:
        raise SourceError(
            "give the body as markdown or body, not both",
            reason="invalid-document",
            path=where,
            line=line,
        )
    value = markdown if markdown is not None else body
    if not isinstance(value, str):
        raise SourceError(
            "markdown (the document body) is required and must be a string",
            reason="invalid-document",
            path=where,
            line=line,
        )
    return value


def _parse_line(raw: bytes, where: str, number: int) -> dict[str, Any]:
    obj = load_json(raw, path=where, reason="invalid-json", line=number)
    if not isinstance(obj, dict):
        raise SourceError(
            "each line must be a JSON object", reason="invalid-document", path=where, line=number
        )
    return obj


class ListedDocuments(Sequence[SourceDocument]):
    """The documents of a JSON Lines list, each parsed from its line when asked for.

    ``row_origin`` names documents ``"<row_origin> row <n>"`` instead of by file and line (a
    list staged from another file); ``keep`` is held as long as the documents are (the folder
    a staged list lives in).
    """

    def __init__(
        self,
        path: Path,
        offsets: array[int],
        numbers: array[int],
        *,
        row_origin: str | None = None,
        keep: object = None,
    ) -> None:
        self._path = path
        self._where = path.name
        self._offsets = offsets
        self._numbers = numbers
        self._row_origin = row_origin
        self._keep = keep
        self._last: tuple[int, dict[str, Any]] | None = None

    def as_rows(self, origin: str, keep: object) -> ListedDocuments:
        """These documents named ``"<origin> row <n>"`` (line ``n`` of this list is row ``n``
        of ``origin``), keeping ``keep`` alive as long as they are."""
        return ListedDocuments(
            self._path, self._offsets, self._numbers, row_origin=origin, keep=keep
        )

    def __len__(self) -> int:
        return len(self._offsets)

    @overload
    def __getitem__(self, index: int) -> SourceDocument: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[SourceDocument]: ...

    def __getitem__(self, index: int | slice) -> SourceDocument | Sequence[SourceDocument]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        spot = _Line(self._offsets[index], self._numbers[index])
        return self._document(spot, self._parsed(spot))

    def __iter__(self) -> Iterator[SourceDocument]:
        with self._path.open("rb") as fh:
            for offset, number in zip(self._offsets, self._numbers, strict=True):
                fh.seek(offset)
                spot = _Line(offset, number)
                yield self._document(spot, _parse_line(fh.readline(), self._where, number))

    def _parsed(self, spot: _Line) -> dict[str, Any]:
        # A build asks for a document and then for its body: parse the line once for both.
        if self._last is not None and self._last[0] == spot.offset:
            return self._last[1]
        with self._path.open("rb") as fh:
            fh.seek(spot.offset)
            obj = _parse_line(fh.readline(), self._where, spot.number)
        self._last = (spot.offset, obj)
        return obj

    def _body(self, spot: _Line) -> str:
        return normalize_body(_body_of(self._parsed(spot), self._where, spot.number))

    def _document(self, spot: _Line, obj: dict[str, Any]) -> SourceDocument:
        def load(links: LinkBase) -> str:
            del links  # bodies of a document list are already normalised compiler input
            return self._body(spot)

        doc = _document(self._where, spot, obj, load)
        if self._row_origin is None:
            return doc
        return replace(doc, origin=f"{self._row_origin} row {spot.number}", origin_line=None)


def load_document_list(
    path: Path | str,
    *,
    metadata: MetadataInput | None = None,
    assets_dir: Path | None = None,
    catalog: CatalogFile | None = None,
) -> CatalogSource:
    """Read a JSON Lines document list (and the catalog.yaml beside it, or ``catalog`` instead
    of it) into a source; ``metadata`` overrides field by field."""
    path = Path(path).resolve()
    if not path.is_file():
        raise SourceError("is not a file", reason="not-a-file", path=str(path))
    root = path.parent
    where = path.name
    meta = apply_metadata(source_metadata(root / "catalog.yaml", catalog), metadata)
    assets_root = (assets_dir or root).resolve()

    offsets, numbers = array("q"), array("q")
    referenced: dict[str, tuple[str, int]] = {}
    topics = _TopicCollector(meta)
    with path.open("rb") as fh:
        for number, offset, raw in read_lines(fh, where=where):
            spot = _Line(offset, number)
            if not raw.strip():
                continue
            obj = _parse_line(raw, where, number)
            document = _document(where, spot, obj, _no_body)
            for target in asset_references(_body_of(obj, where, number)):
                referenced.setdefault(target, (document.id, number))
            topics.add(document)
            offsets.append(spot.offset)
            numbers.append(number)
    assets = _assets(referenced, assets_root, where)

    readme, license_file = notice_files(meta, root)
    return CatalogSource(
        root=root,
        kind="document-list",
        outline="document-list",
        metadata=meta,
        topics=topics.topics(),
        documents=ListedDocuments(path, offsets, numbers),
        assets=tuple(assets),
        warnings=meta.warnings,
        readme=readme if readme.is_file() else None,
        license_notice=license_file,
        source_notices=meta.source_notices,
    )


def _no_body(links: LinkBase) -> str:
    raise AssertionError("a document read while loading the list has no body loader")


def _document(
    where: str, spot: _Line, obj: dict[str, Any], load_body: Callable[[LinkBase], str]
) -> SourceDocument:
    """One line's document (its body is read by ``load_body``)."""
    number = spot.number
    unknown = sorted(set(obj) - _KNOWN_FIELDS)
    if unknown:
        raise SourceError(
            f"unknown fields {unknown}", reason="invalid-document", path=where, line=number
        )
    doc_id = _string(obj, "id", where, number, required=True) or ""
    title = _string(obj, "title", where, number, required=True) or ""
    topic_path = obj.get("topicPath")
    if (
        not isinstance(topic_path, list)
        or not topic_path
        or not all(isinstance(t, str) for t in topic_path)
    ):
        raise SourceError(
            "topicPath must be a non-empty list of topic ids",
            reason="invalid-document",
            path=where,
            line=number,
        )
    _body_of(obj, where, number)  # a line without a body is refused when the list is read
    ordinal = obj.get("ordinal")
    if ordinal is not None and (isinstance(ordinal, bool) or not isinstance(ordinal, int)):
        raise SourceError(
            "ordinal must be an integer", reason="invalid-document", path=where, line=number
        )
    meta_value = obj.get("meta")
    if meta_value is not None and not isinstance(meta_value, dict):
        raise SourceError(
            "meta must be an object", reason="invalid-document", path=where, line=number
        )
    return SourceDocument(
        id=doc_id,
        title=title,
        topic_path=tuple(topic_path),
        load_body=load_body,
        slug=_string(obj, "slug", where, number) or document_slug(title),
        summary=_string(obj, "summary", where, number),
        language=_string(obj, "language", where, number),
        ordinal=ordinal,
        toc_references=parse_toc_references(obj.get("tocReferences"), where, number),
        aliases=parse_aliases(obj.get("aliases"), where, number),
        source_url=_string(obj, "sourceUrl", where, number),
        source_revision=_string(obj, "sourceRevision", where, number),
        source_updated_at=_string(obj, "sourceUpdatedAt", where, number),
        attribution=parse_attribution(obj.get("attribution"), where, number),
        meta=meta_value,
        locations=parse_locations(obj.get("locations"), where, number),
        origin=where,
        origin_line=number,
    )


def _assets(
    referenced: dict[str, tuple[str, int]], assets_root: Path, where: str
) -> list[SourceAsset]:
    """The assets the documents reference, each checked, in path order."""
    assets: list[SourceAsset] = []
    folded: dict[str, str] = {}
    for target, (doc_id, number) in sorted(referenced.items()):
        # Archive names must differ beyond case (section 3.3).
        other = folded.setdefault(target.casefold(), target)
        if other != target:
            raise SourceError(
                f"document {doc_id!r} references {target!r}, which differs from {other!r} only "
                "in case; an archive cannot ship both",
                reason="asset-path-collision",
                path=where,
                line=number,
            )
        file = (assets_root / target).resolve()
        if not file.is_relative_to(assets_root) or not file.is_file():
            raise SourceError(
                f"document {doc_id!r} references {target!r}, which is not in {assets_root}",
                reason="missing-link-target",
                path=where,
                line=number,
            )
        problem = asset_problem(target, read_asset_bytes(file, where=target))
        if problem is not None:
            raise SourceError(problem.message, reason=problem.reason, path=where, line=number)
        assets.append(SourceAsset(target, file, file.stat().st_size))
    problem = catalog_assets_problem(a.size for a in assets)
    if problem is not None:
        raise SourceError(problem.message, reason=problem.reason, path=where)
    return assets


class _TopicCollector:
    """catalog.yaml topics, plus any topic a document path uses without declaring it."""

    def __init__(self, meta: CatalogMetadata) -> None:
        self._topics: dict[str, Topic] = {}
        for declared in meta.topics or ():
            if declared.id in self._topics:
                raise SourceError(
                    f"topic {declared.id!r} is declared twice",
                    reason="duplicate-topic",
                    path="catalog.yaml",
                )
            self._topics[declared.id] = Topic(
                id=declared.id,
                name=declared.name or declared.id,
                sort_key=topic_sort_key(declared.order, declared.name or declared.id),
                parent_id=declared.parent_id,
                description=declared.description,
            )

    def add(self, doc: SourceDocument) -> None:
        """Declare the undeclared topics of ``doc``'s paths."""
        for path in (doc.topic_path, *(r.topic_path for r in doc.toc_references)):
            parent: str | None = None
            for topic_id in path:
                if topic_id not in self._topics:
                    name = topic_id.replace("-", " ")
                    name = name[:1].upper() + name[1:]
                    self._topics[topic_id] = Topic(
                        id=topic_id,
                        name=name,
                        sort_key=topic_sort_key(None, name),
                        parent_id=parent,
                    )
                parent = topic_id

    def topics(self) -> tuple[Topic, ...]:
        """Every topic, declared ones first."""
        return tuple(self._topics.values())
