/**
 * A saved inspector's sentences, read from an output's metadata (Python's `SavedView`):
 * strings only, capped; no sentence, no saved view. Run: npm test.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { MIME_TYPE } from '../model/payload';
import { savedViewOf } from './savedview';

test('the saved view is read from the metadata under the record MIME type', () => {
  const meta = {
    [MIME_TYPE]: {
      inspector: {
        text: 'saved',
        again_label: 'Inspect again',
        no_answer: 'none'
      }
    }
  };
  assert.deepEqual(savedViewOf(meta), {
    text: 'saved',
    againLabel: 'Inspect again',
    noAnswer: 'none'
  });
});

test('metadata that names no saved view, or a hostile one, gives none or empty strings', () => {
  for (const meta of [
    undefined,
    null,
    {},
    { [MIME_TYPE]: null },
    { [MIME_TYPE]: { inspector: 'x' } },
    { [MIME_TYPE]: { inspector: { text: 3 } } },
    { 'text/html': { inspector: { text: 'saved' } } }
  ]) {
    assert.equal(savedViewOf(meta), null, JSON.stringify(meta));
  }
  const hostile = savedViewOf({
    [MIME_TYPE]: {
      inspector: { text: 'x'.repeat(10_000), again_label: {}, no_answer: [1] }
    }
  });
  assert.ok(hostile?.text.startsWith('x'.repeat(500) + '…'));
  assert.ok((hostile?.text.length ?? 0) < 600);
  assert.equal(hostile?.againLabel, '');
  assert.equal(hostile?.noAnswer, '');
});
