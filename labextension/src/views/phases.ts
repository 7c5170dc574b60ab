/**
 * Which compile phases a bar draws and in which colour (pure; ./phasebar draws them).
 */

/** Segments drawn per bar (the rest are summed into one "other" segment). */
const MAX_SEGMENTS = 12;
/** Distinct colours (CSS classes nbc-phase-0 .. nbc-phase-7), assigned by phase name. */
const COLOURS = 8;

/** The compile phases nbcompile reports, in the order a compile goes through them. */
const KNOWN = [
  'Dynamo tracing',
  'AOTAutograd',
  'Inductor passes',
  'Inductor lowering',
  'code generation',
  'C++/Triton compile',
  'gc'
];

/**
 * A stable colour index for a phase name, so one phase has one colour everywhere: the
 * known phases in order, any other name by a hash of it.
 */
export function phaseColour(name: string): number {
  const known = KNOWN.indexOf(name);
  if (known >= 0) {
    return known;
  }
  let x = 0;
  for (let i = 0; i < name.length && i < 200; i++) {
    x = (x * 31 + name.charCodeAt(i)) >>> 0;
  }
  return x % COLOURS;
}

/** The phases worth drawing: positive times, the biggest first, the tail folded. */
export function phaseSegments(
  phases: ReadonlyMap<string, number>
): [string, number][] {
  const all = [...phases].filter(([, s]) => s > 0).sort((a, b) => b[1] - a[1]);
  if (all.length <= MAX_SEGMENTS) {
    return all;
  }
  const kept = all.slice(0, MAX_SEGMENTS - 1);
  let rest = 0;
  for (const [, s] of all.slice(MAX_SEGMENTS - 1)) {
    rest += s;
  }
  kept.push([`${all.length - kept.length} other phases`, rest]);
  return kept;
}
