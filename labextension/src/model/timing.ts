/**
 * The view of a timing record (`nbcompile.compare` / `%compare`): display-ready tables
 * and chart bars.
 */

export type TableCell = string | number | boolean | null;

/** One table of a timing payload: column names and display-ready cells. */
export interface ITable {
  title: string;
  columns: string[];
  rows: TableCell[][];
}

/** A `"record": "timing"` payload (`nbcompile.compare` / `%compare`). */
export interface ITimingPayload {
  record: 'timing';
  /** Stable key used to de-duplicate the same record seen twice. */
  key: string;
  title: string;
  updated_at: number | null;
  tables: ITable[];
  /** Bars for a chart: label and value (e.g. speedup per mode). */
  chart: { label: string; value: number; unit: string }[];
  /** Peak memory of one call per row (bytes), eager included; empty when not measured. */
  memoryChart: { label: string; value: number; unit: string }[];
  notes: string[];
}
