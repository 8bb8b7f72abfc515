import { useEffect, type ReactNode } from 'react';
import { arrivedByNavigation } from '../state/transitions';
import { useDesk } from '../state/store';

/**
 * A screen's heading, which takes the focus its way there lost (README "Using the app", keyboard):
 * "Create batch", a batch's name in the list or "Back" are gone with the screen they were on, and
 * leave the focus on the page's body; the new screen's heading takes it once drawn, so the next
 * Tab starts there and a screen reader says where the person is. A focus the person already put
 * somewhere is left alone, and so is the page as it first opens.
 */
export function ScreenHeading({ id, children }: { readonly id: string; readonly children: ReactNode }) {
  const screen = useDesk((state) => state.screen);
  useEffect(() => {
    if (arrivedByNavigation(screen)) focusIfLost(id);
  }, [id, screen]);
  return (
    <h2 id={id} tabIndex={-1}>
      {children}
    </h2>
  );
}

/** Puts the focus on the element `id` when nothing holds it (its holder was removed): never on the page's body. */
export function focusIfLost(id: string): void {
  const holder = document.activeElement;
  if (holder === null || holder === document.body) document.getElementById(id)?.focus();
}
