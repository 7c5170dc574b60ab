/**
 * The inline inspector's anywidget module (bundled by scripts/build-widget.mjs into
 * nbcompile/display/static/inspector.js, shipped in the wheel): `render` draws an
 * `InlineInspector` from the widget's `record` trait and asks the kernel, over the
 * widget's own messages, for the whole record when the published one was cut. Every
 * value crossing the channel enters through ./channel (the sidebar's intake).
 */

import { h } from '../ui/dom';
import {
  WANT_REFRESH,
  WANT_WHOLE,
  text,
  widgetPayload,
  wholePayload
} from './channel';
import { InlineInspector } from './inspector';

/** The stylesheet (style/base.css and style/widget.css), put in by the bundler. */
declare const NBC_WIDGET_CSS: string;

/** What this module uses of anywidget's model (anywidget's AFM `render` props). */
interface IWidgetModel {
  get(name: string): unknown;
  on(event: string, callback: (...args: unknown[]) => void): void;
  off(event: string, callback: (...args: unknown[]) => void): void;
  send(content: unknown): void;
}

const STYLE_ID = 'nbcompile-widget-style';

function addStyle(el: HTMLElement): void {
  const doc = el.ownerDocument;
  if (!doc.getElementById(STYLE_ID)) {
    const style = doc.createElement('style');
    style.id = STYLE_ID;
    style.textContent = NBC_WIDGET_CSS;
    doc.head.appendChild(style);
  }
}

function render({
  model,
  el
}: {
  model: IWidgetModel;
  el: HTMLElement;
}): () => void {
  addStyle(el);
  const root = h('div');
  el.appendChild(root);
  const inspector = new InlineInspector(root, () => model.send(WANT_WHOLE));
  const onRecord = () => inspector.show(widgetPayload(model.get('record')));
  const onMessage = (content: unknown) =>
    inspector.showWhole(wholePayload(content));
  // A snapshot (`inspect(f)`): its sentence and button label come from the kernel.
  const onSnapshot = () =>
    inspector.setSnapshot(
      text(model.get('snapshot')),
      text(model.get('refresh_label')),
      () => model.send(WANT_REFRESH)
    );
  onRecord();
  onSnapshot();
  model.on('change:record', onRecord);
  model.on('change:snapshot', onSnapshot);
  model.on('msg:custom', onMessage);
  return () => {
    model.off('change:record', onRecord);
    model.off('change:snapshot', onSnapshot);
    model.off('msg:custom', onMessage);
    inspector.dispose();
  };
}

export default { render };
