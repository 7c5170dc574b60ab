#!/usr/bin/env node
// Generate, from the JSON Schema (the Python side's contract), the TypeScript record types
// (record.ts) and the schema as a module (schema.ts) for the renderer's validator.
// Usage: node scripts/gen-types.mjs [OUTDIR]   (default: src/generated)
// tests/test_labextension.py runs this into a temp dir and compares with the committed files.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';

const here = dirname(fileURLToPath(import.meta.url));
const schemaPath = join(
  here,
  '..',
  '..',
  'nbcompile',
  'schema',
  'record-v1.schema.json'
);
const outDir = process.argv[2] ?? join(here, '..', 'src', 'generated');

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
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'record.ts'), ts);
writeFileSync(
  join(outDir, 'schema.ts'),
  '/* Generated from nbcompile/schema/record-v1.schema.json by scripts/gen-types.mjs.\n' +
    ' * Do not edit: run `npm run gen:types`. Read by ../records/schema.ts. */\n\n' +
    `export const RECORD_SCHEMA: unknown = ${JSON.stringify(schema, null, 2)};\n`
);
