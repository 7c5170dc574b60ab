/**
 * What the readers (./parse, ./parseparts, ./parsereports) do to a record that ./intake
 * checked (./schema typed): `present` fills every field a record may lack with its
 * default and reads record-keyed objects as `Map`s, both as the generated
 * ../generated/fields says (from the schema); the rest here is the value limits the
 * schema does not state (line numbers floored and non-negative) and coercion of the few
 * values the schema leaves open (a target's options, fields of older timing records), so
 * a value of the wrong type there becomes its fallback, never an exception or an object
 * lookup. No DOM, no JupyterLab.
 */

import { FIELDS, IWire, Present } from '../generated/fields';
import type * as R from '../generated/record';
import type { ISourceLine } from '../model/parts';

/** The fields of a wire type, each of unknown type until checked. */
export type Loose<T> = { [K in keyof T]?: unknown };

export type Json = unknown;

export function obj<T>(v: Json): Loose<T> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : null;
}

export function str(v: Json, fallback = ''): string {
  if (typeof v === 'string') {
    return v;
  }
  if (typeof v === 'number' || typeof v === 'boolean') {
    return String(v);
  }
  return fallback;
}

export function strOrNull(v: Json): string | null {
  return typeof v === 'string' ? v : null;
}

export function numOrNull(v: Json): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

export function boolOrNull(v: Json): boolean | null {
  return typeof v === 'boolean' ? v : null;
}

/** A line number: a non-negative integer or null (fractions are floored). */
export function lineOrNull(v: number | null | undefined): number | null {
  return typeof v === 'number' && v >= 0 ? Math.floor(v) : null;
}

/** Line numbers, those that are not (negative) left out. */
export function lines(v: readonly number[]): number[] {
  const out: number[] = [];
  for (const x of v) {
    const n = lineOrNull(x);
    if (n !== null) {
      out.push(n);
    }
  }
  return out;
}

/** Own entries of a JSON object as a Map (never an object keyed by record strings). */
export function entries(v: Json): [string, Json][] {
  return obj<Record<string, Json>>(v) ? Object.entries(v as object) : [];
}

/** A record's map of numbers (`{"total_s": 1.5}`) as a `Map`; none when absent. */
export function numMap(
  v: { [k: string]: number } | undefined
): Map<string, number> {
  return new Map(v ? Object.entries(v) : []);
}

/** Own property `k` of `o` (never one inherited from `Object.prototype`). */
function own(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/**
 * A checked record object of schema definition `name` with every field present: the
 * schema's fields only (unknown ones a newer kernel adds are left out), an absent one
 * its default, arrays copied, record-keyed objects as `Map`s. A reader spreads it and
 * writes only what it reads differently (sub-records, limits, clamps): see the `View`
 * type of ../model/parts.
 */
export function present<N extends keyof IWire>(
  name: N,
  o: IWire[N]
): Present<IWire[N]> {
  const spec = FIELDS[name];
  const defaults: Record<string, unknown> = spec.defaults;
  const wire = o as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of spec.fields) {
    const v = own(wire, k) ? wire[k] : defaults[k];
    out[k] = Array.isArray(v) ? (v as unknown[]).slice() : v;
  }
  for (const k of spec.maps as readonly string[]) {
    out[k] = out[k] === null ? null : new Map(entries(out[k]));
  }
  return out as Present<IWire[N]>;
}

export function parseSourceLine(o: R.SourceLine): ISourceLine {
  return { ...present('SourceLine', o), lineno: lineOrNull(o.lineno) };
}
