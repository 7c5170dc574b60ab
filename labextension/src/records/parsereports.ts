/**
 * Readers of the report records listed beside the live targets: a TORCH_TRACE log
 * (`trace`), a measured profile (`profile`), proven fixes (`suggestions`) and a
 * diagnosis of a crash or a numeric difference (`diagnosis`). Same rules as ./parse:
 * records ./intake checked (./schema typed), each object read with `present` (./coerce:
 * every field, defaults and `Map`s from the schema); written here are only the parsed
 * sub-records and the value limits the schema does not state (ranks and line numbers
 * non-negative, byte counts at least 0, at most 500 memory-timeline points).
 */

import type * as R from '../generated/record';
import { lineOrNull, lines, parseSourceLine, present } from './coerce';
import { IDiagnosisPayload } from '../model/diagnosis';
import {
  IKernelTime,
  ILineTime,
  IMemoryPoint,
  IProfileMemory,
  IProfilePayload
} from '../model/profile';
import { IProblem, ISuggestion, ISuggestionsPayload } from '../model/suggest';
import { ITraceCompile, ITracePayload } from '../model/trace';
import { parseGraphBreak, parseKernel, parseRunsAs } from './parseparts';
import type { ProfileRecord, SuggestionsRecord } from './schema';

/** Ranks: the non-negative integers of `v` (others left out). */
function ranks(v: readonly number[]): number[] {
  return v.filter(r => Number.isInteger(r) && r >= 0);
}

/** A rank: a non-negative integer, else null. */
function rankOrNull(v: number | null): number | null {
  return v !== null && Number.isInteger(v) && v >= 0 ? v : null;
}

function parseTraceCompile(o: R.TraceCompile): ITraceCompile {
  return {
    ...present('TraceCompile', o),
    rank: rankOrNull(o.rank),
    lineno: lineOrNull(o.lineno),
    stack: o.stack.map(parseSourceLine),
    graph_breaks: o.graph_breaks.map(parseGraphBreak),
    kernels: o.kernels.map(parseKernel),
    runs_as: o.runs_as ? parseRunsAs(o.runs_as) : null
  };
}

export function parseTrace(o: R.TraceRecord, key: string): ITracePayload {
  const t = present('TraceRecord', o);
  return {
    ...t,
    key,
    ranks: ranks(o.ranks),
    compiles: o.compiles.map(parseTraceCompile),
    divergences: o.divergences.map(d => ({
      ...present('Divergence', d),
      groups: d.groups.map(ranks)
    })),
    omitted: t.omitted.map(x => present('Omission', x))
  };
}

/** A byte count: a non-negative number, else 0. */
function bytesOf(v: number): number {
  return v > 0 ? v : 0;
}

/** Most timeline points read from one record (the kernel publishes at most 60). */
const MAX_POINTS = 500;

function points(v: readonly R.MemoryPoint[]): IMemoryPoint[] {
  return v.slice(0, MAX_POINTS).map(p => present('MemoryPoint', p));
}

function parseProfileMemory(o: R.ProfileMemory): IProfileMemory {
  const m = present('ProfileMemory', o);
  return {
    ...m,
    across_breaks_bytes: bytesOf(m.across_breaks_bytes),
    outside_graphs_allocated_bytes: bytesOf(m.outside_graphs_allocated_bytes),
    timeline: points(o.timeline),
    eager_timeline: points(o.eager_timeline)
  };
}

function parseKernelTime(o: R.KernelTime): IKernelTime {
  const k = present('KernelTime', o);
  return {
    ...k,
    lines: lines(k.lines),
    allocated_bytes: bytesOf(k.allocated_bytes)
  };
}

function parseLineTime(o: R.LineTime): ILineTime {
  const t = present('LineTime', o);
  return {
    ...t,
    lineno: lineOrNull(t.lineno),
    compiled_allocated_bytes: bytesOf(t.compiled_allocated_bytes),
    eager_allocated_bytes: bytesOf(t.eager_allocated_bytes)
  };
}

export function parseProfile(o: ProfileRecord, key: string): IProfilePayload {
  const p = present('Profile', o);
  return {
    ...p,
    record: 'profile',
    key,
    kernels: o.kernels.map(parseKernelTime),
    lines: o.lines.map(parseLineTime),
    graph_breaks: p.graph_breaks.map(parseGraphBreak),
    memory: p.memory && parseProfileMemory(p.memory),
    omitted: p.omitted.map(x => present('Omission', x))
  };
}

function parseProblem(o: R.Problem): IProblem {
  return { ...present('Problem', o), lineno: lineOrNull(o.lineno) };
}

function parseSuggestion(o: R.Suggestion): ISuggestion {
  return {
    ...present('Suggestion', o),
    problem: parseProblem(o.problem),
    after: o.after && present('Measured', o.after),
    same_result: present('SameResult', o.same_result)
  };
}

export function parseSuggestions(
  o: SuggestionsRecord,
  key: string
): ISuggestionsPayload {
  return {
    ...present('Suggestions', o),
    record: 'suggestions',
    key,
    baseline: present('Measured', o.baseline),
    problems: o.problems.map(parseProblem),
    items: o.items.map(parseSuggestion)
  };
}

export function parseDiagnosis(o: R.Diagnosis, key: string): IDiagnosisPayload {
  return {
    ...present('Diagnosis', o),
    key,
    rungs: o.rungs.map(r => present('Rung', r)),
    lineno: lineOrNull(o.lineno),
    bisection: o.bisection && present('Bisection', o.bisection),
    reference: o.reference && present('Reference', o.reference),
    workarounds: o.workarounds.map(w => present('Workaround', w))
  };
}
