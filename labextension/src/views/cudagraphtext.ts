/**
 * A compile's CUDA-graph outcome in words (the Compiles table's column). The status and
 * reason are torch's, decided in the kernel (nbcompile/core/notebook/cudagraphs/outcome.py).
 */

import type { ISourceLine } from '../model/parts';
import { ICudagraphCall, ICudagraphOutcome } from '../model/target';
import { formatBytes } from '../ui/format';

/** A compile's CUDA-graph outcome in words: `recorded`, `recorded; 1 of 2 partitions
 * outside: cpu ops (cell [5] line 4: ...)`, `skipped: <torch's reason> (cell [5] line
 * 3)`, `not used: cpu device`. */
export function cudagraphText(o: ICudagraphOutcome | null): string {
  if (o === null) {
    return '';
  }
  if (o.status === 'not_used') {
    return `not used: ${o.reason}`;
  }
  if (o.status === 'recorded') {
    const p = o.partitions;
    if (p === null || p.outside.length === 0) {
      return 'recorded';
    }
    const node = p.outside[0];
    return (
      `recorded; ${p.partitions - p.cudagraphable} of ${p.partitions} partitions ` +
      `outside: ${node.reason}${where(node.line, node.cell)}`
    );
  }
  return `skipped: ${o.reason}${where(o.line, o.cell)}`;
}

/** ` (cell [5] line 3: x.add_(1))` for a user's line; empty without one. */
function where(line: ISourceLine | null, cell: number | null): string {
  if (!line || line.lineno === null) {
    return '';
  }
  return (
    ` (${cell !== null ? `cell [${cell}] ` : ''}line ${line.lineno}` +
    (line.line ? `: ${line.line})` : ')')
  );
}

/** The per-call table's header (the inspector's "CUDA graphs per call"). */
export const CUDAGRAPH_CALL_HEAD = [
  'call',
  'cell',
  'warm-up',
  'recorded',
  'replayed',
  'eager',
  'pool before',
  'pool after',
  'what happened'
];

/** One call's row: counts, pool bytes and what happened in the kernel's words (the
 * record's `what`, worded where the summary's line is: core/notebook/cudagraphs/events.py). */
export function cudagraphCallRow(c: ICudagraphCall): string[] {
  return [
    c.call > 0 ? String(c.call) : '',
    c.cell !== null ? `[${c.cell}]` : '',
    String(c.warmups),
    String(c.recordings),
    c.backward ? '' : String(c.replays), // not counted outside the call
    String(c.eager),
    c.pool_before !== null ? formatBytes(c.pool_before) : '',
    c.pool_after !== null ? formatBytes(c.pool_after) : '',
    c.what
  ];
}
