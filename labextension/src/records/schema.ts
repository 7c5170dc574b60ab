/**
 * The schema check: is an untrusted record one this extension reads (its schema version
 * and kind), and does it match the JSON Schema of its kind (the generated
 * ../generated/schema module: the Python side's contract, not a copy of it)? A record
 * that passes has the generated wire type of its kind (../generated/record), so the
 * readers (./parse, ./parsereports, ./parseparts) read its fields as typed and check
 * only what the schema does not say (line numbers floored and non-negative, links https
 * only, caps). Called by ./intake only, after ./size's walk (so the value is bounded).
 *
 * A hand-written interpreter, not a JSON-Schema library: Ajv 8's compiled validator is
 * faster on big valid records (scripts/bench-schema.mjs, on the hostile-record fuzz
 * corpus), but it compiles the schema when loaded (about 0.3 s, with `new Function`),
 * refuses records for the unknown fields this reader must ignore, and words errors its
 * own way; the notes here say 'record.targets[0].kernels[0].language must be one of
 * "cpp", "triton", "python", not "toString"', the deepest error among the
 * alternatives. Each schema object's keywords are read once (`INode`). It covers what
 * the schema uses: type, enum, const, required, properties, additionalProperties (a
 * schema for map values; `false` is not enforced, since consumers ignore unknown
 * fields), items, $ref to #/$defs, allOf, anyOf, oneOf and if/then/else. Anything else
 * in the schema is ignored. A number must be finite (JSON has no other; `1e400` parses
 * to Infinity).
 * No JupyterLab imports.
 */

import { RECORD_SCHEMA } from '../generated/schema';
import type * as R from '../generated/record';
import { SCHEMA_VERSION } from '../model/payload';
import { clip } from '../ui/format';

type Schema = { [key: string]: unknown };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function own(o: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

function typeOf(v: unknown): string {
  if (v === null) {
    return 'null';
  }
  if (Array.isArray(v)) {
    return 'array';
  }
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) {
      return 'non-finite number';
    }
    return Number.isInteger(v) ? 'integer' : 'number';
  }
  return typeof v;
}

function show(v: unknown): string {
  const s =
    typeof v === 'string'
      ? JSON.stringify(v.slice(0, 40))
      : String(JSON.stringify(v) ?? v);
  return s.length > 60 ? s.slice(0, 60) + '…' : s;
}

/** What is wrong and where: `at` is the path below the checked value (`.a[0].b`). */
interface IError {
  at: string;
  msg: string;
}

/** How deep in the record an error points (`.a[0].b` is 3). */
function depthOf(error: IError): number {
  let n = 0;
  for (const ch of error.at) {
    n += ch === '.' || ch === '[' ? 1 : 0;
  }
  return n;
}

function below(step: string, error: IError | null): IError | null {
  return error && { at: step + error.at, msg: error.msg };
}

/**
 * A schema object's keywords, read once (the check runs per value, over and over for
 * the same schema objects).
 */
interface INode {
  ref: string | null;
  types: string[] | null;
  hasConst: boolean;
  constant: unknown;
  enumValues: unknown[] | null;
  allOf: unknown[] | null;
  anyOf: unknown[] | null;
  oneOf: unknown[] | null;
  hasIf: boolean;
  ifSchema: unknown;
  thenSchema: unknown;
  elseSchema: unknown;
  required: string[] | null;
  props: Map<string, unknown>;
  extra: Record<string, unknown> | null;
  hasItems: boolean;
  items: unknown;
}

function nodeOf(schema: Schema): INode {
  const props = new Map<string, unknown>();
  if (isObject(schema.properties)) {
    for (const key of Object.keys(schema.properties)) {
      props.set(key, schema.properties[key]);
    }
  }
  const list = (v: unknown) => (Array.isArray(v) ? (v as unknown[]) : null);
  return {
    ref: typeof schema.$ref === 'string' ? schema.$ref : null,
    types:
      schema.type === undefined
        ? null
        : Array.isArray(schema.type)
          ? (schema.type as string[])
          : [schema.type as string],
    hasConst: own(schema, 'const'),
    constant: schema.const,
    enumValues: list(schema.enum),
    allOf: list(schema.allOf),
    anyOf: list(schema.anyOf),
    oneOf: list(schema.oneOf),
    hasIf: schema.if !== undefined,
    ifSchema: schema.if,
    thenSchema: schema.then,
    elseSchema: schema.else,
    required: list(schema.required) as string[] | null,
    props,
    extra: isObject(schema.additionalProperties)
      ? schema.additionalProperties
      : null,
    hasItems: schema.items !== undefined,
    items: schema.items
  };
}

