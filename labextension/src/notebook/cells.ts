/**
 * Cell navigation: find the cell a record points to (by cell id, else by prompt
 * number), label it, and reveal one of its lines in the notebook.
 */

import { JupyterFrontEnd } from '@jupyterlab/application';
import { Notification } from '@jupyterlab/apputils';
import { ICodeCellModel } from '@jupyterlab/cells';
import { NotebookPanel } from '@jupyterlab/notebook';

import { ICellRef } from '../model/target';

/** The index of the cell a record points to: by cell id, else by prompt number. */
export function findCell(panel: NotebookPanel, ref: ICellRef): number {
  const cells = panel.content.widgets;
  let index = ref.cell_id
    ? cells.findIndex(c => c.model.id === ref.cell_id)
    : -1;
  if (index < 0 && ref.execution_count !== null) {
    // Older records or a frontend without cell ids: the prompt number.
    index = cells.findIndex(
      c =>
        c.model.type === 'code' &&
        (c.model as ICodeCellModel).executionCount === ref.execution_count
    );
  }
  return index;
}

/** The prompt label (`[2]`, else `#3`) of the cell a record points to, if present. */
export function cellLabel(panel: NotebookPanel, ref: ICellRef): string | null {
  const index = findCell(panel, ref);
  if (index < 0) {
    return null;
  }
  const model = panel.content.widgets[index].model;
  const count =
    model.type === 'code' ? (model as ICodeCellModel).executionCount : null;
  return count !== null ? `[${count}]` : `#${index + 1}`;
}

/** Activate the cell a record points to, select line `lineno` (1-based) and flash it. */
export async function revealCell(
  panel: NotebookPanel,
  shell: JupyterFrontEnd.IShell,
  ref: ICellRef,
  lineno: number | null
): Promise<boolean> {
  const nb = panel.content;
  const index = findCell(panel, ref);
  if (index < 0) {
    Notification.warning(
      'nbcompile: the cell that defined this target is no longer in the notebook.',
      { autoClose: 4000 }
    );
    return false;
  }
  shell.activateById(panel.id);
  nb.deselectAll();
  nb.activeCellIndex = index;
  nb.mode = 'command';
  const cell = nb.widgets[index];
  if (cell.inputHidden) {
    cell.inputHidden = false;
  }
  await nb.scrollToItem(index, 'smart');
  await cell.ready;
  const editor = cell.editor;
  if (lineno !== null && Number.isFinite(lineno) && editor) {
    const lines = cell.model.sharedModel.getSource().split('\n');
    // Record line numbers are untrusted: an integer index into the cell's lines.
    const line = Math.min(
      Math.max(0, Math.floor(lineno) - 1),
      lines.length - 1
    );
    editor.setSelection({
      start: { line, column: 0 },
      end: { line, column: lines[line].length }
    });
    editor.revealPosition({ line, column: 0 });
  }
  cell.node.classList.remove('nbc-flash');
  // Restart the animation.
  void cell.node.offsetWidth;
  cell.node.classList.add('nbc-flash');
  window.setTimeout(() => cell.node.classList.remove('nbc-flash'), 1600);
  return true;
}
