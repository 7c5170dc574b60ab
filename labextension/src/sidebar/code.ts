/** The "Generated code" section: the code pieces of a target and a code view of one. */

import { appendPaged, button, h } from '../ui/dom';
import {
  classSuffix,
  clip,
  editorMimeType,
  formatSize,
  languageLabel
} from '../ui/format';
import { IKernel } from '../model/parts';
import { ITargetRecord } from '../model/target';
import { ISectionHost, PAGE, Section } from './section';

export class CodeSection extends Section {
  constructor(host: ISectionHost) {
    super(host, 'code', 'Generated code', true);
  }

  refresh(): void {
    this.host.codeView('code').refresh();
  }

  /** Show the first kernel of compile `compileId`. */
  showCompile(t: ITargetRecord, compileId: string): void {
    const i = t.kernels.findIndex(
      k => k.compile_id === compileId && k.kind === 'kernel'
    );
    const any = t.kernels.findIndex(k => k.compile_id === compileId);
    if (i >= 0 || any >= 0) {
      this._selected.set(t.id, i >= 0 ? i : any);
    }
    this.show();
  }

  protected count(t: ITargetRecord): number {
    return t.kernels.length;
  }

  protected render(t: ITargetRecord): HTMLElement {
    const wrap = h('div', { class: 'nbc-code' });
    if (!t.kernels.length && !t.output_code) {
      wrap.appendChild(
        h(
          'p',
          { class: 'nbc-muted' },
          t.status === 'pending'
            ? 'No code yet: it is generated at the first call.'
            : t.status === 'compiled_inside'
              ? `Its code is part of ${t.compiled_inside}'s generated code.`
              : 'No generated code was captured.'
        )
      );
      return wrap;
    }
    // -1 = the whole output code; otherwise an index into t.kernels.
    let selected = this._selected.get(t.id);
    if (
      selected === undefined ||
      selected >= t.kernels.length ||
      (selected < 0 && !t.output_code)
    ) {
      const firstKernel = t.kernels.findIndex(k => k.kind === 'kernel');
      selected = firstKernel >= 0 ? firstKernel : t.output_code ? -1 : 0;
    }
    const view = this.host.codeView('code');
    const tbody = h('tbody');
    const rows = new Map<number, HTMLElement>();
    let current = selected;
    const show = (index: number) => {
      this._selected.set(t.id, index);
      rows.get(current)?.classList.remove('nbc-selected');
      rows.get(index)?.classList.add('nbc-selected');
      current = index;
      if (index < 0) {
        view.setText(t.output_code, 'text/x-python', 'whole output code');
      } else {
        const k = t.kernels[index];
        view.setText(
          k.source,
          editorMimeType(k.language),
          `${clip(k.name, 200)} · ${clip(languageLabel(k.language), 50)}` +
            (k.compile_id ? ` · compile ${clip(k.compile_id, 50)}` : '')
        );
      }
    };
    if (t.output_code) {
      const all = h(
        'tr',
        {
          class: 'nbc-kernel-row nbc-all-code',
          data: { index: '-1' },
          onClick: () => show(-1)
        },
        h('td', { attrs: { colspan: '2' } }, 'whole output code'),
        h('td', { class: 'nbc-num' }, formatSize(t.output_code.length))
      );
      rows.set(-1, all);
      tbody.appendChild(all);
    }
    const kernelRow = (k: IKernel, i: number) => {
      const language = clip(languageLabel(k.language), 50);
      const tr = h(
        'tr',
        {
          class:
            `nbc-kernel-row nbc-kind-${classSuffix(k.kind)}` +
            (i === current ? ' nbc-selected' : ''),
          data: { index: String(i) },
          title: k.compile_id ? `compile ${clip(k.compile_id, 50)}` : undefined,
          onClick: () => show(i)
        },
        h(
          'td',
          { class: 'nbc-kernel-name', title: clip(k.name, 300) },
          clip(k.name, 300)
        ),
        h(
          'td',
          {
            class: 'nbc-kernel-type',
            title: `${language} ${clip(k.kind, 50)}`
          },
          k.kind === 'kernel' ? language : clip(k.kind, 50)
        ),
        h('td', { class: 'nbc-num' }, formatSize(k.size))
      );
      rows.set(i, tr);
      return tr;
    };
    appendPaged(tbody, t.kernels, kernelRow, PAGE, 'code pieces');
    const table = h(
      'table',
      { class: 'nbc-kernels' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', null, 'kernel'),
          h('th', null, 'type'),
          h('th', { class: 'nbc-num' }, 'size')
        )
      ),
      tbody
    );
    if (this.host.openTab && t.kernels.some(k => k.kind !== 'wrapper')) {
      wrap.appendChild(
        button(
          'Open source ↔ kernels in a tab',
          () => this.host.openTab?.(t),
          'nbc-button nbc-small nbc-open-tab',
          'The source and the generated code side by side, with the line mapping'
        )
      );
    }
    wrap.appendChild(h('div', { class: 'nbc-kernels-wrap' }, table));
    wrap.appendChild(view.node);
    show(selected);
    return wrap;
  }

  private _selected = new Map<string, number>();
}
