/**
 * A list of handlers one part of the proxy reports to, filled by the parts built after it: how
 * `createS2SPProxy` wires a part to the ones that depend on it while building each part after
 * everything it calls (no forward reference, no variable assigned later).
 *
 * @module
 */

/** Where a part sends one kind of event; what listens is added once it is built. */
export interface EventSink<A extends unknown[]> {
  /** Hands the event to every handler, in the order they were added. */
  emit(...args: A): void;
  /** Adds a handler. */
  on(handler: (...args: A) => void): void;
}

/** Creates an empty sink: an event emitted before a handler is added reaches no one. */
export function eventSink<A extends unknown[]>(): EventSink<A> {
  const handlers: ((...args: A) => void)[] = [];
  return {
    emit(...args) {
      for (const handler of handlers) handler(...args);
    },
    on(handler) {
      handlers.push(handler);
    },
  };
}
