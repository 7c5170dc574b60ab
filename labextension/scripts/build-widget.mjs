#!/usr/bin/env node
// Bundle the inline inspector widget (src/widget/index.ts and the shared views it imports)
// into one ES module for anywidget, with its stylesheet inlined (style/base.css, then
// style/widget.css): nbcompile/display/static/inspector.js, shipped in the wheel.
// Nothing is fetched when a notebook shows it. Run by `npm run build` / `build:prod`.
// Usage: node scripts/build-widget.mjs [--dev]   (--dev: not minified)
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = resolve(
  root,
  '..',
  'nbcompile',
  'display',
  'static',
  'inspector.js'
);
const css = ['base.css', 'widget.css']
  .map(name => readFileSync(join(root, 'style', name), 'utf8'))
  .join('\n');
const dev = process.argv.includes('--dev');

mkdirSync(dirname(outfile), { recursive: true });
await build({
  entryPoints: [join(root, 'src', 'widget', 'index.ts')],
  outfile,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  minify: !dev,
  legalComments: 'none',
  define: { NBC_WIDGET_CSS: JSON.stringify(css) },
  logLevel: 'warning'
});
console.log(`widget: ${outfile} (${statSync(outfile).size} bytes)`);
