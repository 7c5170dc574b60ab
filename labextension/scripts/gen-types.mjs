#!/usr/bin/env node
// Generate, from the JSON Schema (the Python side's contract), the TypeScript record types
// (record.ts), the schema as a module (schema.ts) for the renderer's validator, and each
// record object's fields, defaults and maps (fields.ts) for the view model's readers.
// Usage: node scripts/gen-types.mjs [OUTDIR]   (default: src/generated)
// tests/project/test_labextension.py runs this into a temp dir and compares with the
// committed files.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';
import { format } from 'prettier';

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

const isObject = v => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A property read as a `Map`: an object keyed by record strings (a schema for its
 * values, no named properties), or null or such an object. */
function isMap(prop) {
  if (Array.isArray(prop.anyOf)) {
    return prop.anyOf.some(isMap);
  }
  return (
    prop.type === 'object' &&
    !prop.properties &&
    (prop.additionalProperties === true || isObject(prop.additionalProperties))
  );
}

/** fields.ts: per `$defs` entry, its fields, the defaults of the optional ones (the
 * schema's `default`, from the dataclass) and its maps. */
function fieldsModule(defs, recordTs) {
  const q = s => `'${s}'`;
  const names = Object.keys(defs).filter(name =>
    isObject(defs[name].properties)
  );
  for (const name of names) {
    if (!recordTs.includes(`export interface ${name} {`)) {
      throw new Error(`record.ts has no interface ${name} for $defs/${name}`);
    }
  }
  const entries = names.map(name => {
    const def = defs[name];
    const required = new Set(def.required ?? []);
    const fields = Object.keys(def.properties);
    const defaults = fields
      .filter(f => !required.has(f))
      .map(f => {
        if (!('default' in def.properties[f])) {
          throw new Error(`${name}.${f} is optional and has no default`);
        }
        return `${f}: ${JSON.stringify(def.properties[f].default)}`;
      });
    const maps = fields.filter(f => isMap(def.properties[f]));
    return (
      `  ${name}: {\n` +
      `    fields: [${fields.map(q).join(', ')}],\n` +
      `    defaults: { ${defaults.join(', ')} },\n` +
      `    maps: [${maps.map(q).join(', ')}]\n` +
      '  }'
    );
  });
  return `/* Generated from nbcompile/schema/record-v1.schema.json by scripts/gen-types.mjs.
 * Do not edit: run \`npm run gen:types\`. Read by ../records/coerce.ts (\`present\`) and
 * the view model, ../model/ (\`View\`). */

import type * as R from './record';

/** Each record object of the schema (its \`$defs\`), by name: its wire type. */
export interface IWire {
${names.map(name => `  ${name}: R.${name};`).join('\n')}
}

/** The fields of \`T\` a record may lack. */
export type OptionalKeys<T> = {
  [K in keyof T]-?: object extends Pick<T, K> ? K : never;
}[keyof T];

/** An object keyed by record strings (\`{ [k: string]: V }\`) as a \`Map\`; else as it is. */
export type AsMap<V> = V extends readonly unknown[]
  ? V
  : V extends object
    ? string extends keyof V
      ? V extends { [k: string]: infer E }
        ? Map<string, E>
        : V
      : V
    : V;

/** The fields of \`T\` read as \`Map\`s. */
export type MapKeys<T> = {
  [K in keyof T]-?: AsMap<Exclude<T[K], undefined | null>> extends Map<string, unknown>
    ? K
    : never;
}[keyof T];

/** A wire type with every field present (an absent one: its default) and its maps
 * \`Map\`s: what \`present\` (../records/coerce.ts) makes of a checked record object. */
export type Present<T> = { [K in keyof T]-?: AsMap<Exclude<T[K], undefined>> };

/**
 * The view of wire type \`T\` (the view model, ../model/): every field of \`T\` present (as
 * \`Present\`), but those in \`Over\` as \`Over\` says (parsed sub-records, plain strings
 * for values a newer kernel may extend, fields the view adds). Only \`Over\` is written by
 * hand.
 */
export type View<T, Over = object> = Omit<Present<T>, keyof Over> & Over;

/** How one record object is read: its fields (the schema's order), the default of
 * each field a record may lack, the fields read as \`Map\`s. */
export interface IFields<T> {
  fields: readonly (keyof T & string)[];
  defaults: { [K in OptionalKeys<T>]-?: Exclude<T[K], undefined> };
  maps: readonly MapKeys<T>[];
}

export const FIELDS: { [N in keyof IWire]: IFields<IWire[N]> } = {
${entries.join(',\n')}
};
`;
}
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
  join(outDir, 'fields.ts'),
  await format(fieldsModule(schema.$defs, ts), {
    parser: 'typescript',
    singleQuote: true,
    trailingComma: 'none',
    arrowParens: 'avoid',
    printWidth: 100
  })
);
writeFileSync(
  join(outDir, 'schema.ts'),
  '/* Generated from nbcompile/schema/record-v1.schema.json by scripts/gen-types.mjs.\n' +
    ' * Do not edit: run `npm run gen:types`. Read by ../records/schema.ts. */\n\n' +
    `export const RECORD_SCHEMA: unknown = ${JSON.stringify(schema, null, 2)};\n`
);
