/**
 * The view model: what the renderers read, parsed from a record (see ../records/parse).
 *
 * Every field is present and of its declared type whatever the record held; maps are
 * `Map`s (record strings never become object keys). Both come from the JSON Schema:
 * the wire types (../generated/record) and, per record object, its fields, defaults and
 * maps (../generated/fields, whose `View<T, Over>` every view type is made with: a view
 * type names only the fields it reads differently). Here: the pieces several record
 * kinds share (source lines, graph breaks, kernels, omissions); one module per record
 * kind beside it.
 */

import type { View } from '../generated/fields';
import type * as R from '../generated/record';

/** Each notebook cell's code file a record names (as written there) -> the cell's name
 * as the kernel words it (`cell [2]`): the record's `cell_names`. */
export type CellNames = ReadonlyMap<string, string>;

export type ISourceLine = View<R.SourceLine, { lineno: number | null }>;

export type IGraphBreak = View<
  R.GraphBreak,
  {
    /** Dynamo's user stack, outermost first (cell line, then library lines). */
    stack: ISourceLine[];
  }
>;

export type IKernel = View<
  R.Kernel,
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
export type IOmission = View<R.Omission>;

/** One step of what torch runs in place of a frame: a graph, Python, a resume function
 * (`graph`: the index in its compile's `graphs`; `lineno`: the line of the frame's file
 * run eagerly). */
export type IRunStep = View<R.RunStep>;

/** What torch runs in place of a compiled frame: its source (or `dis` and the problem). */
export type IRunsAs = View<R.RunsAs, { steps: IRunStep[] }>;
