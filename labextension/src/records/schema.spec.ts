/**
 * The schema check: a record's own kind's schema, finite numbers, the kind named as
 * given.
 * Run: npm test.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parsePayload } from './intake';
import { Checked, checkEnvelope, checkSchema } from './schema';

import { recordFixture } from '../../test/support';

/** The schema check as ./intake runs it: the envelope, then the kind's schema. */
function checked(value: unknown): Checked {
  const envelope = checkEnvelope(value);
  return envelope.ok ? checkSchema(envelope.value, envelope.kind) : envelope;
}

test("validation is one step that types the record: its own kind's schema, finite numbers", () => {
  const v = checked(recordFixture('trace'));
  assert.ok(v.ok && v.record.record === 'trace');
  // A trace record carrying a profile's fields is refused as a trace, not read as one.
  const profile = recordFixture('profile');
  const confused = checked({ ...profile, record: 'trace' });
  assert.ok(!confused.ok);
  assert.match(confused.reason, /record lacks the field "path"/);
  // JSON has no Infinity, but 1e400 parses to it: refused, never shown.
  const huge = JSON.parse(
    JSON.stringify(recordFixture('profile')).replace(
      /"wall_s": ?[0-9.e-]+/,
      '"wall_s": 1e400'
    )
  );
  const inf = checked(huge);
  assert.ok(!inf.ok);
  assert.match(inf.reason, /wall_s must be number, not non-finite number/);
  // The kind is named as the record gives it.
  assert.match(
    (parsePayload({ schema_version: 1, record: 7 }) as { reason: string })
      .reason,
    /kind "7" this version does not show/
  );
});
