/**
 * The inline inspector's `module` trait: a widget reference (`IPY_MODEL_<id>`) to the one
 * widget holding the inspector's code. No DOM: the unit tests run it under plain node.
 */

const REFERENCE = /^IPY_MODEL_([A-Za-z0-9_-]{1,64})$/;

/** The module widget's id in a `module` trait's value; an error when it is not one. */
export function moduleId(reference: unknown): string {
  const match =
    typeof reference === 'string' ? REFERENCE.exec(reference) : null;
  if (!match) {
    throw new Error(
      "nbcompile: this inspector names no module widget (its 'module' is not a widget reference)"
    );
  }
  return match[1];
}
