/** Who listens to a component's events: each listener hears every event, in the order it subscribed. */
export class Listeners<E> {
  readonly #listeners = new Set<(event: E) => void>();

  /** Listens to every event; returns the unsubscribe function. */
  subscribe(listener: (event: E) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(event: E): void {
    for (const listener of this.#listeners) listener(event);
  }
}
