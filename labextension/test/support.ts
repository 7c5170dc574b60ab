/**
 * What the TypeScript unit tests (the `*.spec.ts` beside each unit under src/) share:
 * the record fixtures the Python side generated from real runs (tests/fixtures/records/,
 * and ./fixtures/timing.json), read as the kernel published them.
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { ISummaryPayload } from '../src/model/target';
import { parsePayload } from '../src/records/intake';

/** The repository root (this file runs as test-lib/test/support.js). */
export const ROOT = join(__dirname, '..', '..', '..');
export const FIXTURE = join(
  ROOT,
  'tests',
  'fixtures',
  'records',
  'summary.json'
);
export const V1_SAVED = join(
  ROOT,
  'tests',
  'fixtures',
  'records',
  'v1-saved.json'
);
export const TIMING_FIXTURE = join(
  ROOT,
  'labextension',
  'test',
  'fixtures',
  'timing.json'
);

/** The summary record of a real compile (two targets), fresh each call. */
export function fixture(): unknown {
  return JSON.parse(readFileSync(FIXTURE, 'utf8')) as unknown;
}

/** `raw` (the fixture by default) read as a summary payload. */
export function summary(raw: unknown = fixture()): ISummaryPayload {
  const p = parsePayload(raw);
  assert.ok(p, 'fixture parses');
  assert.equal(p.record, 'summary');
  return p;
}

/** The record fixture `name` (trace, profile, suggestions, diagnosis, compile_time). */
export function recordFixture(name: string): Record<string, unknown> {
  return JSON.parse(
    readFileSync(
      join(ROOT, 'tests', 'fixtures', 'records', `${name}.json`),
      'utf8'
    )
  ) as Record<string, unknown>;
}
