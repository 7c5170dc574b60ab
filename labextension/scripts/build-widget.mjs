#!/usr/bin/env node
// Bundle the inline inspector widget, shipped in the wheel under nbcompile/display/static/:
// inspector.js, one ES module of src/widget/index.ts and the shared views it imports, with
// its stylesheet inlined (style/base.css, then style/widget.css), held once per kernel by
// the module widget; loader.js (src/widget/loader.ts), each inspector's own `_esm`, which
// imports inspector.js from that widget. Nothing is fetched when a notebook shows them.
// Run by `npm run build` / `build:prod`.
// Usage: node scripts/build-widget.mjs [--dev]   (--dev: not minified)
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = resolve(root, '..', 'nbcompile', 'display', 'static');
const css = ['base.css', 'widget.css']
  .map(name => readFileSync(join(root, 'style', name), 'utf8'))
  .join('\n');
const dev = process.argv.includes('--dev');

mkdirSync(outdir, { recursive: true });
const options = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  minify: !dev,
  legalComments: 'none',
  define: { NBC_WIDGET_CSS: JSON.stringify(css) },
  logLevel: 'warning'
};
for (const [entry, name] of [
  ['index.ts', 'inspector.js'],
  ['loader.ts', 'loader.js']
]) {
  const outfile = join(outdir, name);
  await build({
    ...options,
    entryPoints: [join(root, 'src', 'widget', entry)],
    outfile
  });
  console.log(`widget: ${outfile} (${statSync(outfile).size} bytes)`);
}
