/**
 * What the record parser returns: one payload per record kind (./target, ./timing,
 * ./trace, ./profile, ./suggest, ./diagnosis, ./compiletime), or an unknown one; and
 * the MIME type and schema version the extension reads.
 */

import type { ICompileTimePayload } from './compiletime';
import type { IDiagnosisPayload } from './diagnosis';
import type { IProfilePayload } from './profile';
import type { ISuggestionsPayload } from './suggest';
import type { ISummaryPayload } from './target';
import type { ITimingPayload } from './timing';
import type { ITracePayload } from './trace';

export const MIME_TYPE = 'application/vnd.nbcompile.v1+json';
/** The record schema version this extension reads. */
export const SCHEMA_VERSION = 1;

/** A record this version does not show: kept so the UI can say so, never interpreted. */
export interface IUnknownPayload {
  record: 'unknown';
  kind: string;
  key: string;
  /** Why it is not shown (unknown kind, other schema version, failed validation). */
  reason: string;
}

/** The records listed below the targets: traces, profiles, suggestions, diagnoses,
 * compile times. */
export type IReportPayload =
  | ITracePayload
  | IProfilePayload
  | ISuggestionsPayload
  | IDiagnosisPayload
  | ICompileTimePayload;

export type Payload =
  ISummaryPayload | ITimingPayload | IReportPayload | IUnknownPayload;
