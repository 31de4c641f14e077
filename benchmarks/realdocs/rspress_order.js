// Usage: NODE_PATH=<node_modules with fast-glob> node rspress_order.js DOCS LANG PREFIX EXCLUDE_JSON
// Rspress navigation order of one language's docs folder, ported from Rspress' auto-nav-sidebar
// (walk.ts, normalize.ts): the home page; the root _meta.json as the sidebar, else with
// _nav.json each folder a sidebar group (in navbar link order, then by name), else the folder;
// routes are fast-glob's **/*.{md,mdx} less route.exclude, **/_[^_]* and public/ (RouteService);
// pages no sidebar lists after, in path order.
const fs = require('fs'); const path = require('path');
const fg = require(require('path').join((process.env.NODE_PATH || '').split(':')[0], 'fast-glob'));
const [docsRoot, lang, prefix, excludeJson] = process.argv.slice(2);
const work = lang ? path.join(docsRoot, lang) : docsRoot;
const exclude = JSON.parse(excludeJson || '[]');
const routes = fg.sync(['**/*.{md,mdx}'], { cwd: docsRoot, onlyFiles: true, ignore: [...exclude, '**/_[^_]*', '**/node_modules/**', './public/**'] })
  .filter(f => !lang || f.startsWith(lang + '/')).map(f => lang ? f.slice(lang.length + 1) : f).sort();
const routeSet = new Set(routes);
const exts = ['.md', '.mdx'];
const out = []; const seen = new Set();
const add = r => { if (r && !seen.has(r)) { seen.add(r); out.push(r); } };
const rel = abs => path.relative(work, abs).split(path.sep).join('/');
function fileItem(dir, name) {
  let abs = path.join(dir, name);
  if (!exts.includes(path.extname(abs))) { const f = exts.map(e => abs + e).find(p => fs.existsSync(p)); if (!f) return null; abs = f; }
  const r = rel(abs); return routeSet.has(r) ? r : null;
}
function fsItems(dir, isDocs) {
  let names = fs.readdirSync(dir).sort((a, b) => { const ai = a.replace(/\.[^/.]+$/, '') === 'index', bi = b.replace(/\.[^/.]+$/, '') === 'index'; if (ai !== bi) return ai ? -1 : 1; return a.localeCompare(b); });
  names = names.filter(it => { const hasExt = exts.some(e => it.endsWith(e)); const same = names.some(el => el.replace(/\.[^/.]+$/, '') === it.replace(/\.[^/.]+$/, '') && el !== it); return !(hasExt && same); });
  return names.map(it => { if (it === '_meta.json') return null; if (fs.statSync(path.join(dir, it)).isDirectory()) { if (it === 'public' && isDocs) return null; return { type: 'dir', name: it }; } return exts.some(e => it.endsWith(e)) ? it : null; }).filter(Boolean);
}
function meta(dir) { const f = path.join(dir, '_meta.json'); return fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : null; }
function items(list, dir) {
  for (const it of list) {
    if (typeof it === 'string') { add(fileItem(dir, it)); continue; }
    if (it.type === 'file') add(fileItem(dir, it.name));
    else if (it.type === 'dir') dirItem(it.name, dir, false);
    else if (it.type === 'dir-section-header') dirItem(it.name, dir, true);
  }
}
function dirItem(name, dir, force) {
  const d = path.join(dir, name); const m = meta(d); const list = m || fsItems(d, false);
  const same = fileItem(dir, name);
  if (same) { add(same); items(list, d); return; }
  const indexListed = m && list.find(i => typeof i === 'string' && i.replace(path.extname(i), '') === 'index');
  const indexExists = fs.existsSync(path.join(d, 'index.mdx')) || fs.existsSync(path.join(d, 'index.md'));
  if (indexListed || !indexExists) { items(list, d); return; }
  const idx = fileItem(d, 'index');
  if (!idx) { items(list, d); return; }
  if (!force) add(idx);
  const without = force ? list : list.filter(i => { let n; if (typeof i === 'object' && i.type === 'file') n = i.name; else if (typeof i === 'string') n = i; else return true; return n !== 'index.md' && i !== 'index.mdx' && i !== 'index'; });
  items(without, d);
}
add(fileItem(work, 'index'));
const nav = path.join(work, '_nav.json');
if (fs.existsSync(path.join(work, '_meta.json')) || !fs.existsSync(nav)) dirItem('', work, true);
else {
  const order = []; const visit = l => { for (const i of l || []) { if (i.link && !/^[a-z]+:/i.test(i.link)) { const first = i.link.split('#')[0].split('/').filter(Boolean)[0]; if (first && fs.existsSync(path.join(work, first)) && fs.statSync(path.join(work, first)).isDirectory() && !order.includes(first)) order.push(first); } visit(i.items); } };
  visit(JSON.parse(fs.readFileSync(nav, 'utf8')));
  const rest = fs.readdirSync(work).filter(n => fs.statSync(path.join(work, n)).isDirectory() && !order.includes(n) && n !== 'node_modules' && n !== 'public' && !n.startsWith('.')).sort();
  for (const n of [...order, ...rest]) dirItem(n, work, true);
}
for (const r of [...out, ...routes.filter(r => !seen.has(r))]) console.log(prefix + r);
