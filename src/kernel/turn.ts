/** A turn of the event loop: timers, I/O and other requests run before the caller goes on. */
export const turn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
