/**
 * Presentation of record values: the ONE place for units (time, bytes, sizes, counts)
 * and for status and "where" wording on the TypeScript side (the Python side has its
 * own in `nbcompile/display/units.py`). Pure functions of the view model; no DOM.
 */

import type { CellNames, ISourceLine } from '../model/parts';
import type {
  ICellRef,
  ICompile,
  ITargetOptions,
  ITargetRecord
} from '../model/target';

/** `3 graphs`, `1 break`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** `12.3 s` / `850 ms` / `12 µs` from seconds (compile times: short and rounded). */
export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) {
    return '';
  }
  if (s >= 1) {
    return `${s.toFixed(1)} s`;
  }
  if (s >= 0.001) {
    return `${(s * 1000).toFixed(0)} ms`;
  }
  return `${(s * 1e6).toFixed(0)} µs`;
}

/** `1.23 ms` style run time with three significant digits; `-` when unknown. */
export function formatTime(s: unknown): string {
  if (typeof s !== 'number' || !Number.isFinite(s)) {
    return '-';
  }
  for (const [unit, scale] of [
    ['s', 1],
    ['ms', 1e-3],
    ['µs', 1e-6]
  ] as const) {
    if (s >= scale) {
      return `${(s / scale).toPrecision(3)} ${unit}`;
    }
  }
  return `${(s / 1e-9).toPrecision(3)} ns`;
}

/** `1.5 MiB` memory; `-` when unknown. */
export function formatBytes(n: unknown): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) {
    return '-';
  }
  let v = n;
  for (const unit of ['B', 'KiB', 'MiB']) {
    if (v < 1024) {
      return unit === 'B' ? `${v.toFixed(0)} B` : `${v.toFixed(1)} ${unit}`;
    }
    v /= 1024;
  }
  return `${v.toFixed(1)} GiB`;
}

/** `1.1 kB` size of a text (characters, decimal units as the Python side shows). */
export function formatSize(chars: number): string {
  if (chars < 1000) {
    return `${chars} B`;
  }
  if (chars < 1_000_000) {
    return `${(chars / 1000).toFixed(1)} kB`;
  }
  return `${(chars / 1_000_000).toFixed(1)} MB`;
}

/** A plain number for a table cell: integers as is, others with 3 significant digits. */
export function formatNumber(v: number): string {
  if (Number.isInteger(v)) {
    return String(v);
  }
  const a = Math.abs(v);
  if (a !== 0 && (a < 0.001 || a >= 1e6)) {
    return v.toExponential(2);
  }
  return v.toPrecision(3);
}

/** Display names of kernel languages (a Map: record strings are never object keys). */
const LANGUAGE_LABEL = new Map<string, string>([
  ['cpp', 'C++'],
  ['triton', 'Triton'],
  ['python', 'Python']
]);

export function languageLabel(language: string): string {
  return LANGUAGE_LABEL.get(language) ?? language;
}

/** The CodeMirror MIME type for a kernel language. */
export function editorMimeType(language: string): string {
  switch (language) {
    case 'cpp':
      return 'text/x-c++src';
    case 'triton':
    case 'python':
      return 'text/x-python';
    default:
      return 'text/plain';
  }
}

/** A compile as the kernel names it (`compile 0/0 (model)`: its record's `label`); a
 * record saved before labels: its id and frame. */
export function compileLabel(c: ICompile): string {
  return clip(c.label || `compile ${c.compile_id} · ${c.frame}`, 300);
}

/** A CSS-safe class suffix for a status or kind (anything unexpected is `other`). */
export function classSuffix(value: string): string {
  return /^[a-z_]{1,20}$/.test(value) ? value : 'other';
}

/** The status in words: the kernel's own wording (`status_text`, one rule in
 * `display/summary_model.py`); only a running compile's seconds are ticked here. */
export function statusText(t: ITargetRecord, nowSeconds?: number): string {
  if (t.status === 'compiling' && t.compiling_since && nowSeconds) {
    return compilingText(nowSeconds - t.compiling_since);
  }
  return t.status_text || t.status.replace(/_/g, ' ');
}

/** `compiling… 12s` while a compile runs (plain `compiling…` for nonsense clocks). */
export function compilingText(elapsed: number): string {
  return elapsed >= 0 && elapsed < 24 * 3600
    ? `compiling… ${elapsed.toFixed(0)}s`
    : 'compiling…';
}

/** The counts line shared by the target list and the inline renderer. */
export function countsText(t: ITargetRecord): string {
  const parts = [
    plural(t.graph_count, 'graph'),
    plural(t.graph_breaks.length, 'break'),
    plural(t.recompiles.length, 'recompile'),
    plural(t.generated_kernel_count, 'kernel')
  ];
  if (t.compile_time_s > 0) {
    parts.push(formatSeconds(t.compile_time_s));
  }
  return parts.join(' · ');
}

