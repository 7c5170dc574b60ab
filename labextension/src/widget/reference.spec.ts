/**
 * The inline inspector's loader finds the module widget holding the inspector's code only
 * through a widget reference (never a URL, never a path). Run: npm test.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { moduleId } from './reference';

test("an inspector's module widget is found only through a widget reference", () => {
  assert.equal(moduleId('IPY_MODEL_0f3a9c'), '0f3a9c');
  for (const bad of [
    undefined,
    null,
    42,
    '',
    'IPY_MODEL_',
    '0f3a9c',
    'IPY_MODEL_../../x',
    'IPY_MODEL_<img src=x onerror=alert(1)>',
    'https://example.com/inspector.js',
    `IPY_MODEL_${'a'.repeat(65)}`
  ]) {
    assert.throws(() => moduleId(bad), /names no module widget/);
  }
});
