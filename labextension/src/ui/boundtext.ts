/**
 * Code text bounded for display: a code view lays out a whole line at once, so over-long
 * lines and tails are cut, each cut saying how much was left out. No imports: the
 * sidebar's CodeMirror view and the widget's DOM view both use it.
 */

/** Longest text and line shown. */
const MAX_CHARS = 4_000_000;
const MAX_LINE = 5_000;

/** `text` with over-long lines and tails cut, each cut saying how much was left out. */
export function boundText(text: string): string {
  let t = text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text;
  if (t.length > MAX_LINE) {
    const lines = t.split('\n');
    let cut = false;
    for (let i = 0; i < lines.length; i++) {
      if (lines[i].length > MAX_LINE) {
        lines[i] =
          `${lines[i].slice(0, MAX_LINE)} … (${lines[i].length - MAX_LINE} more characters)`;
        cut = true;
      }
    }
    if (cut) {
      t = lines.join('\n');
    }
  }
  return text.length > MAX_CHARS
    ? `${t}\n… (${text.length - MAX_CHARS} more characters not shown)`
    : t;
}
