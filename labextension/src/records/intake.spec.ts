/**
 * Where records enter: malformed, foreign and invalid payloads never throw and say
 * why; records are found in saved outputs, IOPub messages and the comm's answer; each
 * record is checked once (one size walk, one schema check) on every way in.
 * Run: npm test.
 */

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { MIME_TYPE } from '../model/payload';
import {
  checkCounts,
  checkPayload,
  parsePayload,
  payloadFromCommReply,
  payloadFromMessage,
  payloadsFromOutputs,
  startIntake
} from './intake';
import { LIMITS, WHOLE_LIMITS } from './size';

import { fixture, recordFixture, ROOT, summary } from '../../test/support';

/** The size walks and schema checks `fn` ran. */
function counted(fn: () => void): { size: number; schema: number } {
  const before = { ...checkCounts };
  fn();
  return {
    size: checkCounts.size - before.size,
    schema: checkCounts.schema - before.schema
  };
}

const ONE = { size: 1, schema: 1 };

test('malformed, foreign and invalid payloads never throw; invalid ones say why', () => {
  assert.equal(parsePayload(null), null);
  assert.equal(parsePayload('not json'), null);
  assert.equal(parsePayload([1, 2]), null);
  const reason = (v: unknown) => {
    const p = parsePayload(v);
    assert.ok(p && p.record === 'unknown', JSON.stringify(p)?.slice(0, 200));
    return (p as { reason: string }).reason;
  };
  assert.match(
    reason({ record: 'summary', targets: [] }),
    /no valid schema_version/
  );
  assert.match(
    reason({ ...(fixture() as object), schema_version: 999 }),
    /schema version 999.*reads version 1/
  );
  const bad = fixture() as {
    targets: { kernels: { language: string }[]; graph_breaks: unknown }[];
  };
  bad.targets[0].kernels[0].language = 'toString';
  assert.match(
    reason(bad),
    /record\.targets\[0\]\.kernels\[0\]\.language must be one of "cpp", "triton", "python", not "toString"/
  );
  const wrongType = fixture() as { targets: { graph_breaks: unknown }[] };
  wrongType.targets[0].graph_breaks = 'x';
  assert.match(reason(wrongType), /graph_breaks must be array, not string/);
  const missing = fixture() as { targets: Record<string, unknown>[] };
  delete missing.targets[1].id;
  assert.match(reason(missing), /targets\[1\] lacks the field "id"/);
  // Size limits: deep values and huge key counts are refused before the schema is read.
  let deep: unknown = 'bottom';
  for (let i = 0; i < 5000; i++) {
    deep = { d: deep };
  }
  const nested = fixture() as { targets: Record<string, unknown>[] };
  nested.targets[0].options = { x: deep };
  assert.match(reason(nested), /nested deeper than 64 levels/);
  const wide = fixture() as { targets: Record<string, unknown>[] };
  wide.targets[0].options = Object.fromEntries(
    Array.from({ length: 20000 }, (_, i) => [`k${i}`, i])
  );
  assert.match(reason(wide), /more than 10000 keys/);
  // Unknown fields are ignored (consumers must ignore them), never rendered.
  const extra = fixture() as { targets: Record<string, unknown>[] };
  extra.targets[0].future_field = { anything: 1 };
  assert.equal(summary(extra).targets.length, 2);
  // A JSON string of the payload is accepted too.
  assert.equal(summary(JSON.stringify(fixture())).targets.length, 2);
});

test('payloads are found in saved outputs and in IOPub messages', () => {
  const payload = fixture();
  const outputs = [
    { output_type: 'stream', name: 'stdout', text: 'debug\n' },
    {
      output_type: 'display_data',
      data: { 'text/plain': 'x', [MIME_TYPE]: payload },
      metadata: {}
    },
    {
      output_type: 'execute_result',
      data: { 'text/plain': 'y' },
      metadata: {},
      execution_count: 2
    }
  ];
  const found = payloadsFromOutputs(outputs);
  assert.equal(found.length, 1);
  for (const msg_type of [
    'display_data',
    'update_display_data',
    'execute_result'
  ]) {
    const p = payloadFromMessage({
      header: { msg_type },
      content: {
        data: { [MIME_TYPE]: payload },
        transient: { display_id: 'd1' }
      }
    });
    assert.ok(p && p.record === 'summary', msg_type);
  }
  assert.equal(
    payloadFromMessage({
      header: { msg_type: 'stream' },
      content: { text: 'x' }
    }),
    null
  );
  assert.equal(
    payloadFromMessage({
      header: { msg_type: 'display_data' },
      content: { data: { 'text/plain': 'x' } }
    }),
    null
  );
});

