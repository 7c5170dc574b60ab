/**
 * nbcompile's JupyterLab plugin: the "Compile inspector" right sidebar.
 *
 * It follows the active notebook, reads nbcompile records from its saved outputs and
 * from live kernel messages, and renders them. It registers the inline renderer
 * (./mime) with the function that opens the inspector on a target and the one that
 * finds an output's kernel.
 */

import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, MainAreaWidget } from '@jupyterlab/apputils';
import { IEditorServices } from '@jupyterlab/codeeditor';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { LabIcon } from '@jupyterlab/ui-components';

import { createRendererFactory, InspectorOpener, RENDERER_RANK } from './mime';
import { ITargetRecord } from './model/target';
import { NotebookWatcher } from './notebook/watcher';
import { InspectorPanel } from './sidebar/panel';
import { SourceKernelView } from './tab/tabview';

export const PLUGIN_ID = 'nbcompile-labextension:inspector';

export namespace CommandIDs {
  export const open = 'nbcompile:open-inspector';
  export const openTab = 'nbcompile:open-source-kernels';
}

const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">
  <g class="jp-icon3" fill="#616161">
    <path d="M3 4h18v2H3zM3 9h11v2H3zM3 14h8v2H3zM3 19h6v2H3z"/>
    <path d="M17.5 10 13 17h3.5l-1 5 4.5-7h-3.5z"/>
  </g>
</svg>`;

export const inspectorIcon = new LabIcon({
  name: 'nbcompile:inspector',
  svgstr: ICON_SVG
});

function activate(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  editorServices: IEditorServices,
  rendermime: IRenderMimeRegistry,
  restorer: ILayoutRestorer | null,
  palette: ICommandPalette | null
): void {
  const tabs = new Map<string, MainAreaWidget<SourceKernelView>>();
  const openTab = (record: ITargetRecord) => {
    const open = tabs.get(record.id);
    if (open && !open.isDisposed && open.content.record === record) {
      app.shell.activateById(open.id);
      return;
    }
    open?.dispose();
    const widget = new MainAreaWidget({
      content: new SourceKernelView(editorServices, record)
    });
    widget.id = `nbcompile-tab-${record.id}`;
    widget.title.icon = inspectorIcon;
    tabs.set(record.id, widget);
    widget.disposed.connect(() => {
      if (tabs.get(record.id) === widget) {
        tabs.delete(record.id);
      }
    });
    app.shell.add(widget, 'main');
    app.shell.activateById(widget.id);
  };
  const sidebar = new InspectorPanel(editorServices, openTab);
  sidebar.title.icon = inspectorIcon;
  sidebar.title.caption = 'Compile inspector';
  app.shell.add(sidebar, 'right', { rank: 650, type: 'Compile inspector' });
  if (restorer) {
    restorer.add(sidebar, sidebar.id);
  }

  const watchers = new Map<NotebookPanel, NotebookWatcher>();
  const watch = (panel: NotebookPanel): NotebookWatcher => {
    let w = watchers.get(panel);
    if (!w) {
      const watcher = new NotebookWatcher(panel, app.shell);
      watchers.set(panel, watcher);
      panel.disposed.connect(() => {
        watchers.delete(panel);
        if (sidebar.source === watcher) {
          sidebar.setSource(null);
        }
        watcher.dispose();
      });
      w = watcher;
    }
    return w;
  };
  tracker.forEach(panel => void watch(panel));
  tracker.widgetAdded.connect((_, panel) => void watch(panel));

  const follow = () => {
    const current = tracker.currentWidget;
    sidebar.setSource(current ? watch(current) : null);
  };
  tracker.currentChanged.connect(follow);
  follow();

  const show = (panel: NotebookPanel | null, targetId: string | null) => {
    if (panel) {
      sidebar.setSource(watch(panel));
    }
    app.shell.activateById(sidebar.id);
    if (targetId) {
      sidebar.select(targetId);
    }
  };

  app.commands.addCommand(CommandIDs.open, {
    label: 'Show Compile Inspector',
    caption:
      'What torch.compile did in this notebook: targets, graph breaks, recompiles, code',
    icon: inspectorIcon,
    execute: args => {
      const targetId = typeof args.targetId === 'string' ? args.targetId : null;
      show(tracker.currentWidget, targetId);
    }
  });
  app.commands.addCommand(CommandIDs.openTab, {
    label: 'Open Source and Kernels Side by Side',
    caption:
      'The selected target\u2019s source and generated code in a tab, with the line mapping',
    isEnabled: () => !!sidebar.selectedRecord,
    execute: () => {
      const record = sidebar.selectedRecord;
      if (record) {
        openTab(record);
      }
    }
  });
  if (palette) {
    palette.addItem({ command: CommandIDs.open, category: 'nbcompile' });
    palette.addItem({ command: CommandIDs.openTab, category: 'nbcompile' });
  }

  const openInspector: InspectorOpener = (targetId, origin, payload) => {
    const panel =
      tracker.find(p => p.node.contains(origin)) ?? tracker.currentWidget;
    if (panel && payload) {
      const w = watch(panel);
      // A record the store has not seen (e.g. an output added without a kernel message).
      if (targetId && !w.store.get(targetId)) {
        w.store.apply(payload, 'saved');
      }
    }
    show(panel, targetId);
  };
  // The kernel of the notebook an output is in (a saved inspector asks it).
  const kernelOf = (origin: HTMLElement) =>
    tracker.find(p => p.node.contains(origin))?.sessionContext.session
      ?.kernel ?? null;
  rendermime.addFactory(
    createRendererFactory(openInspector, kernelOf),
    RENDERER_RANK
  );
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description:
    'The Compile inspector: what torch.compile did in the active notebook.',
  autoStart: true,
  requires: [INotebookTracker, IEditorServices, IRenderMimeRegistry],
  optional: [ILayoutRestorer, ICommandPalette],
  activate
};

export default plugin;
