/**
 * What the readers (./parse, ./parseparts, ./parsereports) still do to a record that
 * ./intake checked (./schema typed): the value limits the schema does not state (line
 * numbers floored and non-negative), record-keyed objects as `Map`s, and coercion of
 * the few values the schema leaves open (a target's options, fields of older timing
 * records), so a value of the wrong type there becomes its fallback, never an exception or an object lookup.
 * No DOM, no JupyterLab.
 */

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

/** The fields `keys` of a checked wire value, as they are: the readers of views that
 * copy fields unchanged (the `View` type they return says the fields are present). */
export function pick<T, K extends keyof T>(
  o: T,
  keys: readonly K[]
): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) {
    out[k] = o[k];
  }
  return out;
}

export function parseSourceLine(o: R.SourceLine): ISourceLine {
  return { filename: o.filename, lineno: lineOrNull(o.lineno), line: o.line };
}
