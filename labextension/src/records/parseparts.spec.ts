/**
 * The pieces several record kinds share: links are https only.
 * Run: npm test.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { IProfilePayload } from '../model/profile';
import { parsePayload } from './intake';
import { safeUrl } from './parseparts';

import { recordFixture } from '../../test/support';

test('links in records: only https URLs are kept', () => {
  assert.equal(
    safeUrl('https://meta-pytorch.github.io/x.html'),
    'https://meta-pytorch.github.io/x.html'
  );
  assert.equal(safeUrl('javascript:alert(1)'), '');
  assert.equal(safeUrl('http://example.com'), '');
  assert.equal(safeUrl('not a url'), '');
  const raw = recordFixture('profile');
  (raw.graph_breaks as Record<string, unknown>[])[0].doc_url =
    'javascript:alert(1)';
  const p = parsePayload(raw) as IProfilePayload;
  assert.equal(p.graph_breaks[0].doc_url, '');
});
