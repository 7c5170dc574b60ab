#!/usr/bin/env node
// Run the TypeScript unit tests: every `*.spec.js` that `tsc -p tsconfig.test.json` compiled
// into test-lib/ (each spec sits beside its unit under src/), with node's test runner.
// Node 20's `node --test DIR` finds only *.test.js-style names, so the files are listed here.
// Usage: node scripts/run-specs.mjs   (run by `npm test`)
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function specs(dir) {
  return readdirSync(dir).flatMap(name => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return specs(path);
    return name.endsWith('.spec.js') ? [path] : [];
  });
}

const files = specs(join(root, 'test-lib', 'src')).sort();
if (!files.length) {
  console.error(
    'run-specs: no *.spec.js under test-lib/src (run tsc -p tsconfig.test.json)'
  );
  process.exit(1);
}
const run = spawnSync(process.execPath, ['--test', ...files], {
  stdio: 'inherit'
});
process.exit(run.status ?? 1);
