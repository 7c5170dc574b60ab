/**
 * The view of a profile record (`nbcompile.profile` / `%kprun`): measured kernels,
 * seconds per source line, and the memory of one call.
 */

import type { View } from '../generated/fields';
import type * as R from '../generated/record';
import type { IGraphBreak, IOmission } from './parts';

/** One kernel (or extern op) of a profile: measured launches and time. */
export type IKernelTime = View<R.KernelTime>;

/** One source line of a profiled target: seconds per call, compiled and eager. */
export type ILineTime = View<R.LineTime, { lineno: number | null }>;

/** Bytes in use at one moment of one call. */
export type IMemoryPoint = View<R.MemoryPoint>;

/** The memory of one profiled call, compiled and eager (`Profile.memory`). */
export type IProfileMemory = View<
  R.ProfileMemory,
  {
    timeline: IMemoryPoint[];
    eager_timeline: IMemoryPoint[];
  }
>;

/** A `"record": "profile"` payload (`nbcompile.profile` / `%kprun`). */
export type IProfilePayload = View<
  R.Profile,
  {
    record: 'profile';
    key: string;
    kernels: IKernelTime[];
    lines: ILineTime[];
    graph_breaks: IGraphBreak[];
    /** Peak and allocated bytes of one call, bytes per line and kernel, a timeline; null: not measured. */
    memory: IProfileMemory | null;
    omitted: IOmission[];
  }
>;
