/**
 * The sentences of an inline inspector drawn from its saved output
 * (./savedinspector), read from the output's metadata: Python's `SavedView`
 * (nbcompile/display/inline_inspector.py), under nbcompile's MIME type. Strings only,
 * capped. No DOM, no JupyterLab: the unit tests run it under plain node.
 */

import { MIME_TYPE } from '../model/payload';
import { clip } from '../ui/format';

/** The sentences of a saved view (Python's `SavedView`, in the output's metadata). */
export interface ISavedView {
  /** What the view is (its line above the tabs). */
  text: string;
  /** The button's label; empty: no button (a report is not asked for again). */
  againLabel: string;
  /** What the view says when no kernel answers the button. */
  noAnswer: string;
}

/** The saved view's sentences in an output's metadata, or `null` if it has none. */
export function savedViewOf(metadata: unknown): ISavedView | null {
  const ours =
    typeof metadata === 'object' && metadata !== null
      ? (metadata as Record<string, unknown>)[MIME_TYPE]
      : undefined;
  const spec =
    typeof ours === 'object' && ours !== null
      ? (ours as Record<string, unknown>).inspector
      : undefined;
  if (typeof spec !== 'object' || spec === null) {
    return null;
  }
  const s = spec as Record<string, unknown>;
  const text = (v: unknown, n: number) =>
    typeof v === 'string' ? clip(v, n) : '';
  const view = {
    text: text(s.text, 500),
    againLabel: text(s.again_label, 40),
    noAnswer: text(s.no_answer, 500)
  };
  return view.text ? view : null;
}
