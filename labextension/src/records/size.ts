/**
 * The size walk: one iterative pass over an untrusted value that checks the limits on
 * a record (depth, values, bytes, keys per object) without recursion, so deep or huge
 * values cannot overflow the stack, stopping as soon as a limit is passed. It can pause
 * (after a number of values or bytes) and go on later from where it stopped, so a big
 * record's walk runs in a task of its own and is still one walk.
 *
 * The byte cap is the kernel's: no record it publishes in an output is larger than its
 * largest output budget, and the record the inspector asks for is within the inspector's
 * budget (both from nbcompile/display/budget.py, carried by the schema as
 * `x-nbcompile-limits`). A record over it is refused with a note, never rendered whole.
 * Called by ./intake only. No JupyterLab imports.
 */

import { RECORD_SCHEMA } from '../generated/schema';

interface IKernelLimits {
  max_record_bytes: number;
  max_whole_record_bytes: number;
}

const KERNEL = (RECORD_SCHEMA as { 'x-nbcompile-limits': IKernelLimits })[
  'x-nbcompile-limits'
];

export interface ILimits {
  /** Nesting depth of objects and arrays. */
  depth: number;
  /** Objects, arrays and values in all. */
  nodes: number;
  /** Bytes of the record's JSON (counted from below: strings, keys and punctuation). */
  bytes: number;
  /** Keys of one object. */
  keys: number;
}

/** Limits on a record published in an output (saved in a notebook, or live). */
export const LIMITS: ILimits = {
  depth: 64,
  nodes: 2_000_000,
  bytes: KERNEL.max_record_bytes,
  keys: 10_000
};

/** Limits on the whole record the inspector asked the live kernel for. */
export const WHOLE_LIMITS: ILimits = {
  ...LIMITS,
  bytes: KERNEL.max_whole_record_bytes
};

/** Where a walk may pause: once it has seen more values or bytes than these. */
export interface IPause {
  nodes: number;
  bytes: number;
}

export type Verdict = { ok: true } | { ok: false; reason: string };

const OK: Verdict = { ok: true };

function megabytes(n: number): string {
  return `${(n / (1024 * 1024)).toFixed(n % (1024 * 1024) ? 1 : 0)} MB`;
}

/**
 * One walk of a value against `limits`. The byte count is a lower bound of the JSON's
 * UTF-8 size (a UTF-16 unit is at least one byte; a number, true or null counts one), so
 * a record within the kernel's budget always passes.
 */
export class SizeWalk {
  constructor(
    value: unknown,
    private readonly _limits: ILimits = LIMITS
  ) {
    this._values = [value];
  }

  /**
   * Walk on until the end or the first limit passed (the verdict), or until more than
   * `pause` was seen (`null`: call again to go on from there).
   */
  run(pause: IPause | null = null): Verdict | null {
    if (this._verdict) {
      return this._verdict;
    }
    const limits = this._limits;
    // Two stacks (values, depths): no allocation per value.
    const values = this._values;
    const depths = this._depths;
    let nodes = this._nodes;
    let bytes = this._bytes;
    let verdict: Verdict | null = null;
    while (values.length) {
      if (pause && (nodes > pause.nodes || bytes > pause.bytes)) {
        break;
      }
      const v = values.pop();
      const depth = depths.pop()!;
      if (++nodes > limits.nodes) {
        verdict = {
          ok: false,
          reason: `it has more than ${limits.nodes} values`
        };
        break;
      }
      if (typeof v === 'string') {
        bytes += v.length + 2;
      } else if (typeof v === 'object' && v !== null) {
        if (depth > limits.depth) {
          verdict = {
            ok: false,
            reason: `it is nested deeper than ${limits.depth} levels`
          };
          break;
        }
        if (Array.isArray(v)) {
          bytes += 1 + Math.max(v.length, 1); // brackets and separators
          if (bytes > limits.bytes) {
            break;
          }
          for (let i = 0; i < v.length; i++) {
            values.push(v[i]);
            depths.push(depth + 1);
          }
        } else {
          const keys = Object.keys(v);
          if (keys.length > limits.keys) {
            verdict = {
              ok: false,
              reason: `an object has more than ${limits.keys} keys`
            };
            break;
          }
          bytes += 1 + Math.max(keys.length, 1);
          for (const k of keys) {
            bytes += k.length + 3; // quotes and a colon
          }
          if (bytes > limits.bytes) {
            break;
          }
          for (const k of keys) {
            values.push((v as Record<string, unknown>)[k]);
            depths.push(depth + 1);
          }
        }
      } else {
        bytes += 1;
      }
      if (bytes > limits.bytes) {
        break;
      }
    }
    this._nodes = nodes;
    this._bytes = bytes;
    if (!verdict && bytes > limits.bytes) {
      verdict = {
        ok: false,
        reason:
          `it is larger than ${megabytes(limits.bytes)}, the largest record nbcompile publishes ` +
          '(%nbcompile config --output-budget); the kernel that made it has it whole'
      };
    }
    if (!verdict && !values.length) {
      verdict = OK;
    }
    if (verdict) {
      this._verdict = verdict;
      this._values = [];
      this._depths = [];
    }
    return verdict;
  }

  private _values: unknown[];
  private _depths: number[] = [1];
  private _nodes = 0;
  private _bytes = 0;
  private _verdict: Verdict | null = null;
}

/** Check the size limits of `value` in one walk. */
export function checkLimits(value: unknown, limits: ILimits = LIMITS): Verdict {
  return new SizeWalk(value, limits).run()!;
}
