/**
 * The size walk: the kernel's output budget is the cap; the inspector's whole record
 * has its own.
 * Run: npm test.
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { RECORD_SCHEMA } from '../generated/schema';
import { checkPayload, parsePayload } from './intake';
import { checkLimits, LIMITS, WHOLE_LIMITS } from './size';

import { ROOT } from '../../test/support';

test("the size cap is the kernel's largest output budget; the inspector's whole record has its own", () => {
  const kernel = (RECORD_SCHEMA as Record<string, Record<string, number>>)[
    'x-nbcompile-limits'
  ];
  assert.equal(LIMITS.bytes, kernel.max_record_bytes);
  assert.equal(WHOLE_LIMITS.bytes, kernel.max_whole_record_bytes);
  const records = join(ROOT, 'tests', 'fixtures', 'records');
  // The count is a lower bound of the JSON's UTF-8 size: a record at the cap passes.
  for (const name of [
    'summary',
    'trace',
    'profile',
    'suggestions',
    'diagnosis'
  ]) {
    const rec = JSON.parse(readFileSync(join(records, `${name}.json`), 'utf8'));
    const size = Buffer.byteLength(JSON.stringify(rec));
    assert.ok(checkLimits(rec, { ...LIMITS, bytes: size }).ok, name);
    assert.ok(
      !checkLimits(rec, { ...LIMITS, bytes: Math.floor(size / 2) }).ok,
      name
    );
  }
  const trace = JSON.parse(readFileSync(join(records, 'trace.json'), 'utf8'));
  trace.problems = ['x'.repeat(LIMITS.bytes)];
  const over = parsePayload(trace) as { record: string; reason: string };
  assert.equal(over.record, 'unknown');
  assert.match(
    over.reason,
    /^it is larger than 8 MB, the largest record nbcompile publishes/
  );
  // From the inspector's request (the live kernel's whole record), it is read.
  assert.equal(parsePayload(trace, WHOLE_LIMITS)?.record, 'trace');
  // In two steps (the check, then the reading): the same payload.
  const small = { ...trace, problems: ['one'] };
  assert.deepEqual(checkPayload(small)(), parsePayload(structuredClone(small)));
  assert.equal(parsePayload(small)?.record, 'trace');
});
