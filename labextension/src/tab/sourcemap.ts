/**
 * The line mapping between a target's source and its generated code, for the
 * side-by-side view (./tabview): the generated kernels laid out one after another as
 * one text (a header line per kernel), which lines of that text each kernel covers, and
 * which source lines each kernel computes (Inductor's provenance, as recorded). Pure
 * functions of the view model; no DOM.
 */

import { isCellFile } from '../ui/format';
import { IAnnotation, ITargetRecord } from '../model/target';

/** The lines (1-based, inclusive) of one kernel in the combined text. */
export interface ICodeBlock {
  /** Index into the target's `kernels`. */
  kernel: number;
  start: number;
  end: number;
}

export interface ISourceRow {
  lineno: number;
  line: string;
  category: string;
  /** Kernels computed from this line (indexes into the target's `kernels`). */
  kernels: number[];
}

export interface ISourceMap {
  /** The kernels and extern calls, each under a header line. */
  text: string;
  blocks: ICodeBlock[];
  rows: ISourceRow[];
  /** Kernel index -> the source line numbers it computes. */
  kernelLines: Map<number, number[]>;
}

/** Code pieces shown side by side (the wrapper is plumbing, not the user's lines). */
const SHOWN = new Set(['kernel', 'extern']);
/** Source rows listed (a cell longer than this is cut, with a note in the view). */
export const MAX_ROWS = 5000;

function add(map: Map<number, number[]>, key: number, value: number): void {
  const list = map.get(key);
  if (!list) {
    map.set(key, [value]);
  } else if (!list.includes(value)) {
    list.push(value);
  }
}

export function buildSourceMap(t: ITargetRecord): ISourceMap {
  const kernelLines = new Map<number, number[]>();
  const lineKernels = new Map<number, number[]>();
  t.kernels.forEach((k, i) => {
    if (!SHOWN.has(k.kind)) {
      return;
    }
    for (const s of k.lines) {
      if (s.lineno !== null && isCellFile(s.filename, t.cell)) {
        add(kernelLines, i, s.lineno);
        add(lineKernels, s.lineno, i);
      }
    }
  });
  // Annotations may tie lines to kernels the provenance of a kernel did not list.
  for (const a of t.annotations) {
    if (a.lineno === null) {
      continue;
    }
    for (const i of a.kernel_refs) {
      if (i < t.kernels.length && SHOWN.has(t.kernels[i].kind)) {
        add(kernelLines, i, a.lineno);
        add(lineKernels, a.lineno, i);
      }
    }
  }
  const rows: ISourceRow[] = sourceRows(t.annotations, kernelLines).map(r => ({
    ...r,
    kernels: lineKernels.get(r.lineno) ?? []
  }));
  const parts: string[] = [];
  const blocks: ICodeBlock[] = [];
  let line = 1;
  t.kernels.forEach((k, i) => {
    if (!SHOWN.has(k.kind)) {
      return;
    }
    const from = kernelLines.get(i);
    const header =
      `// ---- ${k.name}` +
      (k.compile_label ? ` · ${k.compile_label}` : '') +
      (from
        ? ` · from line${from.length > 1 ? 's' : ''} ${from.join(', ')}`
        : ' · not tied to a line') +
      ' ----';
    const body = k.source.replace(/\n+$/, '');
    let n = 1;
    for (let j = body.indexOf('\n'); j >= 0; j = body.indexOf('\n', j + 1)) {
      n++;
    }
    parts.push(header, body, '');
    blocks.push({ kernel: i, start: line, end: line + n });
    line += n + 2;
  });
  return { text: parts.join('\n'), blocks, rows, kernelLines };
}

/** The source rows: the annotations in order, else the lines the kernels name. */
function sourceRows(
  annotations: readonly IAnnotation[],
  kernelLines: Map<number, number[]>
): Omit<ISourceRow, 'kernels'>[] {
  const rows: Omit<ISourceRow, 'kernels'>[] = [];
  for (const a of annotations) {
    if (a.lineno !== null && rows.length < MAX_ROWS) {
      rows.push({ lineno: a.lineno, line: a.line, category: a.category });
    }
  }
  if (rows.length) {
    return rows;
  }
  const seen = new Set<number>();
  kernelLines.forEach(lines => lines.forEach(n => seen.add(n)));
  return [...seen]
    .sort((a, b) => a - b)
    .map(n => ({ lineno: n, line: '', category: 'kernel' }));
}

/** The block holding combined-text line `line`, if any. */
export function blockAt(map: ISourceMap, line: number): ICodeBlock | undefined {
  let lo = 0;
  let hi = map.blocks.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const b = map.blocks[mid];
    if (line < b.start) {
      hi = mid - 1;
    } else if (line > b.end) {
      lo = mid + 1;
    } else {
      return b;
    }
  }
  return undefined;
}
