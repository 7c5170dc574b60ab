/**
 * Readers of the record pieces that several record kinds share (graph breaks, kernels,
 * what torch runs in place of a frame) and of links: live targets (./parse)
 * and reports (./parsereports) read them alike, from records ./intake checked (./schema
 * typed); see ./coerce.
 */

import type * as R from '../generated/record';
import { lineOrNull, parseSourceLine, present } from './coerce';
import { IGraphBreak, IKernel, IRunsAs } from '../model/parts';

export function parseGraphBreak(o: R.GraphBreak): IGraphBreak {
  const b = present('GraphBreak', o);
  return {
    ...b,
    lineno: lineOrNull(b.lineno),
    stack: b.stack.map(parseSourceLine),
    doc_url: safeUrl(b.doc_url),
    hits: Math.max(1, Math.floor(b.hits))
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

export function parseKernel(o: R.Kernel): IKernel {
  return { ...present('Kernel', o), lines: o.lines.map(parseSourceLine) };
}

/** What torch runs in place of a compiled frame: its steps, source or bytecode. */
export function parseRunsAs(o: R.RunsAs): IRunsAs {
  const r = present('RunsAs', o);
  return {
    ...r,
    steps: r.steps.map(s => {
      const step = present('RunStep', s);
      return {
        ...step,
        graph: lineOrNull(step.graph),
        lineno: lineOrNull(step.lineno)
      };
    })
  };
}
