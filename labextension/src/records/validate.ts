/**
 * Untrusted record -> typed record, in one step: the size limits first (one iterative
 * walk, so deep or huge values cannot overflow the stack, stopping as soon as a limit is
 * passed), then the JSON Schema of the record's kind (the generated ../generated/schema
 * module: the Python side's contract, not a copy of it). A record that passes has the
 * generated wire type of its kind (../generated/record), so the readers (./parse,
 * ./parsereports, ./parseparts) read its fields as typed and check only what the schema
 * does not say (line numbers floored and non-negative, links https only, caps).
 *
 * The size cap is the kernel's: no record it publishes in an output is larger than its
 * largest output budget, and the record the inspector asks for is within the inspector's
 * budget (both from nbcompile/display/budget.py, carried by the schema as
 * `x-nbcompile-limits`). A record over it is refused with a note, never rendered whole.
 *
 * The interpreter covers what the schema uses: type, enum, const, required, properties,
 * additionalProperties (a schema for map values; `false` is not enforced, since
 * consumers ignore unknown fields), items, $ref to #/$defs, allOf, anyOf, oneOf and
 * if/then/else. Anything else in the schema is ignored. A number must be finite (JSON has
 * no other; `1e400` parses to Infinity). No JupyterLab imports.
 */

import { RECORD_SCHEMA } from '../generated/schema';
import type * as R from '../generated/record';
import { SCHEMA_VERSION } from '../model/payload';
import { clip } from '../ui/format';

interface IKernelLimits {
  max_record_bytes: number;
  max_whole_record_bytes: number;
}

const KERNEL = (RECORD_SCHEMA as { 'x-nbcompile-limits': IKernelLimits })[
  'x-nbcompile-limits'
];

export interface ILimits {
  /** Nesting depth of objects and arrays. */
  depth: number;
  /** Objects, arrays and values in all. */
  nodes: number;
  /** Bytes of the record's JSON (counted from below: strings, keys and punctuation). */
  bytes: number;
  /** Keys of one object. */
  keys: number;
}

/** Limits on a record published in an output (saved in a notebook, or live). */
export const LIMITS: ILimits = {
  depth: 64,
  nodes: 2_000_000,
  bytes: KERNEL.max_record_bytes,
  keys: 10_000
};

/** Limits on the whole record the inspector asked the live kernel for. */
export const WHOLE_LIMITS: ILimits = {
  ...LIMITS,
  bytes: KERNEL.max_whole_record_bytes
};

function megabytes(n: number): string {
  return `${(n / (1024 * 1024)).toFixed(n % (1024 * 1024) ? 1 : 0)} MB`;
}

export type Verdict = { ok: true } | { ok: false; reason: string };

type Schema = { [key: string]: unknown };

