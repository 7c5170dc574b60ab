/**
 * Readers of the record pieces that several record kinds share (graph breaks, kernels,
 * recompiles, what torch runs in place of a frame) and of links: live targets (./parse)
 * and reports (./parsereports) read them alike, from records ./intake checked (./schema
 * typed); see ./coerce.
 */

import type * as R from '../generated/record';
import { lineOrNull, parseSourceLine, pick } from './coerce';
import { IGraphBreak, IKernel, IOmission, IRunsAs } from '../model/parts';
import { IRecompile } from '../model/target';

export function parseGraphBreak(o: R.GraphBreak): IGraphBreak {
  return {
    reason: o.reason,
    filename: o.filename,
    lineno: lineOrNull(o.lineno),
    line: o.line,
    hint: o.hint,
    explanation: o.explanation,
    gb_type: o.gb_type,
    compile_id: o.compile_id,
    stack: (o.stack ?? []).map(parseSourceLine),
    gb_id: o.gb_id ?? '',
    doc_url: safeUrl(o.doc_url ?? ''),
    hits: Math.max(1, Math.floor(o.hits ?? 1)),
    runs_as: o.runs_as ?? ''
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

export function parseRecompile(o: R.Recompile): IRecompile {
  return {
    reason: o.reason,
    compile_id: o.compile_id,
    guard: o.guard,
    cell: typeof o.cell === 'number' ? o.cell : null,
    changed_by: (o.changed_by ?? []).filter(n => typeof n === 'number'),
    changes: [...(o.changes ?? [])]
  };
}

export function parseKernel(o: R.Kernel): IKernel {
  return {
    name: o.name,
    language: o.language,
    kind: o.kind,
    source: o.source,
    size: o.size,
    compile_id: o.compile_id,
    compile_label: o.compile_label ?? '',
    lines: o.lines.map(parseSourceLine)
  };
}

export function parseOmission(o: R.Omission): IOmission {
  return pick(o, ['field', 'count', 'how', 'unit']);
}

/** What torch runs in place of a compiled frame: its steps, source or bytecode. */
export function parseRunsAs(o: R.RunsAs): IRunsAs {
  return {
    source: o.source ?? '',
    walk: o.walk ?? '',
    dis: o.dis ?? '',
    problem: o.problem ?? '',
    steps: (o.steps ?? []).map(s => ({
      kind: s.kind,
      text: s.text,
      frame: s.frame ?? '',
      alternative: s.alternative ?? false,
      graph: lineOrNull(s.graph),
      lineno: lineOrNull(s.lineno)
    }))
  };
}
