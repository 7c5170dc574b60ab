/**
 * The inline inspector widget's channel: its `record` trait and the kernel's whole-record
 * answer enter through the sidebar's intake (one size walk, one schema check each), with
 * the sidebar's limits: a published record within the output limits, the whole record
 * within the comm's. Run: npm test.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { MIME_TYPE } from '../model/payload';
import { checkCounts } from '../records/intake';
import { LIMITS, WHOLE_LIMITS } from '../records/size';
import { isCut, WANT_WHOLE, widgetPayload, wholePayload } from './channel';

import { fixture } from '../../test/support';

test('the record trait goes through the intake: hostile records are refused, said why', () => {
  assert.equal(widgetPayload(undefined), null);
  assert.equal(widgetPayload(null), null);
  const before = { ...checkCounts };
  const ok = widgetPayload(fixture());
  assert.equal(ok?.record, 'summary');
  assert.deepEqual(
    {
      size: checkCounts.size - before.size,
      schema: checkCounts.schema - before.schema
    },
    { size: 1, schema: 1 }
  );
  const reason = (v: unknown) => {
    const p = widgetPayload(v);
    assert.ok(p && p.record === 'unknown', JSON.stringify(p)?.slice(0, 200));
    return p.reason;
  };
  const script = fixture() as { targets: Record<string, unknown>[] };
  script.targets[0].kernels = [{ language: '<script>alert(1)</script>' }];
  assert.match(reason(script), /kernels\[0\]/);
  let deep: unknown = 'bottom';
  for (let i = 0; i < 5000; i++) {
    deep = { d: deep };
  }
  const nested = fixture() as { targets: Record<string, unknown>[] };
  nested.targets[0].options = { x: deep };
  assert.match(reason(nested), /nested deeper than 64 levels/);
  // Over the published record's byte cap (the whole record's is larger): refused here.
  const big = fixture() as { targets: Record<string, unknown>[] };
  big.targets[0].output_code = 'x'.repeat(LIMITS.bytes + 1);
  assert.ok(LIMITS.bytes + 1 < WHOLE_LIMITS.bytes);
  assert.match(reason(big), /larger than 8 MB/);
});

test('the whole record comes as the comm brings it, within the whole-record limits', () => {
  assert.deepEqual(WANT_WHOLE, { type: 'whole' });
  const big = fixture() as { targets: Record<string, unknown>[] };
  big.targets[0].output_code = 'x'.repeat(LIMITS.bytes + 1);
  const whole = wholePayload({ data: { [MIME_TYPE]: big } });
  assert.equal(whole?.record, 'summary');
  assert.equal(wholePayload({ data: {} }), null);
  assert.equal(wholePayload('<b>not a message</b>'), null);
  assert.equal(wholePayload({ data: { [MIME_TYPE]: [1] } }), null);
});

test('a cut target is one to ask the kernel for', () => {
  const payload = widgetPayload(fixture());
  assert.equal(payload?.record, 'summary');
  const cut = fixture() as { targets: Record<string, unknown>[] };
  cut.targets[1].truncated = true;
  assert.equal(isCut(widgetPayload(cut)), true);
  assert.equal(isCut(null), false);
});
