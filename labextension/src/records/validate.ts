/**
 * Is this a record the renderers may read? Size limits first (one iterative walk, so
 * deep or huge values cannot overflow the stack), then the record's JSON Schema (the
 * generated ../generated/schema module: the Python side's contract, not a copy of it).
 *
 * The interpreter covers what the schema uses: type, enum, const, required, properties,
 * additionalProperties (a schema for map values; `false` is not enforced, since
 * consumers ignore unknown fields), items, $ref to #/$defs, allOf, anyOf, oneOf and
 * if/then/else. Anything else in the schema is ignored. No JupyterLab imports.
 */

import { RECORD_SCHEMA } from '../generated/schema';
import { SCHEMA_VERSION } from '../model';

/** Limits on a record's size, far above what the kernel publishes (it caps long texts). */
export const LIMITS = {
  /** Nesting depth of objects and arrays. */
  depth: 64,
  /** Objects, arrays and values in all. */
  nodes: 2_000_000,
  /** Characters in all strings and keys together. */
  chars: 64_000_000,
  /** Keys of one object. */
  keys: 10_000
};

export type Verdict = { ok: true } | { ok: false; reason: string };

type Schema = { [key: string]: unknown };

const OK: Verdict = { ok: true };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function own(o: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

/** Check the size limits without recursion. */
export function checkLimits(value: unknown, limits = LIMITS): Verdict {
  const stack: [unknown, number][] = [[value, 1]];
  let nodes = 0;
  let chars = 0;
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (++nodes > limits.nodes) {
      return { ok: false, reason: `it has more than ${limits.nodes} values` };
    }
    if (typeof v === 'string') {
      chars += v.length;
    } else if (typeof v === 'object' && v !== null) {
      if (depth > limits.depth) {
        return { ok: false, reason: `it is nested deeper than ${limits.depth} levels` };
      }
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          stack.push([v[i], depth + 1]);
        }
      } else {
        const keys = Object.keys(v);
        if (keys.length > limits.keys) {
          return { ok: false, reason: `an object has more than ${limits.keys} keys` };
        }
        for (const k of keys) {
          chars += k.length;
          stack.push([(v as Record<string, unknown>)[k], depth + 1]);
        }
      }
    }
    if (chars > limits.chars) {
      return { ok: false, reason: `its texts are longer than ${limits.chars} characters in all` };
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
    return Number.isInteger(v) ? 'integer' : 'number';
  }
  return typeof v;
}

function matchesType(v: unknown, type: string): boolean {
  const t = typeOf(v);
  return t === type || (type === 'number' && t === 'integer');
}

function show(v: unknown): string {
  const s = typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : String(JSON.stringify(v) ?? v);
  return s.length > 60 ? s.slice(0, 60) + '…' : s;
}

/** How deep in the record an error message's path points (`record.a[0].b` is 3). */
function depthOf(error: string): number {
  const path = error.split(' ', 1)[0];
  let n = 0;
  for (const ch of path) {
    n += ch === '.' || ch === '[' ? 1 : 0;
  }
  return n;
}

class Validator {
  constructor(private readonly _root: Schema) {}

  check(v: unknown, schema: unknown, path: string): string | null {
    if (!isObject(schema)) {
      return null; // `true` / unknown: anything goes
    }
    if (typeof schema.$ref === 'string') {
      const target = this._resolve(schema.$ref);
      const err = this.check(v, target, path);
      if (err) {
        return err;
      }
    }
    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
      if (!types.some(t => matchesType(v, t))) {
        return `${path} must be ${types.join(' or ')}, not ${typeOf(v)}`;
      }
    }
    if (own(schema, 'const') && v !== schema.const) {
      return `${path} must be ${show(schema.const)}, not ${show(v)}`;
    }
    if (Array.isArray(schema.enum) && !schema.enum.includes(v)) {
      return `${path} must be one of ${schema.enum.map(show).join(', ')}, not ${show(v)}`;
    }
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      const subs = schema[key];
      if (!Array.isArray(subs)) {
        continue;
      }
      const errors = (key === 'allOf' ? subs : this._discriminate(v, subs)).map(s => this.check(v, s, path));
      if (key === 'allOf') {
        const err = errors.find(e => e !== null);
        if (err) {
          return err;
        }
      } else if (!errors.some(e => e === null)) {
        // The branch that matched furthest (deepest path) says best what is wrong.
        let best: string | null = null;
        for (const e of errors) {
          if (e !== null && (best === null || depthOf(e) > depthOf(best))) {
            best = e;
          }
        }
        return best ?? `${path} matches none of the allowed shapes`;
      }
    }
    if (schema.if !== undefined) {
      const branch = this.check(v, schema.if, path) === null ? schema.then : schema.else;
      const err = branch === undefined ? null : this.check(v, branch, path);
      if (err) {
        return err;
      }
    }
    if (isObject(v)) {
      if (Array.isArray(schema.required)) {
        for (const key of schema.required as string[]) {
          if (!own(v, key)) {
            return `${path} lacks the field "${key}"`;
          }
        }
      }
      const props = isObject(schema.properties) ? schema.properties : {};
      const extra = isObject(schema.additionalProperties) ? schema.additionalProperties : null;
      for (const key of Object.keys(v)) {
        const sub = own(props, key) ? props[key] : extra;
        if (sub) {
          const err = this.check(v[key], sub, `${path}.${key.slice(0, 40)}`);
          if (err) {
            return err;
          }
        }
      }
    } else if (Array.isArray(v) && schema.items !== undefined) {
      for (let i = 0; i < v.length; i++) {
        const err = this.check(v[i], schema.items, `${path}[${i}]`);
        if (err) {
          return err;
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
    const fits = subs.filter(sub => {
      const target = isObject(sub) && typeof sub.$ref === 'string' ? this._resolve(sub.$ref) : sub;
      const props = isObject(target) && isObject(target.properties) ? target.properties : {};
      return Object.keys(props).every(k => {
        const p = props[k];
        return !isObject(p) || !own(p, 'const') || !own(v, k) || v[k] === p.const;
      });
    });
    return fits.length ? fits : subs;
  }

  private _resolve(ref: string): unknown {
    const m = /^#\/\$defs\/([^/]+)$/.exec(ref);
    const defs = this._root.$defs;
    return m && isObject(defs) && own(defs, m[1]) ? defs[m[1]] : undefined;
  }
}

const validator = new Validator(RECORD_SCHEMA as Schema);

/**
 * Whether `value` is a record this extension can render: its schema version, its size,
 * its shape. The reason is a short sentence for the note shown in its place.
 */
export function validateRecord(value: unknown): Verdict {
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
  const limits = checkLimits(value);
  if (!limits.ok) {
    return limits;
  }
  const err = validator.check(value, RECORD_SCHEMA, 'record');
  return err ? { ok: false, reason: `it does not match the record schema: ${err}` } : OK;
}
