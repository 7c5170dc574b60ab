#!/usr/bin/env node
// The schema check (src/records/schema.ts) against Ajv's compiled validator, on the same
// records: the hostile-record fuzz corpus of the browser tests. Prints each one's time
// (median of repeats, ms), whether both give the same verdict, and Ajv's compile time.
// Make the corpus and the compiled check first (from the repository root):
//   .venv/bin/python -c "import json; from tests.browser import hostile, big_records as b;
//     json.dump([('real record', hostile.real_record()), *hostile.issue_cases(),
//     *hostile.mutations(16, 30), *hostile.mutations(1016, 30),
//     *b.cases(b.max_record_bytes())], open('/tmp/corpus.json', 'w'))"
//   (cd labextension && npm test)      # compiles src/ into test-lib/
// Usage: node --max-old-space-size=4096 scripts/bench-schema.mjs /tmp/corpus.json
// Ajv is not a dependency: it comes with the build tools (node_modules/ajv, 8.x).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const {
  checkEnvelope,
  checkSchema
} = require('../test-lib/src/records/schema.js');
const { checkLimits, LIMITS } = require('../test-lib/src/records/size.js');
const { RECORD_SCHEMA } = require('../test-lib/src/generated/schema.js');
const Ajv2020 = require('ajv/dist/2020').default;

const DEFS = {
  summary: 'SummaryRecord',
  target: 'TargetRecord',
  timing: 'Comparison',
  profile: 'Profile',
  suggestions: 'Suggestions',
  trace: 'TraceRecord',
  diagnosis: 'Diagnosis',
  compile_time: 'CompileTime'
};
const start = performance.now();
const ajv = new Ajv2020({ strict: false });
ajv.addSchema({ ...RECORD_SCHEMA, $id: 'record' });
const validators = Object.fromEntries(
  Object.entries(DEFS).map(([kind, def]) => [
    kind,
    ajv.getSchema(`record#/$defs/${def}`)
  ])
);
const compileMs = performance.now() - start;

function median(fn) {
  const runs = [];
  const begin = performance.now();
  let result;
  while (
    runs.length < 5 ||
    (performance.now() - begin < 300 && runs.length < 41)
  ) {
    const t = performance.now();
    result = fn();
    runs.push(performance.now() - t);
  }
  runs.sort((a, b) => a - b);
  return [runs[runs.length >> 1], result];
}

const corpus = JSON.parse(readFileSync(process.argv[2], 'utf8'));
let hand = 0;
let fast = 0;
let same = 0;
let n = 0;
const rows = [];
for (const [name, record] of corpus) {
  const envelope = checkEnvelope(record);
  if (!envelope.ok || !checkLimits(record, LIMITS).ok) {
    continue; // never reaches the schema check
  }
  const [th, vh] = median(() => checkSchema(envelope.value, envelope.kind));
  const [ta, va] = median(() => validators[envelope.kind](record));
  n++;
  hand += th;
  fast += ta;
  same += vh.ok === va ? 1 : 0;
  rows.push([name, th, ta, vh.ok === va]);
}
rows.sort((a, b) => b[1] - a[1]);
console.log(`Ajv compile of the schema: ${compileMs.toFixed(0)} ms`);
console.log(`${n} records reach the schema check; same verdict: ${same}`);
console.log(
  `sum of medians: hand-written ${hand.toFixed(1)} ms, Ajv ${fast.toFixed(1)} ms`
);
for (const [name, th, ta, agree] of rows.slice(0, 10)) {
  console.log(
    `${name.padEnd(34)} ${th.toFixed(1).padStart(7)} ${ta.toFixed(1).padStart(7)}${agree ? '' : '  verdicts differ'}`
  );
}
