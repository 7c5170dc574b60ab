/**
 * The view of a profile record (`nbcompile.profile` / `%kprun`): measured kernels,
 * seconds per source line, and the memory of one call.
 */

import type * as R from '../generated/record';
import type { CellNames, IGraphBreak, IOmission, View } from './parts';

/** One kernel (or extern op) of a profile: measured launches and time. */
export type IKernelTime = View<
  R.KernelTime,
  | 'name'
  | 'kind'
  | 'calls'
  | 'total_s'
  | 'mean_s'
  | 'share'
  | 'compile_id'
  | 'stage'
  | 'lines'
  | 'allocated_bytes'
>;

/** One source line of a profiled target: seconds per call, compiled and eager. */
export type ILineTime = View<
  R.LineTime,
  | 'line'
  | 'compiled_s'
  | 'eager_s'
  | 'kernels'
  | 'speedup'
  | 'compiled_allocated_bytes'
  | 'eager_allocated_bytes',
  {
    lineno: number | null;
  }
>;

/** Bytes in use at one moment of one call. */
export type IMemoryPoint = View<R.MemoryPoint, 't_s' | 'bytes' | 'what'>;

/** The memory of one profiled call, compiled and eager (`Profile.memory`). */
export type IProfileMemory = View<
  R.ProfileMemory,
  | 'device'
  | 'peak_bytes'
  | 'eager_peak_bytes'
  | 'allocated_bytes'
  | 'eager_allocated_bytes'
  | 'saved_bytes'
  | 'eager_saved_bytes'
  | 'across_breaks_bytes'
  | 'outside_graphs_allocated_bytes'
  | 'note'
  | 'notes',
  {
    timeline: IMemoryPoint[];
    eager_timeline: IMemoryPoint[];
  }
>;

/** A `"record": "profile"` payload (`nbcompile.profile` / `%kprun`). */
export interface IProfilePayload {
  record: 'profile';
  key: string;
  name: string;
  repeat: number;
  filename: string;
  wall_s: number;
  kernel_s: number;
  outside_graphs_s: number;
  overhead_s: number;
  unaccounted_s: number;
  untied_s: number;
  eager_wall_s: number;
  accounted: boolean;
  kernels: IKernelTime[];
  lines: ILineTime[];
  notes: string[];
  graph_breaks: IGraphBreak[];
  /** Each cell's code file the record names (as written there) -> `cell [N]`. */
  cell_names: CellNames;
  compiles: string[];
  recompiles_during_profile: number;
  /** Peak and allocated bytes of one call, bytes per line and kernel, a timeline; null: not measured. */
  memory: IProfileMemory | null;
  /** Set when the published copy left kernels or lines out (see `omitted`). */
  truncated: boolean;
  omitted: IOmission[];
}