const OK: Verdict = { ok: true };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function own(o: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

/**
 * Check the size limits without recursion. The byte count is a lower bound of the JSON's
 * UTF-8 size (a UTF-16 unit is at least one byte; a number, true or null counts one), so
 * a record within the kernel's budget always passes; the walk stops at the first limit
 * passed.
 */
export function checkLimits(value: unknown, limits: ILimits = LIMITS): Verdict {
  // Two stacks (values, depths): no allocation per value.
  const values: unknown[] = [value];
  const depths: number[] = [1];
  let nodes = 0;
  let bytes = 0;
  const tooLarge = (): Verdict => ({
    ok: false,
    reason:
      `it is larger than ${megabytes(limits.bytes)}, the largest record nbcompile publishes ` +
      '(%nbcompile config --output-budget); the kernel that made it has it whole'
  });
  while (values.length) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (++nodes > limits.nodes) {
      return { ok: false, reason: `it has more than ${limits.nodes} values` };
    }
    if (typeof v === 'string') {
      bytes += v.length + 2;
    } else if (typeof v === 'object' && v !== null) {
      if (depth > limits.depth) {
        return {
          ok: false,
          reason: `it is nested deeper than ${limits.depth} levels`
        };
      }
      if (Array.isArray(v)) {
        bytes += 1 + Math.max(v.length, 1); // brackets and separators
        if (bytes > limits.bytes) {
          return tooLarge();
        }
        for (let i = 0; i < v.length; i++) {
          values.push(v[i]);
          depths.push(depth + 1);
        }
      } else {
        const keys = Object.keys(v);
        if (keys.length > limits.keys) {
          return {
            ok: false,
            reason: `an object has more than ${limits.keys} keys`
          };
        }
        bytes += 1 + Math.max(keys.length, 1);
        for (const k of keys) {
          bytes += k.length + 3; // quotes and a colon
        }
        if (bytes > limits.bytes) {
          return tooLarge();
        }
        for (const k of keys) {
          values.push((v as Record<string, unknown>)[k]);
          depths.push(depth + 1);
        }
      }
    } else {
      bytes += 1;
    }
    if (bytes > limits.bytes) {
      return tooLarge();
    }
  }
  return OK;
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

function matchesType(v: unknown, type: string): boolean {
  const t = typeOf(v);
  return t === type || (type === 'number' && t === 'integer');
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

class Validator {
  constructor(private readonly _root: Schema) {}

  /** The first error of `v` against `schema`; paths are built only for an error. */
  check(v: unknown, schema: unknown): IError | null {
    if (!isObject(schema)) {
      return null; // `true` / unknown: anything goes
    }
    if (typeof schema.$ref === 'string') {
      const target = this._resolve(schema.$ref);
      const err = this.check(v, target);
      if (err) {
        return err;
      }
    }
    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type)
        ? (schema.type as string[])
        : [schema.type as string];
      if (!types.some(t => matchesType(v, t))) {
        return {
          at: '',
          msg: `must be ${types.join(' or ')}, not ${typeOf(v)}`
        };
      }
    }
    if (own(schema, 'const') && v !== schema.const) {
      return { at: '', msg: `must be ${show(schema.const)}, not ${show(v)}` };
    }
    if (Array.isArray(schema.enum) && !schema.enum.includes(v)) {
      return {
        at: '',
        msg: `must be one of ${schema.enum.map(show).join(', ')}, not ${show(v)}`
      };
    }
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      const subs = schema[key];
      if (!Array.isArray(subs)) {
        continue;
      }
      if (key === 'allOf') {
        for (const sub of subs) {
          const err = this.check(v, sub);
          if (err) {
            return err;
          }
        }
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
    if (schema.if !== undefined) {
      const branch =
        this.check(v, schema.if) === null ? schema.then : schema.else;
      const err = branch === undefined ? null : this.check(v, branch);
      if (err) {
        return err;
      }
    }
    if (isObject(v)) {
      if (Array.isArray(schema.required)) {
        for (const key of schema.required as string[]) {
          if (!own(v, key)) {
            return { at: '', msg: `lacks the field "${key}"` };
          }
        }
      }
      const props = isObject(schema.properties) ? schema.properties : {};
      const extra = isObject(schema.additionalProperties)
        ? schema.additionalProperties
        : null;
      for (const key of Object.keys(v)) {
        const sub = own(props, key) ? props[key] : extra;
        if (sub) {
          const err = this.check(v[key], sub);
          if (err) {
            return below(`.${key.slice(0, 40)}`, err);
          }
        }
      }
    } else if (Array.isArray(v) && schema.items !== undefined) {
      for (let i = 0; i < v.length; i++) {
        const err = this.check(v[i], schema.items);
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

  private readonly _refCache = new Map<string, unknown>();
  private readonly _constCache = new WeakMap<object, [string, unknown][]>();
}

const validator = new Validator(RECORD_SCHEMA as Schema);

/** A record of the profile or suggestions kind (their schema leaves `record` open). */
export type ProfileRecord = R.Profile & { record: 'profile' };
export type SuggestionsRecord = R.Suggestions & { record: 'suggestions' };

/** A record that passed `validateRecord`: the wire type of its kind. */
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

export type Validated =
  { ok: true; record: WireRecord } | { ok: false; reason: string };

/**
 * `value` as a record this extension can render, or why not: its schema version, its
 * kind, its size, its shape (the schema of its kind). The reason is a short sentence for
 * the note shown in its place.
 */
export function validateRecord(
  value: unknown,
  limits: ILimits = LIMITS
): Validated {
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
  const schema = KIND_SCHEMAS.get(kind);
  if (!schema) {
    return {
      ok: false,
      reason: `it is a record of kind "${clip(kind, 40)}" this version does not show`
    };
  }
  const size = checkLimits(value, limits);
  if (!size.ok) {
    return size;
  }
  const err = validator.check(value, schema);
  return err
    ? {
        ok: false,
        reason: `it does not match the record schema: record${err.at} ${err.msg}`
      }
    : { ok: true, record: value as unknown as WireRecord };
}
