// Evaluate a VitePress or Astro configuration (or a Nextra _meta.global file) with node, for make_orders.py: bundled by
// esbuild, each package stubbed (a callable proxy returning its first object argument, made
// iterable so that `...plugin({...})` spreads nothing:
// defineConfig, starlight(), withPwa) but the real ones listed and node's own; the result
// (functions left out) written as JSON. Usage: NODE_PATH=<node_modules with esbuild,
// fast-glob, gray-matter> node evalconfig.mjs CONFIG OUT.json (run in CONFIG's folder).
import { createRequire, builtinModules } from 'node:module';
import { pathToFileURL } from 'node:url';
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
const [file, out] = process.argv.slice(2);
// esbuild and the real packages come from NODE_PATH (a scratch node_modules outside the tree).
const modules = (process.env.NODE_PATH || '').split(':').filter(Boolean);
const esbuild = createRequire(path.join(modules[0] || '.', 'x.js'))('esbuild');
const REAL = new Set(['fast-glob', 'gray-matter', 'node:path', 'node:url', 'node:fs', 'path', 'url', 'fs', 'node:process', 'process', 'node:fs/promises']);
const stub = {
  name: 'stub',
  setup(build) {
    // Packages, and relative imports into the site's own node_modules (a package.json read
    // for its version), are stubbed; the site's own files are bundled as they are.
    build.onResolve({ filter: /.*/ }, args => {
      if (args.namespace === 'stub' || args.kind === 'entry-point') return undefined;
      // `/src/plugins/x` (Vite's project-root path) is no file path: stubbed as a package is.
      if (/^[./]/.test(args.path) && !args.path.includes('node_modules/') && !(args.path.startsWith('/') && !existsSync(args.path))) return undefined;
      const pkg = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
      if (args.importer.includes('/node_modules/') || args.path.startsWith('node:') || builtinModules.includes(pkg) || REAL.has(args.path) || REAL.has(pkg)) return undefined;
      const names = new Set();
      const text = readFileSync(args.importer, 'utf8');
      const esc = args.path.replace(/[.*+?^${}()|[\]\\\/]/g, '\\$&');
      const re = new RegExp('import\\s+(?:type\\s+)?(?:[\\w$]+\\s*,\\s*)?\\{([^}]*)\\}\\s*from\\s*[\'"]' + esc + '[\'"]', 'g');
      for (const m of text.matchAll(re)) for (const part of m[1].split(',')) { const n = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0].trim(); if (n) names.add(n); }
      // JSX (a Nextra _meta.global.tsx) imports the runtime's functions, not named in the text.
      if (/jsx(-dev)?-runtime$/.test(args.path)) for (const n of ['jsx', 'jsxs', 'jsxDEV', 'Fragment']) names.add(n);
      return { path: args.path + '?' + [...names].join(','), namespace: 'stub' };
    });
    build.onLoad({ filter: /.*/, namespace: 'stub' }, args => ({
      contents: `const h = { get(t, k) { if (k === 'then') return undefined; if (k === '__esModule') return false; if (k === Symbol.toPrimitive) return () => ''; if (k === 'default') return p; return p; }, apply(t, self, args) { const a = args.find(x => x && typeof x === 'object'); if (a !== undefined && !(Symbol.iterator in a)) Object.defineProperty(a, Symbol.iterator, { value: function* () {} }); return a === undefined ? p : a; } };
const p = new Proxy(function () {}, h); export default p;` + (args.path.split('?')[1] || '').split(',').filter(Boolean).map(n => `export const ${n} = p;`).join('\n'),
      loader: 'js',
    }));
  },
};
const target = path.join(path.dirname(file), '.evalconfig.bundle.mjs');
await esbuild.build({ entryPoints: [file], bundle: true, platform: 'node', format: 'esm', outfile: target, plugins: [stub], nodePaths: modules, banner: { js: "import { createRequire as __cr } from 'node:module'; import * as __fs from 'node:fs'; globalThis.fs ??= __fs; const require = __cr(import.meta.url); globalThis.__evalFilename = new URL(import.meta.url).pathname; globalThis.__evalDirname = globalThis.__evalFilename.replace(/\\/[^\\/]*$/, '');" }, logLevel: 'error', define: { 'import.meta.env': '{"DEV":false,"PROD":true,"MODE":"production"}', __dirname: 'globalThis.__evalDirname', __filename: 'globalThis.__evalFilename' }, loader: { '.svg': 'text', '.vue': 'text' } });
const mod = await import(pathToFileURL(target).href);
let config = mod.default;
if (typeof config === 'function') config = await config({ mode: 'production', command: 'build' });
config = await config;
const seen = new WeakSet();
writeFileSync(out, JSON.stringify(config, (k, v) => { if (typeof v === 'function') return undefined; if (v && typeof v === 'object') { if (seen.has(v) && !Array.isArray(v)) {} } return v; }));
