"""JavaScript literals read without running them, and JavaScript-style globs (Docusaurus)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gezel_knowledge.compiler.generators._glob import MAX_ALTERNATIVES, Glob
from gezel_knowledge.compiler.generators._js import (
    MAX_CALLS,
    MAX_DEPTH,
    UNKNOWN,
    Import,
    Regex,
    _Reader,
    imports,
    literals,
    read_module,
    tokenize,
    walk_values,
)
from gezel_knowledge.compiler.generators._js_config import read_config
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.trees import write_tree
from tests.faults import MB, assert_linear_time


def test_literals_are_read_and_code_is_unknown() -> None:
    text = (
        "// a comment { not: 'read' }\n"
        "/* another { */\n"
        "const config = {\n"
        "  title: 'Site', 'quoted-key': \"two\", 3: `three`,\n"
        "  tagline: `Made in ${year}`,\n"
        "  n: -1.5, ok: true, no: false, none: null,\n"
        "  path: require.resolve('./sidebars.js'), other: require('x'),\n"
        "  edit: ({docPath}) => `https://e/${docPath}`,\n"
        "  users, method() { return {inner: 1}; },\n"
        "  ...spread, [computed]: 1, re: /a\\/b[/]c/g, called: f(1, 2),\n"
        "  list: ['a', {b: 'c'}, ...more, 'd'] as const,\n"
        "} satisfies Config;\n"
    )
    (config,) = literals(text)
    assert config == {
        "title": "Site",
        "quoted-key": "two",
        "3": "three",
        "tagline": UNKNOWN,
        "n": -1.5,
        "ok": True,
        "no": False,
        "none": None,
        "path": "./sidebars.js",
        "other": "x",
        "edit": UNKNOWN,
        "users": UNKNOWN,
        "method": UNKNOWN,
        "re": Regex("a\\/b[/]c", "g"),  # kept as its source, never compiled
        "called": UNKNOWN,
        "list": ["a", {"b": "c"}, UNKNOWN, "d"],
        "...": UNKNOWN,
    }


def test_parenthesised_values_are_read() -> None:
    # Docusaurus' templates write `presets: [['classic', /** @type */ ({ docs: {...} })]]`.
    (config,) = literals(
        "module.exports = { presets: [['classic', /** @type {X} */ ({ docs: { path: 'd' } })]],"
        " arrow: (x) => x, sum: (1) + 2, deep: ((('s'))) };"
    )
    assert config == {
        "presets": [["classic", {"docs": {"path": "d"}}]],
        "arrow": UNKNOWN,
        "sum": UNKNOWN,
        "deep": "s",
    }


def test_names_bound_to_literals_and_the_export() -> None:
    module = read_module(
        "const api = ['api/a', 'api/b'];\n"
        "const typed: SidebarsConfig = { docs: ['intro', {type: 'category', items: api}] };\n"
        "let other = { x: later };\nconst later = [1];\n"
        "export default typed;\n"
    )
    assert module.exported == {"docs": ["intro", {"type": "category", "items": ["api/a", "api/b"]}]}
    # A name is known from its binding on: one used before is unknown.
    assert {"x": UNKNOWN} in module.literals
    assert read_module("module.exports = {a: [1]};").exported == {"a": [1]}
    assert read_module("module.exports = make();").exported is UNKNOWN


def test_shared_literals_are_walked_once() -> None:
    # Each name doubles the one before: walking by value would visit 2**40 lists.
    text = "const n0 = ['x'];\n" + "".join(
        f"const n{i} = [n{i - 1}, n{i - 1}];\n" for i in range(1, 41)
    )
    module = read_module(text)
    assert len(walk_values(module.literals)) == 1 + 41


def test_escapes_and_surrogate_pairs_are_decoded() -> None:
    (value,) = literals(r"""x = ["a\'b", "\u00e9\x41\n", "\uD83D\uDE00", "\u{1F600}", "\uD83D"]""")
    assert value == ["a'b", "éA\n", "😀", "😀", "\ufffd"]


def test_a_block_is_no_literal_but_literals_inside_it_are() -> None:
    found = literals("function f() { const a = 1; return { sidebar: ['x'] }; }\n")
    assert found == [{"sidebar": ["x"]}]


def test_nesting_beyond_the_limit_is_unknown() -> None:
    deep = "[" * (MAX_DEPTH + 10) + "]" * (MAX_DEPTH + 10)
    (value,) = literals(deep)
    depth = 1
    while isinstance(value, list) and value and value[0] is not UNKNOWN:
        value = value[0]
        depth += 1
    assert depth <= MAX_DEPTH + 1


def test_each_bracket_is_parsed_once() -> None:
    # The reader's memory holds one entry per bracket it parsed, never more: a literal that
    # turns out to be a block is not parsed again from every bracket inside it.
    text = "{ a: {b: {c: [1, 2]}}, d e }" * 200
    reader = _Reader(tokenize(text))
    reader.all_literals()
    brackets = sum(1 for t in reader.t if t.kind == "punc" and t.value in ("{", "["))
    assert len(reader.memo) <= brackets


@pytest.mark.parametrize(
    "unit",
    [
        "{a:",
        "{",
        "[",
        "`${",
        "`${`",
        "x = `${a}${b}/`, ",
        "`a${b}",
        "/*",
        "'",
        "{a: {b: 1}, c d}",
        "x = /[",
        "{...a,",
        "({",
        "a: [",
        "\\u",
        "(",
        "({a: (",
        "a: (b) => (",
        "const a = [a, a];",
        "const a: b.c = {x: a};",
        "export default a; module.exports = ",
    ],
)
def test_the_literal_reader_is_linear(unit: str) -> None:
    size = MB // 4
    text = (unit * (size // len(unit) + 1))[:size]
    assert_linear_time(lambda: read_module(text), size, seconds_per_mb=60, what=f"js {unit!r}")


def test_globs_match_as_javascript_tools_do() -> None:
    include = Glob(["{api,guide}/*.{md,mdx}", "intro.md"])
    assert [include.match(p) for p in ("api/a.md", "guide/b.mdx", "intro.md")] == [True] * 3
    assert [include.match(p) for p in ("api/x/a.md", "other/a.md", "api/a.txt")] == [False] * 3
    every = Glob(["**/*.{md,mdx}"])
    assert [every.match(p) for p in ("a.md", "a/b/c.mdx", "a.js")] == [True, True, False]
    underscore = Glob(["**/_*.md", "**/_*/**"])
    assert [underscore.match(p) for p in ("x/_partial.md", "_drafts/a/b.md", "x/a_b.md")] == [
        True,
        True,
        False,
    ]
    assert [Glob(["**/b"]).match(p) for p in ("ab", "a/b", "b")] == [False, True, True]
    classes = Glob(["a?c", "[xy]z", "[!a]q"])
    assert [classes.match(p) for p in ("abc", "yz", "aq", "bq")] == [True, True, False, True]


def test_brace_expansion_is_bounded() -> None:
    glob = Glob(["{a,b}" * 40])
    assert len(glob.steps) <= MAX_ALTERNATIVES


@pytest.mark.parametrize("pattern", ["*a" * 150 + "b", "**/" * 100 + "x", "{a,b}" * 20 + "*"])
def test_glob_matching_is_bounded(pattern: str) -> None:
    # Matching runs the pattern's states over the path once: time grows with path length
    # times pattern length (patterns are capped at 1000 characters), never exponentially as
    # a backtracking match of `*a*a*a...b` would.
    glob = Glob([pattern])
    paths = ["a/" * 100 + "a" * 200 + str(k) for k in range(10)]

    def scan() -> None:
        for path in paths:
            glob.match(path)

    work = sum(map(len, paths)) * sum(len(steps) for steps in glob.steps)
    assert_linear_time(scan, work, seconds_per_mb=60, what=f"glob {pattern[:12]!r}")


def test_many_autogenerated_sidebar_items_cost_little(tmp_path: Path) -> None:
    # A hostile sidebars file naming 20,000 autogenerated folders over 500 pages: each
    # folder's pages are looked up, never searched for among all pages.
    items = ", ".join(f"{{type: 'autogenerated', dirName: 'd{i % 50}'}}" for i in range(20_000))
    files = {
        "docusaurus.config.js": "module.exports = { title: 'D' };\n",
        "sidebars.js": f"module.exports = {{ s: [{items}] }};\n",
    }
    files.update({f"docs/d{i % 50}/p{i}.md": f"# P{i}\n" for i in range(500)})
    root = write_tree(tmp_path / "site", files)
    size = len(files["sidebars.js"])
    assert_linear_time(lambda: load_markdown_tree(root), size, seconds_per_mb=120, what="sidebars")
    assert len(load_markdown_tree(root).documents) == 500


def test_scalar_names_paths_spreads_and_computed_keys() -> None:
    module = read_module(
        "import path from 'node:path';\n"
        "const last = '11.x';\n"
        "const late = 'x' + suffix;\n"
        "const base = ['intro', 'setup'];\n"
        "const shared = { label: 'Shared' };\n"
        "const theme: A.Config & Record<string, B> = { navbar: {} };\n"
        "export default {\n"
        "  sidebarPath: path.join(__dirname, 'sidebars.json'),\n"
        "  other: path.resolve(__dirname, '../docs', 'api/'),\n"
        "  absolute: path.resolve('/etc/passwd'), code: path.join(dir, 'x'),\n"
        "  lastVersion: last, late, base, theme,\n"
        "  versions: { [last]: { label: 'Latest' }, ['quoted']: 1, [unknown]: 2 },\n"
        "  docs: [...base, 'faq', ...missing],\n"
        "  category: { ...shared, items: [] },\n"
        "};\n"
    )
    assert module.exported == {
        "sidebarPath": "sidebars.json",
        "other": "../docs/api",
        "absolute": UNKNOWN,
        "code": UNKNOWN,
        "lastVersion": "11.x",
        "late": UNKNOWN,
        "base": ["intro", "setup"],
        "theme": {"navbar": {}},
        "versions": {"11.x": {"label": "Latest"}, "quoted": 1},
        "docs": ["intro", "setup", "faq", UNKNOWN],
        "category": {"label": "Shared", "items": []},
    }


def test_spreads_of_a_doubling_chain_stay_bounded() -> None:
    # Each name spreads the one before twice: copying them all would make 2**40 items.
    text = "const n0 = ['x'];\n" + "".join(
        f"const n{i} = [...n{i - 1}, ...n{i - 1}];\n" for i in range(1, 41)
    )
    module = read_module(text)
    sizes = [len(v) for v in module.literals]
    assert max(sizes) <= 2 * 100_000
    assert module.literals[-1] == [UNKNOWN, UNKNOWN]


def test_imports_that_literals_may_use() -> None:
    text = (
        "import type { SidebarsConfig } from '@docusaurus/plugin-content-docs';\n"
        "import api from './api';\n"
        "import { a, b as c, type T } from './parts.mjs';\n"
        "const extra = require('./extra.json');\n"
        "const dynamic = require(name);\n"
        "import * as everything from './all';\n"
    )
    assert imports(text) == [
        Import("api", "./api"),
        Import("a", "./parts.mjs", "a"),
        Import("c", "./parts.mjs", "b"),
        Import("extra", "./extra.json"),
    ]
    module = read_module("const x = [...api, 'y'];\nexport default x;", {"api": ["a"]})
    assert module.exported == ["a", "y"]


def test_names_bound_in_an_imported_file_stand_for_their_literals() -> None:
    imported = read_module("export const guide = [{ text: 'Why', link: '/why' }]\n")
    assert imported.names == {"guide": [{"text": "Why", "link": "/why"}]}
    main = read_module(
        "import { guide } from './sidebar'\nexport default { sidebar: { '/': guide } }\n",
        imported.names,
    )
    assert main.exported == {"sidebar": {"/": [{"text": "Why", "link": "/why"}]}}
    assert read_module("export default { s: guide }\n").exported == {"s": UNKNOWN}


def test_a_shorthand_property_is_the_literal_its_name_is_bound_to() -> None:
    text = (
        "export const locales = { root: { lang: 'en' } };\n"
        "export default { locales, other, title: 'T' };\n"
    )
    assert read_module(text).exported == {
        "locales": {"root": {"lang": "en"}},
        "other": UNKNOWN,
        "title": "T",
    }


def test_a_call_of_a_function_returning_a_literal_is_that_literal() -> None:
    text = (
        "export default { sidebar: { '/guide/': { items: guide() } }, nav: nav(1), x: f() }\n"
        "function guide(): DefaultTheme.SidebarItem[] { return [{ text: 'Why', link: 'why' }] }\n"
        "const nav = (n) => ({ text: 'Guide', again: nav() })\n"
        "function f() { const a = 1; return [a] }\n"
    )
    assert read_module(text).exported == {
        "sidebar": {"/guide/": {"items": [{"text": "Why", "link": "why"}]}},
        # A function's literal calling that function is unknown there (never a loop).
        "nav": {"text": "Guide", "again": UNKNOWN},
        "x": UNKNOWN,  # the function computes before it returns
    }


def test_an_arrow_function_with_a_return_type_returns_its_literal() -> None:
    # Hono's site: `const sidebars = (): DefaultTheme.SidebarItem[] => [...]`.
    text = (
        "const sidebars = (): DefaultTheme.SidebarItem[] => [{ text: 'A', link: '/a' }]\n"
        "const more = (n: number): Array<Item | Other> => ({ x: 1 })\n"
        "const cond = (a) ? b : (c) => [1]\n"
        "export default { sidebar: { '/': sidebars(), '/m/': more(2) } }\n"
    )
    assert read_module(text).exported == {
        "sidebar": {"/": [{"text": "A", "link": "/a"}], "/m/": {"x": 1}}
    }


def test_a_call_binds_its_arguments_to_the_functions_parameters() -> None:
    text = (
        "const labels = { a: 'Alpha' }\n"
        "function group(key: Key, g: Omit<G, 'label'>): G { return { label: labels[key], ...g } }\n"
        "const item = (slug, { x }) => ({ slug })\n"
        "export default [group('a', { items: [1] }), group('b', { items: [2] }), item('s', {})]\n"
    )
    assert read_module(text).exported == [
        {"label": "Alpha", "items": [1]},
        {"label": UNKNOWN, "items": [2]},  # no such member
        {"slug": UNKNOWN},  # parameters that destructure are not bound
    ]


def test_calls_binding_arguments_are_bounded() -> None:
    calls = ", ".join(f"g({i})" for i in range(MAX_CALLS + 5))
    text = f"export default [{calls}]\nfunction g(n) {{ return {{ n }} }}\n"
    value = read_module(text).exported
    assert value[0] == {"n": 0}
    assert value[MAX_CALLS - 1] == {"n": MAX_CALLS - 1}
    assert value[MAX_CALLS:] == [UNKNOWN] * 5
    assert_linear_time(lambda: read_module(text), len(text), seconds_per_mb=120, what="calls")


def test_many_calls_of_one_function_cost_little() -> None:
    calls = ", ".join(f"k{i}: f()" for i in range(20_000))
    text = f"export default {{ {calls} }}\nfunction f() {{ return [{{ a: [1, 2, 3] }}] }}\n"
    assert_linear_time(lambda: read_module(text), len(text), seconds_per_mb=60, what="calls")
    assert read_module(text).exported["k19999"] == [{"a": [1, 2, 3]}]


def test_a_name_typed_as_an_array_is_bound_to_its_literal() -> None:
    module = read_module(
        "export const bars: DefaultTheme.SidebarItem[] = [{ text: 'Guide', link: '/g' }];\n"
        "export default { sidebar: { '/guide/': bars, '/': bars } };\n"
    )
    bars = [{"text": "Guide", "link": "/g"}]
    assert module.exported == {"sidebar": {"/guide/": bars, "/": bars}}


def test_a_spread_call_copies_the_literal_the_function_returns() -> None:
    # Mermaid's sidebar: `[{...}, ...sidebarSyntax(), ...sidebarConfig()]`.
    text = (
        "export default { sidebar: { '/': all() }, o: { ...base(), b: 2 }, u: [...g(x)] }\n"
        "function all() { return [{ text: 'Intro' }, ...syntax(), ...later()] }\n"
        "function syntax() { return [{ text: 'Flowchart' }, { text: 'Gantt' }] }\n"
        "const base = () => ({ a: 1 })\n"
        "function later() { const x = 1; return [x] }\n"
    )
    assert read_module(text).exported == {
        "sidebar": {"/": [{"text": "Intro"}, {"text": "Flowchart"}, {"text": "Gantt"}, UNKNOWN]},
        "o": {"a": 1, "b": 2},
        "u": [UNKNOWN],  # g is no function returning a literal
    }


def test_an_environment_test_is_the_value_of_a_build_with_none_set() -> None:
    # Immer: `baseUrl: process.env.NETLIFY_PREVIEW ? "/" : "/immer/"`.
    text = (
        "export default { a: process.env.PREVIEW ? '/' : '/immer/', b: process.env.B || 'x',\n"
        "  c: process.env.C ?? 3, d: process.env.D ? (y ? 1 : 2) : [4],\n"
        "  e: process.env.E ? f(1, 2) : g(), h: process.env.H, i: process.platform ? 1 : 2 }\n"
    )
    assert read_module(text).exported == {
        "a": "/immer/",
        "b": "x",
        "c": 3,
        "d": [4],
        "e": UNKNOWN,  # the value needs JavaScript
        "h": UNKNOWN,
        "i": UNKNOWN,  # not an environment variable
    }


def test_a_regular_expression_is_kept_as_its_source() -> None:
    text = "export default { a: [/^\\/play/, /x+/gi], b: 1 / 2 }\n"
    assert read_module(text).exported == {
        "a": [Regex("^\\/play", ""), Regex("x+", "gi")],
        "b": UNKNOWN,
    }


def test_a_template_of_names_bound_to_scalars_is_their_text() -> None:
    # Capacitor's docusaurus.config.js: `baseUrl: \`${BASE_URL}/\``.
    module = read_module(
        "const BASE_URL = '/docs';\nconst HOST = 'capacitorjs.com';\nconst PORT = 8080;\n"
        "module.exports = { url: `https://${HOST}:${ PORT }`, baseUrl: `${BASE_URL}/`,\n"
        "  call: `${f()}`, member: `${a.b}`, unbound: `${NOPE}/x`, nested: `${`${BASE_URL}`}` };\n"
    )
    assert module.exported == {
        "url": "https://capacitorjs.com:8080",
        "baseUrl": "/docs/",
        "call": UNKNOWN,
        "member": UNKNOWN,
        "unbound": UNKNOWN,
        "nested": UNKNOWN,
    }


def test_a_function_returning_the_literal_it_binds_first_returns_that_literal() -> None:
    # VuePress' shared sidebar builders: `const sidebar: T = [...]; return sidebar`.
    text = (
        "function guide(title: string): Sidebar {\n"
        "  const sidebar: Sidebar = [{ title: title, children: ['', 'a'] }]\n"
        "  return sidebar\n"
        "}\n"
        "function other() { const x = [1]; if (y) { return z } return w }\n"
        "export default { '/guide/': guide('Basics'), '/o/': other() }\n"
    )
    assert read_module(text).exported == {
        "/guide/": [{"title": "Basics", "children": ["", "a"]}],
        "/o/": UNKNOWN,  # it returns another name
    }


def test_an_imported_function_with_no_parameters_is_called(tmp_path: Path) -> None:
    # `import { api } from './shared.js'` names shared.ts (TypeScript's ESM imports name
    # the emitted file), whose `api()` takes no argument.
    root = write_tree(
        tmp_path / "site",
        {
            "config.ts": "import { api } from './shared.js'\nexport default { s: api() }\n",
            "shared.ts": "export function api(): string[] { return ['cli', 'node'] }\n",
        },
        catalog=None,
    )
    files = read_config(root / "config.ts", root)
    assert [f.path.name for f in files] == ["config.ts", "shared.ts"]
    assert files[0].exported == {"s": ["cli", "node"]}
