#!/usr/bin/env node
// Fail when the TypeScript modules under src/ import each other in a cycle. Every relative
// import counts, type-only ones (`import type`, `export type ... from`) and `import()` too,
// so the folders stay layered. Imports are read with TypeScript's own scanner (no extra
// dependency); a relative import that names no file is an error as well.
// Usage: node scripts/check-cycles.mjs [DIR]   (default: src). Run by `npm test`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const srcDir = resolve(root, process.argv[2] ?? 'src');

function walk(dir) {
  return readdirSync(dir).flatMap(name => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return walk(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function resolveSpec(from, spec) {
  const base = resolve(dirname(from), spec.replace(/\.js$/, ''));
  const tries = [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    join(base, 'index.ts'),
    join(base, 'index.tsx')
  ];
  return tries.find(
    p => /\.tsx?$/.test(p) && statSync(p, { throwIfNoEntry: false })?.isFile()
  );
}

const files = walk(srcDir);
const show = p => relative(root, p);
const edges = new Map();
const errors = [];
for (const file of files) {
  const { importedFiles } = ts.preProcessFile(
    readFileSync(file, 'utf8'),
    true,
    true
  );
  const deps = new Set();
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = resolveSpec(file, fileName);
    if (target) deps.add(target);
    else errors.push(`${show(file)}: cannot resolve '${fileName}'`);
  }
  edges.set(file, [...deps].sort());
}

// Depth-first search; an edge back into the current path closes a cycle.
const state = new Map(); // file -> 1 on the path, 2 done
const path = [];
const cycles = new Set();
function visit(file) {
  state.set(file, 1);
  path.push(file);
  for (const dep of edges.get(file) ?? []) {
    if (state.get(dep) === 1) {
      cycles.add(
        [...path.slice(path.indexOf(dep)), dep].map(show).join(' -> ')
      );
    } else if (!state.has(dep)) {
      visit(dep);
    }
  }
  path.pop();
  state.set(file, 2);
}
for (const file of [...edges.keys()].sort()) if (!state.has(file)) visit(file);

for (const e of errors) console.error(e);
for (const c of cycles) console.error(`import cycle: ${c}`);
if (errors.length || cycles.size) process.exit(1);
console.log(
  `check-cycles: ${files.length} modules under ${show(srcDir)}, no import cycles`
);