class Validator {
  constructor(private readonly _root: Schema) {}

  /** The first error of `v` against `schema`; paths are built only for an error. */
  check(v: unknown, schema: unknown): IError | null {
    if (!isObject(schema)) {
      return null; // `true` / unknown: anything goes
    }
    let node = this._nodes.get(schema);
    if (!node) {
      node = nodeOf(schema);
      this._nodes.set(schema, node);
    }
    if (node.ref !== null) {
      const err = this.check(v, this._resolve(node.ref));
      if (err) {
        return err;
      }
    }
    if (node.types !== null) {
      const t = typeOf(v);
      let fits = false;
      for (const type of node.types) {
        if (t === type || (type === 'number' && t === 'integer')) {
          fits = true;
          break;
        }
      }
      if (!fits) {
        return {
          at: '',
          msg: `must be ${node.types.join(' or ')}, not ${t}`
        };
      }
    }
    if (node.hasConst && v !== node.constant) {
      return { at: '', msg: `must be ${show(node.constant)}, not ${show(v)}` };
    }
    if (node.enumValues !== null && !node.enumValues.includes(v)) {
      return {
        at: '',
        msg: `must be one of ${node.enumValues.map(show).join(', ')}, not ${show(v)}`
      };
    }
    if (node.allOf !== null) {
      for (const sub of node.allOf) {
        const err = this.check(v, sub);
        if (err) {
          return err;
        }
      }
    }
    for (const subs of [node.anyOf, node.oneOf]) {
      if (subs === null) {
        continue;
      }
      // The first branch that fits will do; when none does, the one that matched
      // furthest (deepest path) says best what is wrong.
      let best: IError | null = null;
      let fits = false;
      for (const sub of this._discriminate(v, subs)) {
        const e = this.check(v, sub);
        if (e === null) {
          fits = true;
          break;
        }
        if (best === null || depthOf(e) > depthOf(best)) {
          best = e;
        }
      }
      if (!fits) {
        return best ?? { at: '', msg: 'matches none of the allowed shapes' };
      }
    }
    if (node.hasIf) {
      const branch =
        this.check(v, node.ifSchema) === null
          ? node.thenSchema
          : node.elseSchema;
      const err = branch === undefined ? null : this.check(v, branch);
      if (err) {
        return err;
      }
    }
    if (isObject(v)) {
      if (node.required !== null) {
        for (const key of node.required) {
          if (!own(v, key)) {
            return { at: '', msg: `lacks the field "${key}"` };
          }
        }
      }
      const props = node.props;
      const extra = node.extra;
      for (const key of Object.keys(v)) {
        const sub = props.has(key) ? props.get(key) : extra;
        if (sub) {
          const err = this.check(v[key], sub);
          if (err) {
            return below(`.${key.slice(0, 40)}`, err);
          }
        }
      }
    } else if (Array.isArray(v) && node.hasItems) {
      const items = node.items;
      for (let i = 0; i < v.length; i++) {
        const err = this.check(v[i], items);
        if (err) {
          return below(`[${i}]`, err);
        }
      }
    }
    return null;
  }

  /**
   * The alternatives whose constant fields (`record: "summary"`) `v` has, so that a
   * record fails with its own kind's error; all of them if none fits.
   */
  private _discriminate(v: unknown, subs: unknown[]): unknown[] {
    if (!isObject(v)) {
      return subs;
    }
    const fits = subs.filter(sub =>
      this._consts(sub).every(([k, c]) => !own(v, k) || v[k] === c)
    );
    return fits.length ? fits : subs;
  }

