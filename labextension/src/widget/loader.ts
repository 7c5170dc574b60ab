/**
 * The module each inline inspector widget carries as its `_esm` (bundled by
 * scripts/build-widget.mjs into nbcompile/display/static/loader.js, about 1 KB).
 *
 * The inspector's code (static/inspector.js, about 190 KB) is held once per kernel by one
 * module widget (Python's `InspectorModule`, its `code` trait), so a saved notebook keeps
 * it once however many inspectors it shows. This loader finds that widget through the
 * `module` trait (a widget reference, `IPY_MODEL_<id>`), imports its code the way
 * anywidget imports an `_esm` string (a blob URL: nothing fetched from a network), once per
 * page, and hands the view to it.
 */

import { moduleId } from './reference';

/** What the loader uses of anywidget's model (its AFM `render` props). */
interface IModel {
  get(name: string): unknown;
  widget_manager: { get_model(id: string): Promise<IModel> };
}

interface IRenderProps {
  model: IModel;
  el: HTMLElement;
}

interface IInspectorModule {
  default: { render(props: IRenderProps): () => void };
}

async function importCode(model: IModel): Promise<IInspectorModule> {
  const code = model.get('code');
  if (typeof code !== 'string' || code.length === 0) {
    throw new Error("nbcompile: the inspector's module widget holds no code");
  }
  const url = URL.createObjectURL(
    new Blob([code], { type: 'text/javascript' })
  );
  try {
    return (await import(/* webpackIgnore: true */ url)) as IInspectorModule;
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** Imports, one per module widget and page, shared by every inspector shown. */
const modules = new Map<string, Promise<IInspectorModule>>();

function inspectorModule(model: IModel): Promise<IInspectorModule> {
  const id = moduleId(model.get('module'));
  let loading = modules.get(id);
  if (!loading) {
    loading = model.widget_manager.get_model(id).then(importCode);
    modules.set(id, loading);
    loading.catch(() => modules.delete(id));
  }
  return loading;
}

async function render(props: IRenderProps): Promise<() => void> {
  try {
    return (await inspectorModule(props.model)).default.render(props);
  } catch (error) {
    const message = props.el.ownerDocument.createElement('pre');
    message.className = 'nbc-widget-error';
    message.textContent = String(
      error instanceof Error ? error.message : error
    );
    props.el.appendChild(message);
    return () => message.remove();
  }
}

export default { render };
