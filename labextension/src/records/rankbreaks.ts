/**
 * The graph breaks of a notebook, once each, ranked by what they cost: a break is the
 * same break at the same place for the same reason, whichever target or compile hit it.
 * Measured ones first (a profile's time in Python between graphs, split evenly between
 * the breaks it saw), then by how many compiles hit them. Each target's hit counts are
 * the kernel's (`hits` on its published breaks, counted by
 * `nbcompile/core/insight/break_ranking.py`); this only sums them over the notebook's
 * outputs and adds what profiles measured.
 */

import { IGraphBreak } from '../model/parts';
import { IProfilePayload } from '../model/profile';
import { ICellRef, ITargetRecord } from '../model/target';

export interface IRankedBreak {
  graph_break: IGraphBreak;
  /** Compiles that hit it, over every target. */
  hits: number;
  /** Names of the targets that hit it. */
  targets: string[];
  /** The defining cell of the first target that hit it (for the jump to the line). */
  cell: ICellRef;
  /** Measured seconds per call between graphs, when a profile saw it. */
  outside_graphs_s: number | null;
}

function breakKey(gb: IGraphBreak): string {
  return `${gb.filename ?? ''}\u0000${gb.lineno ?? ''}\u0000${gb.reason}`;
}

export function rankBreaks(
  targets: readonly ITargetRecord[],
  profiles: readonly IProfilePayload[]
): IRankedBreak[] {
  const ranked = new Map<string, IRankedBreak>();
  const add = (gb: IGraphBreak, target: ITargetRecord, hits: number) => {
    const key = breakKey(gb);
    let row = ranked.get(key);
    if (!row) {
      row = {
        graph_break: gb,
        hits: 0,
        targets: [],
        cell: target.cell,
        outside_graphs_s: null
      };
      ranked.set(key, row);
    }
    row.hits += hits;
    if (!row.targets.includes(target.name)) {
      row.targets.push(target.name);
    }
  };
  for (const t of targets) {
    const seen = new Set<string>();
    for (const gb of t.graph_breaks) {
      const key = breakKey(gb);
      if (!seen.has(key)) {
        seen.add(key);
        add(gb, t, gb.hits);
      }
    }
  }
  for (const p of profiles) {
    const keys = new Map<string, IGraphBreak>();
    for (const gb of p.graph_breaks) {
      keys.set(breakKey(gb), gb);
    }
    for (const key of keys.keys()) {
      const row = ranked.get(key);
      if (!row) {
        continue; // a profile of code no target of this notebook reported
      }
      row.outside_graphs_s =
        (row.outside_graphs_s ?? 0) + p.outside_graphs_s / keys.size;
    }
  }
  const rows = [...ranked.values()];
  const order = new Map(rows.map((r, i) => [r, i]));
  return rows.sort((a, b) => {
    if ((a.outside_graphs_s === null) !== (b.outside_graphs_s === null)) {
      return a.outside_graphs_s === null ? 1 : -1;
    }
    if (
      a.outside_graphs_s !== null &&
      b.outside_graphs_s !== null &&
      a.outside_graphs_s !== b.outside_graphs_s
    ) {
      return b.outside_graphs_s - a.outside_graphs_s;
    }
    return b.hits - a.hits || order.get(a)! - order.get(b)!;
  });
}
