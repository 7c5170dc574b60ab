/**
 * A timing record (`nbcompile.compare`) read into its payload: the comparison table's
 * columns and cells, its notes, its title, its charts' bars and units. The record comes
 * typed (checked once by ./intake); ./parse dispatches here. No DOM, no JupyterLab.
 */

import type * as R from '../generated/record';
import { Payload } from '../model/payload';
import { ITable, TableCell } from '../model/timing';
import { numMap, numOrNull, str } from './coerce';
import type { Loose } from './coerce';
import { clip, formatBytes, formatTime } from '../ui/format';

/** Units of the timing charts' bars. */
export const CHART_UNITS = {
  peak: 'peak memory per call (bytes)',
  speedup: 'speedup vs eager (×, median)',
  median: 'median run time (s)'
};

/** Fields older timing records had (not in the schema: read as untrusted values). */
export interface IOlderTiming {
  id: string;
  title: string;
  expr: string;
  updated_at: number;
}

/** Why a timing record with no rows is not shown. */
export const NO_ROWS = 'a timing record of a shape this version does not show';

type Bar = { label: string; value: number; unit: string };

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
function peakText(r: R.TimingRow): string {
  if (r.status === 'failed') {
    return '-';
  }
  if (typeof r.peak_memory_bytes !== 'number') {
    return 'not measured';
  }
  const verdict = r.memory_verdict ?? '';
  return (
    formatBytes(r.peak_memory_bytes) +
    (verdict && r.kind !== 'eager' ? ` (${clip(verdict, 120)})` : '')
  );
}

function comparisonRow(
  r: R.TimingRow,
  saved: boolean,
  confidence: unknown
): TableCell[] {
  const kind = r.kind;
  let speedup = '-';
  if (kind === 'eager') {
    speedup = '1.00× (baseline)';
  } else if (r.status === 'failed') {
    speedup = 'failed';
  } else if (typeof r.speedup === 'number') {
    const verdict = r.verdict;
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
      ? `${formatTime(r.median_s)} ± ${formatTime((r.iqr_s ?? 0) / 2)}`
      : '-';
  const cells: TableCell[] = [
    r.mode,
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
function timeSpent(o: R.Comparison): string {
  const phases = numMap(o.phases_s);
  if (!phases.size) {
    return '';
  }
  const timed = phases.get('timed calls') ?? 0;
  const budget = o.budget_s;
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
export function timingNotes(o: R.Comparison): string[] {
  const notes = [...o.notes];
  const spent = timeSpent(o);
  if (spent) {
    notes.unshift(spent);
  }
  for (const r of o.rows) {
    const mode = r.mode;
    if (r.error) {
      notes.push(`${mode}: ${r.error}`);
    }
    for (const n of r.notes) {
      notes.push(`${mode}: ${n}`);
    }
    for (const e of r.explanations ?? []) {
      if (e.message) {
        notes.push(`${mode}, why not faster: ${e.message}`);
      }
    }
    for (const e of r.memory_explanations ?? []) {
      if (e.message) {
        notes.push(`${mode}, why more memory: ${e.message}`);
      }
    }
  }
  if (typeof o.best === 'string') {
    notes.push(`best: ${o.best}`);
  }
  const facts = [
    o.device,
    `${o.num_threads} thread(s)`,
    `took ${o.elapsed_s.toFixed(1)} s`
  ].filter(Boolean);
  if (facts.length) {
    notes.push(facts.join(', '));
  }
  return notes;
}

/**
 * The title of a comparison: an older record's own, else `compare(name): inputs`, else
 * an older record's expression.
 */
export function timingTitle(
  o: R.Comparison,
  older: Loose<IOlderTiming>
): string {
  const named = o.name
    ? `compare(${o.name})${o.inputs.length ? ': ' + o.inputs.join(', ') : ''}`
    : '';
  return str(older.title) || named || str(older.expr) || 'Timing';
}

/**
 * The charts' bars: speedup per compiled mode (median time per mode when none has a
 * speedup), and peak memory per mode, eager included (none when not measured).
 */
export function timingCharts(rows: readonly R.TimingRow[]): {
  chart: Bar[];
  memoryChart: Bar[];
} {
  const memoryChart: Bar[] = [];
  for (const r of rows) {
    if (typeof r.peak_memory_bytes === 'number') {
      memoryChart.push({
        label: r.mode,
        value: r.peak_memory_bytes,
        unit: CHART_UNITS.peak
      });
    }
  }
  const chart: Bar[] = [];
  for (const r of rows) {
    if (r.kind !== 'eager' && typeof r.speedup === 'number') {
      chart.push({
        label: r.mode,
        value: r.speedup,
        unit: CHART_UNITS.speedup
      });
    }
  }
  if (!chart.length) {
    for (const r of rows) {
      if (typeof r.median_s === 'number') {
        chart.push({
          label: r.mode,
          value: r.median_s,
          unit: CHART_UNITS.median
        });
      }
    }
  }
  return { chart, memoryChart };
}

/** The table of modes, one row per mode (a `saved for backward` column when measured). */
export function comparisonTable(o: R.Comparison): ITable {
  const saved = o.rows.some(r => typeof r.saved_bytes === 'number');
  return {
    title: 'modes',
    columns: saved ? [...COMPARISON_COLUMNS, SAVED_COLUMN] : COMPARISON_COLUMNS,
    rows: o.rows.map(r => comparisonRow(r, saved, o.confidence))
  };
}

/** A timing record (the comparison of `nbcompile.compare`); unknown without rows. */
export function parseTiming(o: R.Comparison, key: string): Payload {
  if (!o.rows.length) {
    return { record: 'unknown', kind: 'timing', key, reason: NO_ROWS };
  }
  const older = o as Loose<IOlderTiming>;
  return {
    record: 'timing',
    key: str(older.id) || key,
    title: timingTitle(o, older),
    updated_at: numOrNull(older.updated_at),
    tables: [comparisonTable(o)],
    ...timingCharts(o.rows),
    notes: timingNotes(o)
  };
}
