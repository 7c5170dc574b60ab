/**
 * A source line outside the notebook (library code): the file and line, then the code.
 */

import { h } from './dom';
import { clip, shortPath } from './format';

/** `file:line` and the line's code; `missing` when the record has no source text. */
export function libraryLine(
  filename: string | null | undefined,
  lineno: number | null,
  line: string,
  missing = '(source not available)'
): HTMLElement {
  return h(
    'div',
    { class: 'nbc-library-line' },
    h(
      'span',
      { class: 'nbc-lineno' },
      clip(shortPath(filename ?? '', lineno), 300)
    ),
    h('code', { class: 'nbc-line' }, clip(line.trim(), 300) || missing)
  );
}
