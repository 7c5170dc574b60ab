/**
 * The view model: what the renderers read, parsed from a record (see ../records/parse).
 *
 * Every field is present and of its declared type whatever the record held; maps are
 * `Map`s (record strings never become object keys). The record's own wire types are
 * generated from the JSON Schema into ../generated/record. Here: the `View` mapping
 * every view type is made with, and the pieces several record kinds share (source
 * lines, graph breaks, kernels, omissions); one module per record kind beside it.
 */

import type * as R from '../generated/record';

/**
 * The view of a wire type `T` (../generated/record): its fields `K`, each present (the
 * parser fills a default where the record may omit one), plus `Over`, the fields the
 * view reads differently (`Map`s for record-keyed objects, plain strings for values a
 * newer kernel may extend, parsed sub-records).
 */
export type View<T, K extends keyof T, Over = object> = {
  [P in K]-?: Exclude<T[P], undefined>;
} & Over;

/** Each notebook cell's code file a record names (as written there) -> the cell's name
 * as the kernel words it (`cell [2]`): the record's `cell_names`. */
export type CellNames = ReadonlyMap<string, string>;

export type ISourceLine = View<
  R.SourceLine,
  'filename' | 'line',
  {
    lineno: number | null;
  }
>;

export type IGraphBreak = View<
  R.GraphBreak,
  | 'reason'
  | 'filename'
  | 'lineno'
  | 'line'
  | 'hint'
  | 'explanation'
  | 'gb_type'
  | 'compile_id'
  | 'gb_id'
  | 'doc_url'
  | 'hits',
  {
    /** What torch runs around the break, in the kernel's words ('' when not known). */
    runs_as: string;
    /** Dynamo's user stack, outermost first (cell line, then library lines). */
    stack: ISourceLine[];
  }
>;

export type IKernel = View<
  R.Kernel,
  'name' | 'source' | 'size' | 'compile_id' | 'compile_label',
  {
    /** `cpp`, `triton` or `python`; anything else is kept as given. */
    language: string;
    /** `kernel`, `extern` or `wrapper`; anything else is kept as given. */
    kind: string;
    /** The source lines it computes (Inductor's provenance), when known. */
    lines: ISourceLine[];
  }
>;

/** A part of a record cut from a published output: `count` `unit` of `field`, whole in `how`. */
export type IOmission = View<R.Omission, 'field' | 'count' | 'how' | 'unit'>;

/** One step of what torch runs in place of a frame: a graph, Python, a resume function. */
export type IRunStep = View<
  R.RunStep,
  'kind' | 'text' | 'frame' | 'alternative',
  {
    /** graph: the index in its compile's `graphs`; null otherwise. */
    graph: number | null;
    /** python: the line of the frame's file run eagerly; null otherwise. */
    lineno: number | null;
  }
>;

/** What torch runs in place of a compiled frame: its source (or `dis` and the problem). */
export type IRunsAs = View<
  R.RunsAs,
  'source' | 'walk' | 'dis' | 'problem',
  { steps: IRunStep[] }
>;
