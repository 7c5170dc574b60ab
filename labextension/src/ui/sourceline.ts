/**
 * A source line outside the notebook (library code): the file and line, then the code.
 */

import { h } from './dom';
import type { CellNames } from '../model/parts';
import { clip, placeText } from './format';

/** `file:line` (`cell [2], line 5` for a cell the record names) and the line's code;
 * `missing` when the record has no source text. */
export function libraryLine(
  filename: string | null | undefined,
  lineno: number | null,
  line: string,
  missing = '(source not available)',
  names?: CellNames
): HTMLElement {
  return h(
    'div',
    { class: 'nbc-library-line' },
    h(
      'span',
      { class: 'nbc-lineno' },
      clip(placeText(filename ?? '', lineno, names), 300)
    ),
    h('code', { class: 'nbc-line' }, clip(line.trim(), 300) || missing)
  );
}
