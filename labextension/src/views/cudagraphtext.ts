/**
 * A compile's CUDA-graph outcome in words (the Compiles table's column). The status and
 * reason are torch's, decided in the kernel (nbcompile/core/notebook/cudagraphs.py).
 */

import { ICudagraphOutcome } from '../model/target';

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
