// Usage: NODE_PATH=<node_modules with esbuild> node evaluate_cjs.js MODULE OUT.json (writes .bundle.cjs beside MODULE: run on a copy).
// Bundle one module as CommonJS beside it (so __dirname is its folder) and print its exports.
const esbuild = require(require('path').join((process.env.NODE_PATH || '').split(':')[0], 'esbuild'));
const path = require('path'); const fs = require('fs');
const [file, out] = process.argv.slice(2);
const target = path.join(path.dirname(file), '.bundle.cjs');
esbuild.buildSync({ entryPoints: [file], bundle: true, platform: 'node', format: 'cjs', outfile: target, packages: 'external', logLevel: 'error', define: { __dirname: JSON.stringify(path.dirname(file)) } });
fs.writeFileSync(out, JSON.stringify(require(target)));
