import { useEffect, useRef, type RefObject } from 'react';

/**
 * A native modal dialog for as long as its component is on the page: opened (`showModal`) when it
 * mounts, closed when it goes, and the focus then put back on what had it when the dialog opened
 * (the button that opened it), if that is still on the page. Escape, Cancel, Close and a finished
 * action all end there, even when the focused button was disabled meanwhile (the dialog's own
 * return of the focus gives up then). Returns the ref for the `<dialog>`.
 */
export function useModalDialog(): RefObject<HTMLDialogElement | null> {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(window.document.activeElement);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    const from = opener.current;
    return () => {
      element?.close();
      if (from instanceof HTMLElement && from.isConnected) from.focus();
    };
  }, []);
  return dialog;
}
