/**
 * PGlite is one PostgreSQL session. Everyone who uses it — the owning process's own queries (the kysely
 * dialect) and other processes' connections over the session socket (session-server.ts) — takes this FIFO
 * mutex for a whole unit of work (a transaction, or one statement outside one), so no one's statements run
 * inside someone else's transaction.
 */
export interface SessionMutex {
  /** Wait for the session; resolves with the function that hands it to the next waiter. */
  acquire(): Promise<() => void>;
}

export function createSessionMutex(): SessionMutex {
  let tail: Promise<void> = Promise.resolve();
  return {
    async acquire() {
      const previous = tail;
      let release!: () => void;
      tail = new Promise<void>((resolve) => {
        release = resolve;
      });
      await previous;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        release();
      };
    },
  };
}
