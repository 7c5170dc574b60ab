/**
 * Compile-time words: which compile of which frame, as the kernel's text says it.
 * Run: npm test.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { frameWords } from './compiletimetext';

test("a frame compile is named in words, with torch's compile id", () => {
  assert.equal(
    frameWords({ compile_id: '0/0', frame: 'inner' }),
    "inner, its first compile (torch's compile id 0/0)"
  );
  assert.equal(
    frameWords({ compile_id: '1/2', frame: 'forward' }),
    "forward, recompile 2 (torch's compile id 1/2)"
  );
  assert.equal(frameWords({ compile_id: '', frame: 'f' }), 'f');
});
