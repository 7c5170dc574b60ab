/**
 * Where a record enters: untrusted value -> typed payload, checked once. Every way a
 * record comes in goes through here (the inline renderer, ../notebook's saved outputs
 * and live kernel messages, the inspector comm's whole record): the envelope (an object
 * of this schema version, of a kind this version shows), one size walk (./size), one
 * schema check (./schema), then the reading (./parse). What passes is typed from then
 * on; nothing downstream checks it again. This module is the only caller of the walk and
 * of the schema check (`checkCounts` counts them, for the tests).
 *
 * The same record object met twice (the inline renderer and the sidebar read one
 * output model's data, on opening a notebook or after a kernel restart) is checked and
 * read once: the result is kept per object, for as long as the object lives.
 * No JupyterLab imports: the unit tests run this under plain node.
 */

import { MIME_TYPE, Payload } from '../model/payload';
import { clip } from '../ui/format';
import { Json, obj, str } from './coerce';
import { readRecord } from './parse';
import { checkEnvelope, checkSchema } from './schema';
import { ILimits, IPause, LIMITS, SizeWalk } from './size';

/** How many size walks and schema checks ran since the page loaded (tests read it). */
export const checkCounts = { size: 0, schema: 0 };

/** Reads a checked record (or says why it is not shown); `null`: not an object. */
export type Reader = () => Payload | null;

/** One record on its way in, for callers that give the steps tasks of their own. */
export interface IIntake {
  /**
   * The size walk ended within the `pause` given to `startIntake` (or there was none):
   * a small record, whose check and reading can follow in the same task.
   */
  readonly small: boolean;
  /** The rest of the check (the size walk to its end, then the schema); the reader. */
  check(): Reader;
}

/** Per limits, per record object: its reader (so one object is checked once). */
const seen = new WeakMap<ILimits, WeakMap<object, Reader>>();

function once(read: Reader): Reader {
  let done = false;
  let payload: Payload | null = null;
  return () => {
    if (!done) {
      payload = read();
      done = true;
    }
    return payload;
  };
}

function ready(reader: Reader): IIntake {
  return { small: true, check: () => reader };
}

/**
 * Begin taking in one published value (the value of the MIME type in a bundle: the
 * object or its JSON text). The envelope is checked now, and the size walk runs until it
 * ends or passes `pause` (none: to its end). `limits`: those of a published output by
 * default (the whole record the inspector asks the kernel for has its own,
 * `WHOLE_LIMITS`).
 */
export function startIntake(
  data: Json,
  limits: ILimits = LIMITS,
  pause: IPause | null = null
): IIntake {
  let value = data;
  if (typeof value === 'string' && pause && value.length > pause.bytes) {
    // Big JSON text: parsed with the rest of the check, not now.
    return { small: false, check: () => startIntake(data, limits).check() };
  }
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return ready(() => null);
    }
  }
  const o = obj<{ record: unknown }>(value);
  if (!o) {
    return ready(() => null);
  }
  let known = seen.get(limits);
  if (!known) {
    known = new WeakMap();
    seen.set(limits, known);
  }
  const cached = known.get(o);
  if (cached) {
    return ready(cached);
  }
  const store = known;
  const keep = (reader: Reader): Reader => {
    store.set(o, reader);
    return reader;
  };
  const kind = str(o.record);
  const key = `${kind || 'record'}:${stableKey(value)}`;
  const refuse = (reason: string): Reader => {
    const invalid: Payload = {
      record: 'unknown',
      kind: clip(kind, 40) || '(none)',
      key,
      reason
    };
    return keep(() => invalid);
  };
  const envelope = checkEnvelope(value);
  if (!envelope.ok) {
    return ready(refuse(envelope.reason));
  }
  checkCounts.size++;
  const walk = new SizeWalk(value, limits);
  const first = walk.run(pause);
  let reader: Reader | null = null;
  return {
    small: first !== null,
    check: () => {
      if (!reader) {
        const size = first ?? walk.run()!;
        if (!size.ok) {
          reader = refuse(size.reason);
        } else {
          checkCounts.schema++;
          const checked = checkSchema(envelope.value, envelope.kind);
          if (checked.ok) {
            const record = checked.record;
            reader = keep(once(() => readRecord(record, key)));
          } else {
            reader = refuse(checked.reason);
          }
        }
      }
      return reader;
    }
  };
}