test('each record is checked once on every way in: one size walk, one schema check', () => {
  const kinds = [
    'trace',
    'profile',
    'suggestions',
    'diagnosis',
    'compile_time'
  ];
  // The inline renderer: a small record checked and read at once ...
  assert.deepEqual(
    counted(() => {
      const intake = startIntake(fixture(), LIMITS, {
        nodes: 20_000,
        bytes: 1_000_000
      });
      assert.ok(intake.small);
      assert.equal(intake.check()()?.record, 'summary');
    }),
    ONE
  );
  // ... and a big one (its walk pauses past the small budget) in steps: still one walk.
  assert.deepEqual(
    counted(() => {
      const intake = startIntake(recordFixture('trace'), LIMITS, {
        nodes: 10,
        bytes: 100
      });
      assert.ok(!intake.small);
      const read = intake.check();
      intake.check(); // asking again checks nothing again
      assert.equal(read()?.record, 'trace');
    }),
    ONE
  );
  // Live kernel messages, one record each.
  for (const kind of kinds) {
    assert.deepEqual(
      counted(() => {
        const p = payloadFromMessage({
          header: { msg_type: 'display_data' },
          content: { data: { [MIME_TYPE]: recordFixture(kind) } }
        });
        assert.equal(p?.record, kind);
      }),
      ONE,
      kind
    );
  }
  // Saved outputs: one check per record found.
  assert.deepEqual(
    counted(() => {
      const outputs = kinds.map(kind => ({
        output_type: 'display_data',
        data: { [MIME_TYPE]: recordFixture(kind) },
        metadata: {}
      }));
      assert.equal(payloadsFromOutputs(outputs).length, kinds.length);
    }),
    { size: kinds.length, schema: kinds.length }
  );
  // The comm's answer with the whole record, within the inspector's limits.
  assert.deepEqual(
    counted(() => {
      const p = payloadFromCommReply(
        { data: { [MIME_TYPE]: fixture() } },
        WHOLE_LIMITS
      );
      assert.equal(p?.record, 'summary');
    }),
    ONE
  );
  // A record refused by its size is never schema-checked; by its envelope, not walked.
  const big = recordFixture('trace');
  big.problems = ['x'.repeat(LIMITS.bytes)];
  assert.deepEqual(
    counted(() => assert.equal(parsePayload(big)?.record, 'unknown')),
    { size: 1, schema: 0 }
  );
  assert.deepEqual(
    counted(() =>
      assert.equal(
        parsePayload({ schema_version: 999, record: 'summary' })?.record,
        'unknown'
      )
    ),
    { size: 0, schema: 0 }
  );
});

test('one record object met twice (renderer, then the saved outputs) is checked once', () => {
  const record = fixture();
  const outputs = [
    { output_type: 'display_data', data: { [MIME_TYPE]: record }, metadata: {} }
  ];
  let first: unknown;
  assert.deepEqual(
    counted(() => (first = checkPayload(record)())),
    ONE
  );
  assert.deepEqual(
    counted(() => assert.equal(payloadsFromOutputs(outputs)[0], first)),
    { size: 0, schema: 0 }
  );
  // Within other limits it is another check (the inspector's whole record).
  assert.deepEqual(
    counted(() => parsePayload(record, WHOLE_LIMITS)),
    ONE
  );
});

test('only ./intake runs the size walk and the schema check', () => {
  const src = join(ROOT, 'labextension', 'src');
  const callers: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(path);
      } else if (
        entry.name.endsWith('.ts') &&
        !entry.name.endsWith('.spec.ts') &&
        /\b(checkSchema|checkEnvelope|SizeWalk|checkLimits)\(|new SizeWalk\b/.test(
          readFileSync(path, 'utf8')
        )
      ) {
        callers.push(path.slice(src.length + 1));
      }
    }
  };
  walk(src);
  assert.deepEqual(callers.sort(), [
    'records/intake.ts',
    'records/schema.ts',
    'records/size.ts'
  ]);
});
