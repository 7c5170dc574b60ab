#!/usr/bin/env node
// Generate the TypeScript record types from the JSON Schema (the Python side's contract).
// Usage: node scripts/gen-types.mjs [OUT]   (default: src/generated/record.ts)
// The pytest test tests/test_labextension.py runs this to a temp file and compares.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';

const here = dirname(fileURLToPath(import.meta.url));
const schemaPath = join(here, '..', '..', 'nbcompile', 'schema', 'record-v1.schema.json');
const out = process.argv[2] ?? join(here, '..', 'src', 'generated', 'record.ts');

const schema = JSON.parse(readFileSync(schemaPath, 'utf8'));
const ts = await compile(schema, 'NbcompileRecord', {
  bannerComment:
    '/* Generated from nbcompile/schema/record-v1.schema.json by scripts/gen-types.mjs\n' +
    ' * (json-schema-to-typescript). Do not edit: run `npm run gen:types`. */',
  additionalProperties: false,
  unreachableDefinitions: true,
  unknownAny: true,
  style: { singleQuote: true, printWidth: 100 }
});
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, ts);
