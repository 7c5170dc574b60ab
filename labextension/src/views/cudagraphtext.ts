/**
 * A compile's CUDA-graph outcome as the Compiles table's column shows it: the kernel's
 * words (nbcompile/core/notebook/cudagraphs/outcome.py `describe`), rendered as they are.
 */

import { ICudagraphCall, ICudagraphOutcome } from '../model/target';
import { formatBytes } from '../ui/format';

/** A compile's CUDA-graph outcome in the kernel's words; a record saved before those
 * words travelled shows its status and torch's reason. */
export function cudagraphText(o: ICudagraphOutcome | null): string {
  if (o === null) {
    return '';
  }
  if (o.text) {
    return o.text;
  }
  const status = o.status.replace('_', ' ');
  return o.reason ? `${status}: ${o.reason}` : status;
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
