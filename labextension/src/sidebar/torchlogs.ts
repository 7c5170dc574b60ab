/** The "torch logs" section: torch's own warnings about the target's compiles, kept
 * out of the cell's stderr by nbcompile and shown here once each. */

import { appendPaged, h } from '../ui/dom';
import { clip, nameCells } from '../ui/format';
import { ITargetRecord } from '../model/target';
import { ISectionHost, PAGE, Section } from './section';

export class TorchLogsSection extends Section {
  constructor(host: ISectionHost) {
    super(host, 'torch-logs', 'torch logs', false);
  }

  protected count(t: ITargetRecord): number {
    return t.torch_logs.length;
  }

  protected render(t: ITargetRecord): HTMLElement {
    if (!t.torch_logs.length) {
      return h(
        'p',
        { class: 'nbc-muted' },
        'torch logged nothing about these compiles.'
      );
    }
    const list = h('ul', { class: 'nbc-torch-logs' });
    appendPaged(
      list,
      t.torch_logs,
      log =>
        h(
          'li',
          null,
          h(
            'div',
            { class: 'nbc-meta' },
            `${clip(log.level, 20)} · ${clip(log.logger, 200)}` +
              (log.compile_id ? ` · compile ${clip(log.compile_id, 40)}` : '')
          ),
          h(
            'pre',
            { class: 'nbc-torch-log' },
            clip(nameCells(log.message, t.cell_names), 4000)
          )
        ),
      PAGE,
      'logs'
    );
    return list;
  }
}
