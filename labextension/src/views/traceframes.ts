/**
 * The frames a trace compiled, as a tree of the user stacks that led to them (like
 * tlparse's stack trie); each frame lists its compiles, a click selects one.
 */

import { appendPaged, button, h } from '../ui/dom';
import { classSuffix, clip, rankText, shortPath } from '../ui/format';
import { ISourceLine } from '../model/parts';
import { ITraceCompile, ITracePayload } from '../model/trace';

/** Depth and children per node of the frame tree. */
const MAX_DEPTH = 40;
const PAGE = 50;

interface IFrameNode {
  label: string;
  children: Map<string, IFrameNode>;
  compiles: ITraceCompile[];
}

function frameLabel(s: ISourceLine): string {
  return `${shortPath(s.filename, s.lineno)} ${s.line.trim()}`;
}

/** The frames that compiled, as a tree of the user stacks that led to them. */
function renderFrames(
  p: ITracePayload,
  select: (c: ITraceCompile) => void
): HTMLElement {
  const root: IFrameNode = { label: '', children: new Map(), compiles: [] };
  for (const c of p.compiles) {
    let node = root;
    const stack = c.stack.length
      ? c.stack
      : [{ filename: c.filename, lineno: c.lineno, line: c.function }];
    for (const s of stack.slice(0, MAX_DEPTH)) {
      const label = frameLabel(s);
      let next = node.children.get(label);
      if (!next) {
        next = { label, children: new Map(), compiles: [] };
        node.children.set(label, next);
      }
      node = next;
    }
    node.compiles.push(c);
  }
  const renderNode = (n: IFrameNode): HTMLElement => {
    const li = h('li', null, h('code', null, clip(n.label, 300)));
    if (n.compiles.length) {
      const ids = h('span', { class: 'nbc-frame-compiles' });
      appendPaged(
        ids,
        n.compiles,
        c =>
          button(
            `${c.compile_id}${c.rank !== null ? `@${c.rank}` : ''}`,
            () => select(c),
            `nbc-button nbc-small nbc-trace-${classSuffix(c.status)}`,
            `${c.status} on ${rankText(c.rank)}`
          ),
        PAGE,
        'compiles'
      );
      li.appendChild(ids);
    }
    if (n.children.size) {
      const ul = h('ul', null);
      appendPaged(ul, [...n.children.values()], renderNode, PAGE, 'frames');
      li.appendChild(ul);
    }
    return li;
  };
  const tree = h('ul', { class: 'nbc-frame-tree' });
  appendPaged(tree, [...root.children.values()], renderNode, PAGE, 'frames');
  return tree;
}

/** The frame tree in a collapsed `<details>`, built when first opened. */
export function framesSection(
  p: ITracePayload,
  select: (c: ITraceCompile) => void
): HTMLElement {
  const details = h(
    'details',
    { class: 'nbc-trace-frames' },
    h('summary', null, 'Frames that compiled (by the stack that led there)')
  );
  let built = false;
  details.addEventListener('toggle', () => {
    if (details.open && !built) {
      built = true;
      details.appendChild(renderFrames(p, select));
    }
  });
  return details;
}
