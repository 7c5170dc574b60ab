/**
 * What crosses the inline inspector widget's channel, read through the sidebar's own
 * intake (../records/intake: envelope, size walk, schema check): the `record` trait (the
 * published record, within the output budget) and the kernel's answer to `{type:
 * 'whole'}` (the whole record, within the inspector's whole-record limits, as the
 * sidebar's comm). No DOM, no JupyterLab: the unit tests run it under plain node.
 */

import { Payload } from '../model/payload';
import { parsePayload, payloadFromCommReply } from '../records/intake';
import { LIMITS, WHOLE_LIMITS } from '../records/size';

/** The message the widget sends to ask the kernel for the shown targets' whole records. */
export const WANT_WHOLE = { type: 'whole' } as const;

/** The message a snapshot's button sends: the kernel reads the target again. */
export const WANT_REFRESH = { type: 'refresh' } as const;

/** A string trait's value (anything else: empty). */
export function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The `record` trait's value as a payload (refused ones: `record: 'unknown'`). */
export function widgetPayload(value: unknown): Payload | null {
  if (value === null || value === undefined) {
    return null;
  }
  return parsePayload(value, LIMITS);
}

/** A custom message from the kernel (`{data: {[MIME_TYPE]: record}}`) as a payload. */
export function wholePayload(content: unknown): Payload | null {
  return payloadFromCommReply(content, WHOLE_LIMITS);
}

/** Whether `payload` shows a target whose published copy was cut. */
export function isCut(payload: Payload | null): boolean {
  return (
    payload?.record === 'summary' &&
    payload.targets.some(t => t.omitted.length > 0 || t.truncated)
  );
}
