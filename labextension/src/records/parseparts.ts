/**
 * Readers of the record pieces that several record kinds share (graph breaks, kernels,
 * recompiles) and of links: live targets (./parse) and reports (./parsereports) read
 * them alike. Untrusted input; see ./coerce.
 */

import type * as R from '../generated/record';
import {
  Json,
  lineOrNull,
  list,
  num,
  numOrNull,
  obj,
  parseSourceLine,
  str,
  strOrNull
} from './coerce';
import { IGraphBreak, IKernel, IOmission, IRecompile } from '../model';

export function parseGraphBreak(v: Json): IGraphBreak | null {
  const o = obj<R.GraphBreak>(v);
  if (!o) {
    return null;
  }
  return {
    reason: str(o.reason),
    filename: strOrNull(o.filename),
    lineno: lineOrNull(o.lineno),
    line: str(o.line),
    hint: str(o.hint),
    explanation: str(o.explanation),
    gb_type: str(o.gb_type),
    compile_id: str(o.compile_id),
    stack: list(o.stack, parseSourceLine),
    gb_id: str(o.gb_id),
    doc_url: safeUrl(str(o.doc_url)),
    hits: Math.max(1, Math.floor(numOrNull(o.hits) ?? 1))
  };
}

/** `url` if it is an absolute https URL (the only links a record may carry), else `''`. */
export function safeUrl(url: string): string {
  if (!url || url.length > 2000) {
    return '';
  }
  try {
    return new URL(url).protocol === 'https:' ? url : '';
  } catch {
    return '';
  }
}

export function parseRecompile(v: Json): IRecompile | null {
  const o = obj<R.Recompile>(v);
  return (
    o && {
      reason: str(o.reason),
      compile_id: str(o.compile_id),
      guard: str(o.guard)
    }
  );
}

export function parseKernel(v: Json): IKernel | null {
  const o = obj<R.Kernel>(v);
  if (!o) {
    return null;
  }
  const source = str(o.source);
  return {
    name: str(o.name, '(unnamed)'),
    language: str(o.language, 'python'),
    kind: str(o.kind, 'kernel'),
    source,
    size: num(o.size, source.length),
    compile_id: str(o.compile_id),
    lines: list(o.lines, parseSourceLine)
  };
}

export function parseOmission(v: Json): IOmission | null {
  const o = obj<R.Omission>(v);
  return o
    ? {
        field: str(o.field),
        count: num(o.count),
        how: str(o.how),
        unit: str(o.unit, 'items')
      }
    : null;
}
