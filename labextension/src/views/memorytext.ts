/**
 * Memory of one profiled call in words (`Profile.memory`): peaks, allocations and bytes
 * saved for backward, compiled vs eager. Pure text, no DOM: the profile view renders it
 * and the unit tests read it under plain node.
 */

import { formatBytes } from '../ui/format';
import { IProfileMemory } from '../model/profile';

/** `16.0 MiB compiled vs 64.0 MiB eager (0.25×)`. */
export function bytesPair(
  compiled: number | null,
  eager: number | null
): string {
  const ratio =
    compiled !== null && eager ? ` (${(compiled / eager).toFixed(2)}×)` : '';
  return `${formatBytes(compiled)} compiled vs ${formatBytes(eager)} eager${ratio}`;
}

/** The facts of one call: peak, allocated, saved for backward, bytes between graphs. */
export function memoryFacts(m: IProfileMemory): string[] {
  const facts = [
    `peak ${bytesPair(m.peak_bytes, m.eager_peak_bytes)}`,
    `allocated ${bytesPair(m.allocated_bytes, m.eager_allocated_bytes)}`
  ];
  if (m.saved_bytes !== null || m.eager_saved_bytes !== null) {
    facts.push(
      `saved for backward ${bytesPair(m.saved_bytes, m.eager_saved_bytes)}`
    );
  }
  if (m.across_breaks_bytes) {
    facts.push(`${formatBytes(m.across_breaks_bytes)} in use between graphs`);
  }
  return facts;
}
