/**
 * The link between the inline renderer (mime extension) and the sidebar plugin.
 * Both entry points live in the same federated bundle, so they share this module.
 */

import { Payload } from './model';

/** Open the inspector on a target; `origin` is the rendered output's node. */
export type InspectorOpener = (
  targetId: string | null,
  origin: HTMLElement,
  payload: Payload | null
) => void;

let opener: InspectorOpener | null = null;

export function setInspectorOpener(fn: InspectorOpener | null): void {
  opener = fn;
}

export function hasInspector(): boolean {
  return opener !== null;
}

/** Returns false when the sidebar plugin is not active. */
export function openInspector(
  targetId: string | null,
  origin: HTMLElement,
  payload: Payload | null
): boolean {
  if (!opener) {
    return false;
  }
  opener(targetId, origin, payload);
  return true;
}
