/**
 * A compile's CUDA-graph outcome in words (the Compiles table's column). The status and
 * reason are torch's, decided in the kernel (nbcompile/core/notebook/cudagraphs.py).
 */

import { ICudagraphCall, ICudagraphOutcome } from '../model/target';
import { formatBytes } from '../ui/format';

/** A compile's CUDA-graph outcome in words: `recorded`, `skipped: <torch's reason>
 * (cell [5] line 3)`, `not used: cpu device`. */
export function cudagraphText(o: ICudagraphOutcome | null): string {
  if (o === null) {
    return '';
  }
  if (o.status === 'recorded') {
    return 'recorded';
  }
  if (o.status === 'not_used') {
    return `not used: ${o.reason}`;
  }
  const where =
    o.line && o.line.lineno !== null
      ? ` (${o.cell !== null ? `cell [${o.cell}] ` : ''}line ${o.line.lineno}` +
        (o.line.line ? `: ${o.line.line})` : ')')
      : '';
  return `skipped: ${o.reason}${where}`;
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
 * record's `what`, worded where the summary's line is: cudagraph_events.py). */
export function cudagraphCallRow(c: ICudagraphCall): string[] {
  return [
    c.call > 0 ? String(c.call) : '',
    c.cell !== null ? `[${c.cell}]` : '',
    String(c.warmups),
    String(c.recordings),
    String(c.replays),
    String(c.eager),
    c.pool_before !== null ? formatBytes(c.pool_before) : '',
    c.pool_after !== null ? formatBytes(c.pool_after) : '',
    c.what
  ];
}
