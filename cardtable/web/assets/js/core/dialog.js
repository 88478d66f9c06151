/**
 * The start of the product's small modal questions (the daily's "keep it counted?", the host's
 * options for a seat): a `<dialog>` named by its heading and described by its text, whose ids
 * start with the dialog's own (`<id>-title`, `<id>-text`), and its buttons.
 */

/** A dialog `id` (also its class) with its heading and text; the caller adds the rest. */
export function questionDialog(id) {
  const dialog = document.createElement("dialog");
  dialog.id = id;
  dialog.className = id;
  dialog.setAttribute("aria-labelledby", `${id}-title`);
  dialog.setAttribute("aria-describedby", `${id}-text`);
  const title = document.createElement("h2");
  title.id = `${id}-title`;
  const text = document.createElement("p");
  text.id = `${id}-text`;
  dialog.append(title, text);
  return { dialog, title, text };
}

/** A button of a dialog: `id`, and the class `className` when given. */
export function dialogButton(id, className = "") {
  const b = document.createElement("button");
  b.type = "button";
  b.id = id;
  if (className) b.className = className;
  return b;
}

/**
 * Calls `handler` once, when `dialog` closes from the showing that follows. A dialog's
 * "close" event is a task of its own: a question asked again at once (Esc, then the same
 * key) can open the dialog before the first closing's event arrives, and that late event
 * must not answer the new question.
 */
export function whenClosed(dialog, handler) {
  const closed = () => {
    if (dialog.open) return; // the close of an earlier showing, delivered late
    dialog.removeEventListener("close", closed);
    handler();
  };
  dialog.addEventListener("close", closed);
}