/**
 * Check one published value now; the returned function reads it (for callers that give
 * the check and the reading a task each).
 */
export function checkPayload(data: Json, limits: ILimits = LIMITS): Reader {
  return startIntake(data, limits).check();
}

/**
 * One published value as a payload. `null` for anything that is not a JSON object at
 * all; what fails the check, and kinds and shapes this version does not show, come back
 * as `record: 'unknown'` with the reason.
 */
export function parsePayload(
  data: Json,
  limits: ILimits = LIMITS
): Payload | null {
  return checkPayload(data, limits)();
}

/** IOPub message types whose `content.data` can carry a record. */
const DATA_MESSAGES = new Set([
  'display_data',
  'update_display_data',
  'execute_result'
]);

/** The value under nbcompile's MIME type in a MIME bundle, if there is one. */
export function mimeData(data: unknown): unknown {
  if (
    !data ||
    typeof data !== 'object' ||
    !Object.prototype.hasOwnProperty.call(data, MIME_TYPE)
  ) {
    return undefined;
  }
  return (data as Record<string, unknown>)[MIME_TYPE];
}

/** The record payload of a kernel IOPub message, if it carries one. */
export function payloadFromMessage(msg: unknown): Payload | null {
  if (typeof msg !== 'object' || msg === null) {
    return null;
  }
  const m = msg as {
    header?: { msg_type?: unknown };
    content?: { data?: unknown };
  };
  const type = m.header?.msg_type;
  if (typeof type !== 'string' || !DATA_MESSAGES.has(type)) {
    return null;
  }
  const data = mimeData(m.content?.data);
  return data === undefined ? null : parsePayload(data);
}

/**
 * The whole record in the kernel's answer on the inspector comm (the comm message's
 * data: `{data: {[MIME_TYPE]: record}}`), within the inspector's own limits.
 */
export function payloadFromCommReply(
  commData: unknown,
  limits: ILimits
): Payload | null {
  const bundle =
    typeof commData === 'object' && commData !== null
      ? (commData as { data?: unknown }).data
      : undefined;
  const data = mimeData(bundle);
  return data === undefined ? null : parsePayload(data, limits);
}

/** The values under nbcompile's MIME type in a list of nbformat outputs, in order. */
export function recordsInOutputs(outputs: readonly unknown[]): unknown[] {
  const found: unknown[] = [];
  for (const output of outputs) {
    if (typeof output !== 'object' || output === null) {
      continue;
    }
    const o = output as { output_type?: unknown; data?: unknown };
    if (
      o.output_type !== 'display_data' &&
      o.output_type !== 'execute_result'
    ) {
      continue;
    }
    const data = mimeData(o.data);
    if (data !== undefined) {
      found.push(data);
    }
  }
  return found;
}

/** The record payloads found in a list of nbformat outputs, in order. */
export function payloadsFromOutputs(outputs: readonly unknown[]): Payload[] {
  const found: Payload[] = [];
  for (const data of recordsInOutputs(outputs)) {
    const payload = parsePayload(data);
    if (payload) {
      found.push(payload);
    }
  }
  return found;
}

/**
 * A short deterministic key for a JSON value: FNV-1a over a bounded walk (the first
 * 20,000 values, each string's first 200 characters), so huge records cost no more.
 */
function stableKey(v: Json): string {
  let h = 0x811c9dc5;
  const mix = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
  };
  const stack: Json[] = [v];
  for (let budget = 20_000; stack.length && budget > 0; budget--) {
    const x = stack.pop();
    if (Array.isArray(x)) {
      mix(`[${x.length}`);
      for (let i = Math.min(x.length, budget) - 1; i >= 0; i--) {
        stack.push(x[i]);
      }
    } else if (typeof x === 'object' && x !== null) {
      const keys = Object.keys(x);
      mix(`{${keys.length}`);
      for (const k of keys.slice(0, budget).reverse()) {
        mix(k.slice(0, 200));
        stack.push((x as Record<string, Json>)[k]);
      }
    } else {
      mix(
        typeof x === 'string' ? `"${x.length}:${x.slice(0, 200)}` : String(x)
      );
    }
  }
  return h.toString(16);
}