/** A short, display-only rendering of any JSON value, as Python writes it (never evaluated). */
export function displayValue(v: unknown): string {
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

/** `mode=max-autotune · fullgraph` style summary of the options. */
export function optionsText(o: ITargetOptions): string {
  const parts: string[] = [];
  parts.push(`mode=${o.mode ?? 'default'}`);
  if (o.backend && o.backend !== 'inductor') {
    parts.push(`backend=${o.backend}`);
  }
  if (o.fullgraph) {
    parts.push('fullgraph');
  }
  if (o.dynamic !== null) {
    parts.push(`dynamic=${o.dynamic ? 'True' : 'False'}`);
  }
  if (o.disable) {
    parts.push('disabled');
  }
  for (const [k, v] of o.options) {
    parts.push(`${k}=${v}`);
  }
  for (const [k, v] of o.extra) {
    parts.push(`${k}=${v}`);
  }
  return parts.join(' · ');
}

/** Whether a code filename is a notebook cell's (IPython or ipykernel naming). */
export function isCellFile(filename: string | null, cell: ICellRef): boolean {
  if (!filename) {
    return false;
  }
  return (
    filename === cell.filename ||
    filename.startsWith('<ipython-input-') ||
    /ipykernel_\d+[\\/]\d+\.py$/.test(filename)
  );
}

/** A trace compile's rank in words (`null`: a log with no rank). */
export function rankText(rank: number | null): string {
  return rank === null ? 'no rank' : `rank ${rank}`;
}

/**
 * `text` (torch's, kept verbatim in the record) with each cell file the record names
 * written as its cell's name, the way the kernel writes it: `File "/tmp/ipykernel_1/2.py",
 * line 5` and `/tmp/ipykernel_1/2.py:5` both read `cell [2], line 5`. The names are the
 * record's (`cell_names`, worded by the kernel).
 */
export function nameCells(text: string, names: CellNames): string {
  for (const [file, name] of names) {
    if (!file || !text.includes(file)) {
      continue;
    }
    const f = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const line = (_: string, n: string) => `${name}, line ${n}`;
    text = text
      .replace(new RegExp(`File "${f}", line (\\d+)`, 'g'), line)
      .replace(new RegExp(`${f}:(\\d+)`, 'g'), line)
      .split(file)
      .join(name);
  }
  return text;
}

/** A file line in words: `cell [2], line 5` for a cell the record names, else
 * `shortPath`'s. */
export function placeText(
  filename: string,
  lineno: number | null,
  names?: CellNames
): string {
  const name = names?.get(filename);
  if (name) {
    return lineno !== null ? `${name}, line ${lineno}` : name;
  }
  return shortPath(filename, lineno);
}

/** ``torch/optim/optimizer.py:79`` for a library file: its last three path parts. */
export function shortPath(filename: string, lineno: number | null): string {
  const parts = filename.split(/[\\/]/);
  return `${parts.slice(-3).join('/')}${lineno !== null ? `:${lineno}` : ''}`;
}

/** The innermost frame of a user stack that is in the record's cell, if any. */
export function cellFrame(
  stack: readonly ISourceLine[],
  cell: ICellRef
): ISourceLine | undefined {
  for (let i = stack.length - 1; i >= 0; i--) {
    if (stack[i].filename === cell.filename) {
      return stack[i];
    }
  }
  return undefined;
}

/**
 * Where a break or error happened, in words: ``line 5`` for the cell, or for library code
 * ``torch/optim/optimizer.py:79 (reached from cell line 9)`` using the user stack.
 */
export function whereText(
  filename: string | null,
  lineno: number | null,
  cell: ICellRef,
  stack: readonly ISourceLine[],
  names?: CellNames
): string {
  // another cell the record names: that cell, not a line of this one
  const other = filename && filename !== cell.filename && names?.has(filename);
  if (!filename || (!other && isCellFile(filename, cell))) {
    return `line ${lineno ?? '?'}`;
  }
  const via = cellFrame(stack, cell);
  const from = via ? ` (reached from cell line ${via.lineno ?? '?'})` : '';
  return `${placeText(filename, lineno, names)}${from}`;
}

/**
 * `text` (the record's words) cut at each cell it names, `cell [7]`: its pieces of text
 * and, between them, the cells' execution counts, for a view to lay out as links.
 */
export function cellMentions(text: string): (string | number)[] {
  const parts: (string | number)[] = [];
  let at = 0;
  for (const m of text.matchAll(/cell \[(\d+)\]/g)) {
    parts.push(text.slice(at, m.index), Number(m[1]));
    at = m.index + m[0].length;
  }
  parts.push(text.slice(at));
  return parts.filter(p => p !== '');
}

/** At most `max` characters of `text`, with a mark saying how many were left out. */
export function clip(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
