// Usage: node vuepress_order.js DOCS SIDEBAR.json KEY PREFIX OTHER_LOCALES (KEY: a dotted path
// into the JSON, 'themeConfig.locales./.sidebar'; the JSON from evaluate_cjs.js or evalconfig.mjs).
// VuePress navigation order from an evaluated sidebar (JSON), by the default theme's rules:
// the home page, then the sidebar (an object's prefixes in file order), depth first; a string
// item is a path resolved against its prefix (v1 resolvePath, v2 resolvePrefix), [path, title]
// a page, {title|text, path|link, children, prefix} a group led by its page; unlisted pages
// after, folders in path order and a folder's README/index first.
const fs = require('fs'); const path = require('path');
const [docs, sidebarJson, key, prefix, skip] = process.argv.slice(2);
let sidebar = JSON.parse(fs.readFileSync(sidebarJson, 'utf8'));
for (const k of key.split('.')) if (k) sidebar = sidebar[k];
const skipDirs = new Set((skip || '').split(',').filter(Boolean));
const pages = [];
(function walk(dir, rel) {
  for (const name of fs.readdirSync(dir).sort()) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const full = path.join(dir, name); const r = rel ? rel + '/' + name : name;
    if (fs.statSync(full).isDirectory()) { if (!(rel === '' && skipDirs.has(name))) walk(full, r); }
    else if (name.endsWith('.md')) pages.push(r);
  }
})(docs, '');
const isIndex = p => /^(readme|index)\.md$/i.test(path.posix.basename(p));
const route = p => { const d = path.posix.dirname(p); const dir = d === '.' ? '' : d; return isIndex(p) ? dir : (dir ? dir + '/' : '') + path.posix.basename(p, '.md'); };
const byRoute = {}; for (const p of pages) if (!(route(p) in byRoute)) byRoute[route(p)] = p;
const out = []; const seen = new Set();
const add = p => { if (p && !seen.has(p)) { seen.add(p); out.push(p); } };
function resolve(link, base) {
  if (/^[a-z]+:|^\/\//i.test(link)) return null;
  let p = link.split('#')[0];
  if (!p.startsWith('/')) p = path.posix.join(base.endsWith('/') ? base : base + '/', p) + (p === '' || p.endsWith('/') ? '/' : '');
  let k = p.replace(/^\/+|\/+$/g, '').replace(/\.(md|html)$/, '');
  const last = k.split('/').pop(); if (/^(readme|index)$/i.test(last)) k = k.slice(0, -last.length);
  return byRoute[k.replace(/\/+$/, '')] || null;
}
function items(list, base) {
  for (const it of list || []) {
    if (typeof it === 'string') add(resolve(it, base));
    else if (Array.isArray(it)) add(resolve(it[0], base));
    else if (it && typeof it === 'object') {
      const link = typeof it.link === 'string' ? it.link : it.path;
      let own = base; if (typeof it.prefix === 'string') own = it.prefix.startsWith('/') ? it.prefix : path.posix.join(base, it.prefix);
      if (Array.isArray(it.children)) { if (link) add(resolve(link, own)); items(it.children, own); }
      else if (link) add(resolve(link, base));
    }
  }
}
add(byRoute['']);
if (Array.isArray(sidebar)) items(sidebar, '/');
else if (sidebar && typeof sidebar === 'object') for (const [k, v] of Object.entries(sidebar)) if (Array.isArray(v)) items(v, k);
const rest = pages.filter(p => !seen.has(p)).sort((a, b) => {
  const da = path.posix.dirname(a).split('/'), db = path.posix.dirname(b).split('/');
  for (let i = 0; i < Math.min(da.length, db.length); i++) if (da[i] !== db[i]) return da[i] < db[i] ? -1 : 1;
  if (da.length !== db.length) return da.length - db.length;
  if (isIndex(a) !== isIndex(b)) return isIndex(a) ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
});
for (const p of [...out, ...rest]) console.log(prefix + p);
