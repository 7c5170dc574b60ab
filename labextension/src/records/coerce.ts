/**
 * Coercion of untrusted record values into plain view-model values: every reader in
 * ./parse and ./parsereports goes through these, so a field of the wrong type becomes
 * its fallback, never an exception or an object lookup. No DOM, no JupyterLab.
 */

import type * as R from '../generated/record';
import type { ISourceLine } from '../model';

/** The fields of a wire type, each of unknown type until checked. */
export type Loose<T> = { [K in keyof T]?: unknown };

export type Json = unknown;

export function obj<T>(v: Json): Loose<T> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Loose<T>)
    : null;
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

export function num(v: Json, fallback = 0): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

export function numOrNull(v: Json): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** A line number: a positive integer or null (fractions are floored). */
export function lineOrNull(v: Json): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0
    ? Math.floor(v)
    : null;
}

export function boolOrNull(v: Json): boolean | null {
  return typeof v === 'boolean' ? v : null;
}

export function arr(v: Json): readonly Json[] {
  return Array.isArray(v) ? v : [];
}

export function list<T>(v: Json, parse: (x: Json) => T | null): T[] {
  const out: T[] = [];
  for (const x of arr(v)) {
    const p = parse(x);
    if (p !== null) {
      out.push(p);
    }
  }
  return out;
}

export function strList(v: Json): string[] {
  return list(v, x =>
    typeof x === 'string' || typeof x === 'number' ? str(x) : null
  );
}

/** Own entries of a JSON object as a Map (never an object keyed by record strings). */
export function entries(v: Json): [string, Json][] {
  return obj<Record<string, Json>>(v) ? Object.entries(v as object) : [];
}

export function numMap(v: Json): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, x] of entries(v)) {
    if (typeof x === 'number' && Number.isFinite(x)) {
      out.set(k, x);
    }
  }
  return out;
}

/** A short, display-only rendering of any JSON value (never evaluated). */
export function displayValue(v: Json): string {
  if (v === null || v === undefined) {
    return 'None';
  }
  if (typeof v === 'string') {
    return v;
  }
  if (typeof v === 'boolean') {
    return v ? 'True' : 'False';
  }
  if (typeof v === 'number') {
    return String(v);
  }
  try {
    return JSON.stringify(v).slice(0, 200);
  } catch {
    return '…';
  }
}

export function parseSourceLine(v: Json): ISourceLine | null {
  const o = obj<R.SourceLine>(v);
  return (
    o && {
      filename: str(o.filename),
      lineno: lineOrNull(o.lineno),
      line: str(o.line)
    }
  );
}
