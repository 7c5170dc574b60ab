/**
 * The wording of a diagnosis record (`nbcompile.diagnose`) for ./diagnoseview: table
 * cells, the float64 verdict, a workaround's measured effect. Pure functions (no DOM),
 * so the node tests read them.
 */

import { formatNumber, formatTime } from '../ui/format';
import { IReference, IRung, IWorkaround } from '../model/diagnosis';

/** The layer a rung adds, in words. */
const LAYERS = new Map<string, string>([
  ['dynamo', 'Dynamo'],
  ['aot_autograd', 'AOTAutograd'],
  ['inductor', 'Inductor']
]);

export function layerText(layer: string | null): string {
  return layer === null ? 'unknown' : (LAYERS.get(layer) ?? layer);
}

function numberText(v: number | null): string {
  return v === null ? '–' : formatNumber(v);
}

/** `88 of 4096`, or `–` when nothing was measured. */
export function outOfText(mismatched: number | null, numel: number): string {
  return mismatched === null ? '–' : `${mismatched} of ${numel}`;
}

export const RUNG_COLUMNS = [
  'backend',
  'adds',
  'outcome',
  'max |diff| vs eager',
  'out of tolerance',
  '1st call',
  'per call'
];

/** A rung's table cells, in `RUNG_COLUMNS` order. */
export function rungCells(r: IRung): string[] {
  return [
    r.backend + (r.options ? ` (${r.options})` : ''),
    layerText(r.layer),
    r.outcome,
    numberText(r.max_abs_diff),
    outOfText(r.mismatched, r.numel),
    r.first_call_s === null ? '–' : formatTime(r.first_call_s),
    r.time_s === null ? '–' : formatTime(r.time_s)
  ];
}

/** The float64 verdict in words. */
export function referenceText(ref: IReference): string {
  if (
    ref.closer === 'unknown' ||
    ref.eager_error === null ||
    ref.compiled_error === null
  ) {
    return ref.note || 'no float64 reference: no verdict';
  }
  const who =
    ref.closer === 'compiled'
      ? 'compiled is closer'
      : ref.closer === 'eager'
        ? 'eager is closer'
        : 'neither is clearly closer';
  return (
    `against ${ref.dtype}: eager's largest error ${formatNumber(ref.eager_error)}, ` +
    `compiled's ${formatNumber(ref.compiled_error)}: ${who}`
  );
}

/** What a tried workaround measured, in words (`''` when it was not tried). */
export function workaroundEffect(
  w: IWorkaround,
  numelBefore: number,
  mismatchedBefore: number | null
): string {
  if (w.status === 'not tried') {
    return '';
  }
  const parts = [
    w.error
      ? `crashed: ${w.error}`
      : `${w.outcome}, max |diff| ${numberText(w.max_abs_diff)}`
  ];
  if (w.mismatched !== null) {
    parts.push(
      mismatchedBefore !== null
        ? `out of tolerance ${mismatchedBefore} → ${w.mismatched} of ${w.numel || numelBefore}`
        : `out of tolerance ${outOfText(w.mismatched, w.numel)}`
    );
  }
  if (w.reference_error !== null) {
    parts.push(`max |diff| vs float64 ${numberText(w.reference_error)}`);
  }
  if (w.time_s !== null) {
    parts.push(`${formatTime(w.time_s)}/call` + (w.cost ? ` (${w.cost})` : ''));
  }
  return parts.join(' · ');
}