  /** The constant fields of an alternative (`[["record", "summary"]]`), worked out once. */
  private _consts(sub: unknown): [string, unknown][] {
    if (!isObject(sub)) {
      return [];
    }
    let found = this._constCache.get(sub);
    if (!found) {
      const target =
        typeof sub.$ref === 'string' ? this._resolve(sub.$ref) : sub;
      const props =
        isObject(target) && isObject(target.properties)
          ? target.properties
          : {};
      found = [];
      for (const k of Object.keys(props)) {
        const p = props[k];
        if (isObject(p) && own(p, 'const')) {
          found.push([k, p.const]);
        }
      }
      this._constCache.set(sub, found);
    }
    return found;
  }

  private _resolve(ref: string): unknown {
    if (!this._refCache.has(ref)) {
      const m = /^#\/\$defs\/([^/]+)$/.exec(ref);
      const defs = this._root.$defs;
      this._refCache.set(
        ref,
        m && isObject(defs) && own(defs, m[1]) ? defs[m[1]] : undefined
      );
    }
    return this._refCache.get(ref);
  }

  private readonly _nodes = new WeakMap<object, INode>();
  private readonly _refCache = new Map<string, unknown>();
  private readonly _constCache = new WeakMap<object, [string, unknown][]>();
}

const validator = new Validator(RECORD_SCHEMA as Schema);

/** A record of the profile or suggestions kind (their schema leaves `record` open). */
export type ProfileRecord = R.Profile & { record: 'profile' };
export type SuggestionsRecord = R.Suggestions & { record: 'suggestions' };

/** A record that passed `checkSchema`: the wire type of its kind. */
export type WireRecord =
  | R.SummaryRecord
  | R.TargetRecord
  | R.Comparison
  | ProfileRecord
  | SuggestionsRecord
  | R.TraceRecord
  | R.Diagnosis
  | R.CompileTime;

/** The schema definition each record kind this version shows is checked against. */
const KIND_SCHEMAS: ReadonlyMap<string, Schema> = new Map(
  (
    [
      ['summary', 'SummaryRecord'],
      ['target', 'TargetRecord'],
      ['timing', 'Comparison'],
      ['profile', 'Profile'],
      ['suggestions', 'Suggestions'],
      ['trace', 'TraceRecord'],
      ['diagnosis', 'Diagnosis'],
      ['compile_time', 'CompileTime']
    ] as const
  ).map(([kind, def]) => [kind, { $ref: `#/$defs/${def}` }])
);

/** A record's envelope: the object and the kind of record it says it is. */
export type Envelope =
  | { ok: true; value: Record<string, unknown>; kind: string }
  | { ok: false; reason: string };

/**
 * Whether `value` is a record this version reads: an object of its schema version, of a
 * kind it shows (cheap: no walk). The reason is a short sentence for the note shown in
 * its place.
 */
export function checkEnvelope(value: unknown): Envelope {
  if (!isObject(value)) {
    return { ok: false, reason: 'it is not a JSON object' };
  }
  const version = value.schema_version;
  if (version !== SCHEMA_VERSION) {
    return {
      ok: false,
      reason:
        typeof version === 'number'
          ? `it is schema version ${show(version)}, and this version of the extension reads version ${SCHEMA_VERSION}; updating nbcompile may show it`
          : `it has no valid schema_version (this extension reads version ${SCHEMA_VERSION})`
    };
  }
  const kind =
    typeof value.record === 'string' ||
    typeof value.record === 'number' ||
    typeof value.record === 'boolean'
      ? String(value.record)
      : '';
  if (!KIND_SCHEMAS.has(kind)) {
    return {
      ok: false,
      reason: `it is a record of kind "${clip(kind, 40)}" this version does not show`
    };
  }
  return { ok: true, value, kind };
}

export type Checked =
  { ok: true; record: WireRecord } | { ok: false; reason: string };

/**
 * A record whose envelope passed (`checkEnvelope`) against the schema of its `kind`:
 * typed, or the first thing wrong with it, as a short sentence.
 */
export function checkSchema(
  value: Record<string, unknown>,
  kind: string
): Checked {
  const err = validator.check(value, KIND_SCHEMAS.get(kind));
  return err
    ? {
        ok: false,
        reason: `it does not match the record schema: record${err.at} ${err.msg}`
      }
    : { ok: true, record: value as unknown as WireRecord };
}
