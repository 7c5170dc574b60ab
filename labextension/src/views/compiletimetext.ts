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

/** Which compile of which frame, in words (as the kernel's text says it):
 * `forward, its first compile (torch's compile id 0/0)`, `forward, recompile 2 (...)`. */
export function frameWords(f: { compile_id: string; frame: string }): string {
  const found = /(\d+)\/(\d+)/.exec(f.compile_id);
  if (!found) {
    return f.compile_id
      ? `${f.frame} (torch's compile id ${f.compile_id})`
      : f.frame;
  }
  const n = Number(found[2]);
  const which = n === 0 ? 'its first compile' : `recompile ${n}`;
  return `${f.frame}, ${which} (torch's compile id ${f.compile_id})`;
}
