/**
 * The wording of a timing record (`nbcompile.compare`): the comparison table's columns
 * and cells, its notes, its title and chart units. ../records/parse reads the record and
 * asks this module for the words. No DOM, no JupyterLab.
 */

import type * as R from '../generated/record';
import { ITable, TableCell } from '../model';
import { list, Loose, num, numMap, obj, str, strList } from '../records/coerce';
import { clip, formatBytes, formatTime } from '../ui/format';

/** Units of the timing charts' bars. */
export const CHART_UNITS = {
  peak: 'peak memory per call (bytes)',
  speedup: 'speedup vs eager (×, median)',
  median: 'median run time (s)'
};

/** A timing record as read: the generated `Comparison` and the fields older ones had. */
export type ITimingIn = R.Comparison & {
  id: string;
  title: string;
  expr: string;
  updated_at: number;
};

const COMPARISON_COLUMNS = [
  'mode',
  'compile',
  'run (median ± IQR/2)',
  'speedup [95% CI]',
  'max |diff|',
  'peak memory/call',
  'allocated/call'
];
/** The column of a call that saves tensors for backward (a training step). */
const SAVED_COLUMN = 'saved for backward';

/** The interval the verdict rests on, labelled (`95% CI 0.04–0.15×`); '' when absent. */
export function intervalText(
  low: unknown,
  high: unknown,
  confidence: unknown = 0.95
): string {
  if (
    typeof low !== 'number' ||
    typeof high !== 'number' ||
    !Number.isFinite(low) ||
    !Number.isFinite(high)
  ) {
    return '';
  }
  const level =
    typeof confidence === 'number' && confidence > 0 && confidence < 1
      ? confidence
      : 0.95;
  return `${Math.round(level * 100)}% CI ${low.toFixed(2)}–${high.toFixed(2)}×`;
}

/** Peak memory of a row with its memory verdict (`16.0 MiB (0.25x eager's peak)`). */
function peakText(r: Loose<R.TimingRow>): string {
  if (str(r.status) === 'failed') {
    return '-';
  }
  if (typeof r.peak_memory_bytes !== 'number') {
    return 'not measured';
  }
  const verdict = str(r.memory_verdict);
  return (
    formatBytes(r.peak_memory_bytes) +
    (verdict && str(r.kind) !== 'eager' ? ` (${clip(verdict, 120)})` : '')
  );
}

function comparisonRow(
  r: Loose<R.TimingRow>,
  saved: boolean,
  confidence: unknown
): TableCell[] {
  const kind = str(r.kind);
  let speedup = '-';
  if (kind === 'eager') {
    speedup = '1.00× (baseline)';
  } else if (str(r.status) === 'failed') {
    speedup = 'failed';
  } else if (typeof r.speedup === 'number') {
    const verdict = str(r.verdict);
    const interval = intervalText(
      r.speedup_ci_low,
      r.speedup_ci_high,
      confidence
    );
    speedup =
      `${r.speedup.toFixed(2)}×` +
      (verdict ? ` ${verdict}` : '') +
      (interval ? ` [${interval}]` : '');
  }
  let diff = '-';
  if (kind === 'eager') {
    diff = 'reference';
  } else if (typeof r.max_abs_diff === 'number') {
    diff = `${r.max_abs_diff.toPrecision(2)} ${r.numerics_ok === false ? 'DIFFERS' : 'ok'}`;
  }
  const run =
    typeof r.median_s === 'number'
      ? `${formatTime(r.median_s)} ± ${formatTime(num(r.iqr_s) / 2)}`
      : '-';
  const cells: TableCell[] = [
    str(r.mode),
    typeof r.compile_s === 'number' ? `${r.compile_s.toFixed(2)} s` : '-',
    run,
    speedup,
    diff,
    peakText(r),
    formatBytes(r.allocated_bytes)
  ];
  if (saved) {
    cells.push(formatBytes(r.saved_bytes));
  }
  return cells;
}

/** What the whole comparison took and what came on top of the budget (`phases_s`). */
function timeSpent(o: Loose<ITimingIn>): string {
  const phases = numMap(o.phases_s);
  if (!phases.size || typeof o.elapsed_s !== 'number') {
    return '';
  }
  const timed = phases.get('timed calls') ?? 0;
  const budget = num(o.budget_s);
  const onTop = [...phases]
    .filter(([k, v]) => k !== 'timed calls' && v >= 0.05)
    .map(([k, v]) => `${clip(k, 40)} ${v.toFixed(1)} s`);
  return (
    `took ${o.elapsed_s.toFixed(1)} s: timed calls ${timed.toFixed(1)} s ` +
    (timed <= budget * 1.1
      ? `(within the budget of ${budget} s)`
      : `(over the budget of ${budget} s)`) +
    (onTop.length ? `; on top of the budget: ${onTop.join(', ')}` : '')
  );
}

/** The notes under the table: time spent, the record's notes, each row's reasons. */
export function timingNotes(
  o: Loose<ITimingIn>,
  rows: Loose<R.TimingRow>[]
): string[] {
  const notes = strList(o.notes);
  const spent = timeSpent(o);
  if (spent) {
    notes.unshift(spent);
  }
  for (const r of rows) {
    const mode = str(r.mode);
    if (str(r.error)) {
      notes.push(`${mode}: ${str(r.error)}`);
    }
    for (const n of strList(r.notes)) {
      notes.push(`${mode}: ${n}`);
    }
    for (const e of list(r.explanations, x => obj<R.Explanation>(x))) {
      const message = str(e.message);
      if (message) {
        notes.push(`${mode}, why not faster: ${message}`);
      }
    }
    for (const e of list(r.memory_explanations, x => obj<R.Explanation>(x))) {
      const message = str(e.message);
      if (message) {
        notes.push(`${mode}, why more memory: ${message}`);
      }
    }
  }
  if (typeof o.best === 'string') {
    notes.push(`best: ${o.best}`);
  }
  const facts = [
    str(o.device),
    typeof o.num_threads === 'number' ? `${o.num_threads} thread(s)` : '',
    typeof o.elapsed_s === 'number' ? `took ${o.elapsed_s.toFixed(1)} s` : ''
  ].filter(Boolean);
  if (facts.length) {
    notes.push(facts.join(', '));
  }
  return notes;
}

/** The title of a comparison of `name` on `inputs`; '' without a name. */
export function timingTitle(name: string, inputs: string[]): string {
  return name
    ? `compare(${name})${inputs.length ? ': ' + inputs.join(', ') : ''}`
    : '';
}

/** The table of modes, one row per mode (a `saved for backward` column when measured). */
export function comparisonTable(
  o: Loose<ITimingIn>,
  rows: Loose<R.TimingRow>[]
): ITable {
  const saved = rows.some(r => typeof r.saved_bytes === 'number');
  return {
    title: 'modes',
    columns: saved ? [...COMPARISON_COLUMNS, SAVED_COLUMN] : COMPARISON_COLUMNS,
    rows: rows.map(r => comparisonRow(r, saved, o.confidence))
  };
}
