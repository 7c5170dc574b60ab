/**
 * A search over several code pieces at once (a target's kernels): which pieces hold a
 * query, in their name or on which lines of their code, the way the code views search
 * one text (any case, within a line). Pure: no DOM.
 */

/** A named code text. */
export interface IPiece {
  readonly name: string;
  readonly source: string;
}

/** Where one piece holds the query. */
export interface IFoundIn {
  /** The piece's index in the list searched. */
  index: number;
  /** Its name holds the query (a kernel's code need not: `cpp_fused_add_relu_0`). */
  inName: boolean;
  /** 1-based numbers of the lines holding the query, in order (at most `maxLines`). */
  lines: number[];
  /** Every matching line, counted past `maxLines` too. */
  count: number;
}

/** The pieces holding `query` (any case) in their name or code, with the lines; '' finds
 * none. */
export function findPieces(
  pieces: readonly IPiece[],
  query: string,
  maxLines = 1000
): IFoundIn[] {
  const q = query.toLowerCase();
  const found: IFoundIn[] = [];
  if (!q || q.includes('\n')) {
    return found;
  }
  pieces.forEach((piece, index) => {
    const inName = piece.name.toLowerCase().includes(q);
    const text = piece.source.toLowerCase();
    let at = text.indexOf(q);
    if (at < 0 && !inName) {
      return;
    }
    const lines: number[] = [];
    let count = 0;
    let line = 1;
    let pos = 0;
    while (at >= 0) {
      for (
        let nl = text.indexOf('\n', pos);
        nl >= 0 && nl < at;
        nl = text.indexOf('\n', nl + 1)
      ) {
        line++;
        pos = nl + 1;
      }
      count++;
      if (lines.length < maxLines) {
        lines.push(line);
      }
      const eol = text.indexOf('\n', at);
      if (eol < 0) {
        break;
      }
      line++;
      pos = eol + 1;
      at = text.indexOf(q, pos);
    }
    found.push({ index, inName, lines, count });
  });
  return found;
}

/** Line `line` (1-based) of `text`, '' past its end. */
export function lineOf(text: string, line: number): string {
  let start = 0;
  for (let n = 1; n < line; n++) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) {
      return '';
    }
    start = nl + 1;
  }
  const end = text.indexOf('\n', start);
  return text.slice(start, end < 0 ? undefined : end);
}
