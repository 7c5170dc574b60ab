/**
 * The words of a compile-time record (DOM-free, read by node tests): its headline and
 * the units of its numbers.
 */

import { formatTime } from '../ui/format';
import { ICompileTimePayload } from '../model/compiletime';

/** Seconds in words, `-` when not measured. */
export function seconds(v: number | null): string {
  return v === null ? '-' : formatTime(v);
}

/** A ratio such as `1.02x`, `-` when not measured. */
export function ratio(v: number | null): string {
  return v === null ? '-' : `${v.toFixed(2)}x`;
}

/** The record's headline: cold, warm restart, verified remedies. */
export function compileTimeTitle(p: ICompileTimePayload): string {
  const verified = p.remedies.filter(r => r.verified).map(r => r.kind);
  return (
    `compile time of ${p.name}: cold ${seconds(p.cold_s)}, warm restart ` +
    `${seconds(p.warm_restart_s)}` +
    (verified.length ? `, verified: ${verified.join(', ')}` : '') +
    (p.interrupted ? ' (interrupted)' : '')
  );
}
