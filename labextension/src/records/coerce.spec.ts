/**
 * `present`: a checked record object read with every field, as the schema says
 * (../generated/fields, generated from it): defaults for what an older record lacks,
 * `Map`s for record-keyed objects, nothing beyond the schema's fields.
 * Run: npm test.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { FIELDS } from '../generated/fields';
import type * as R from '../generated/record';
import { RECORD_SCHEMA } from '../generated/schema';
import { parsePayload } from './intake';
import { present } from './coerce';

import { fixture, summary } from '../../test/support';

type Def = {
  properties: Record<string, { default?: unknown }>;
  required: string[];
};

test("every optional field's default is the schema's, and every field is read", () => {
  const defs = (RECORD_SCHEMA as { $defs: Record<string, Def> }).$defs;
  for (const [name, spec] of Object.entries(FIELDS)) {
    const def = defs[name];
    assert.deepEqual(spec.fields, Object.keys(def.properties), name);
    const optional = spec.fields.filter(f => !def.required.includes(f));
    assert.deepEqual(Object.keys(spec.defaults).sort(), optional.sort(), name);
    for (const f of optional) {
      const d = (spec.defaults as Record<string, unknown>)[f];
      assert.deepEqual(d, def.properties[f].default, `${name}.${f}`);
    }
  }
});

test('a record object saved before its optional fields reads with their defaults', () => {
  const old: R.GraphBreak = {
    reason: 'r',
    filename: null,
    lineno: null,
    line: '',
    hint: '',
    explanation: '',
    gb_type: '',
    compile_id: '0/0'
  };
  assert.deepEqual(present('GraphBreak', old), {
    ...old,
    stack: [],
    gb_id: '',
    doc_url: '',
    stack_dropped: 0,
    hits: 0,
    runs_as: ''
  });
  const t = summary().targets[0];
  const raw = fixture() as { targets: Record<string, unknown>[] };
  delete raw.targets[0].stance;
  delete raw.targets[0].cell_names;
  const bare = summary(raw).targets[0];
  assert.equal(bare.stance, 'default');
  assert.deepEqual(bare.cell_names, new Map());
  assert.ok(t.cell_names instanceof Map);
});

test("a newer kernel's fields are left out; record keys stay in Maps", () => {
  const raw = fixture() as {
    targets: { compiles: Record<string, unknown>[] }[];
  };
  const c = raw.targets[0].compiles[0];
  c.a_newer_field = 'x';
  c.times = JSON.parse('{"__proto__": 1, "constructor": 2, "total_s": 3}');
  const read = summary(raw).targets[0].compiles[0];
  assert.ok(!('a_newer_field' in read));
  assert.deepEqual(
    [...read.times.keys()],
    ['__proto__', 'constructor', 'total_s']
  );
  assert.equal(Object.getPrototypeOf(read), Object.prototype);
  assert.equal(({} as Record<string, unknown>).total_s, undefined);
  // No field is read from the prototype: an own property of the schema's name only.
  const inherited = Object.create({ label: 'inherited' }) as R.CompileRecord;
  Object.assign(inherited, c);
  delete (inherited as { label?: string }).label;
  assert.equal(present('CompileRecord', inherited).label, '');
});

test("a view's arrays are its own: changing one leaves the record as it was", () => {
  const raw = fixture() as { targets: { notes: string[] }[] };
  const notes = [...raw.targets[0].notes];
  const p = parsePayload(raw);
  assert.ok(p && p.record === 'summary');
  p.targets[0].notes.push('added by a view');
  assert.deepEqual(raw.targets[0].notes, notes);
});
