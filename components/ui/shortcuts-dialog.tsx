"use client";
import { useEffect, useRef, useState } from "react";
import { actionFor, bindingsFor, isTyping, type KeyPage } from "@/lib/view/keymap";

const OPEN_EVENT = "retrace-shortcuts";

/** Opens the page's shortcuts dialog (a header button does). */
function openShortcuts() {
  window.dispatchEvent(new Event(OPEN_EVENT));
}

/** A button that opens the shortcuts dialog. */
export function ShortcutsButton() {
  return (
    <button type="button" className="link shortcuts-button" onClick={openShortcuts} title="Keyboard shortcuts (?)">
      Shortcuts <kbd>?</kbd>
    </button>
  );
}

/** `?` lists the page's keys, from the one keymap the page's handler reads (lib/view/keymap.ts). */
export function ShortcutsDialog({ page }: { page: KeyPage }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || isTyping(e.target) || actionFor(page, e) !== "shortcuts") return;
      e.preventDefault();
      setOpen(true);
    };
    const onOpen = () => setOpen(true);
    window.addEventListener("keydown", onKey);
    window.addEventListener(OPEN_EVENT, onOpen);
    return () => {
      window.removeEventListener("keydown", onKey);
      window.removeEventListener(OPEN_EVENT, onOpen);
    };
  }, [page]);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} className="shortcuts-dialog" aria-label="Keyboard shortcuts" onClose={() => setOpen(false)}>
      <h2>Keyboard shortcuts</h2>
      <table aria-label="Shortcuts">
        <tbody>
          {bindingsFor(page).map((b) => (
            <tr key={b.action}>
              <th scope="row">
                <kbd>{b.shown}</kbd>
              </th>
              <td>{b.does}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="sub">The same keys on the run, replay and compare pages; keys typed into a field stay in the field.</p>
      <form method="dialog">
        <button type="submit" autoFocus>
          Close
        </button>
      </form>
    </dialog>
  );
}
