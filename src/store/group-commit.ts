/**
 * The outcome of one item of a committed batch: `undefined` when it was committed, or the error
 * its caller receives (a conflict of that item alone, say) while the rest of the batch commits.
 */
export type BatchOutcome = Error | undefined;

/** Options of `GroupCommit`. */
export interface GroupCommitOptions<ITEM> {
  /**
   * Commits a batch in one transaction and returns one outcome per item, in order. Throwing fails
   * every item of the batch with that error.
   */
  readonly commit: (items: readonly ITEM[]) => Promise<readonly BatchOutcome[]>;
  /**
   * When a batch with nothing in flight starts. `"now"` starts it at once (an asynchronous driver:
   * later items gather while it commits); `"next-turn"` waits one event-loop turn (a synchronous
   * driver: items submitted in the same turn share the transaction).
   */
  readonly start: "now" | "next-turn";
  /** The most items one transaction takes (default 512). */
  readonly maxBatch?: number;
}

interface Waiting<ITEM> {
  readonly item: ITEM;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit: items submitted while a batch commits wait and go into the next transaction
 * together. Each caller's promise settles only after its own item's transaction has committed (or
 * failed), so acknowledging still means "durable"; only the number of commits (and fsyncs) drops.
 *
 * @example
 * const group = new GroupCommit<Append>({ start: "now", commit: (batch) => commitInOneTransaction(batch) });
 * await Promise.all([group.submit(a), group.submit(b)]); // a and b may share one COMMIT
 */
export class GroupCommit<ITEM> {
  readonly #options: GroupCommitOptions<ITEM>;
  #queue: Waiting<ITEM>[] = [];
  #draining: Promise<void> | undefined;

  constructor(options: GroupCommitOptions<ITEM>) {
    this.#options = options;
  }

  /** Queues `item`; resolves once it is committed, rejects with its outcome error. */
  submit(item: ITEM): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#draining ??= this.#drain();
    });
  }

  /** Resolves when nothing is queued or committing. */
  async flush(): Promise<void> {
    while (this.#draining !== undefined) await this.#draining;
  }

  async #drain(): Promise<void> {
    if (this.#options.start === "next-turn") await new Promise<void>((resolve) => setImmediate(resolve));
    else await Promise.resolve();
    const maxBatch = this.#options.maxBatch ?? 512;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, maxBatch);
        let outcomes: readonly BatchOutcome[];
        try {
          outcomes = await this.#options.commit(batch.map((waiting) => waiting.item));
        } catch (error) {
          // Each caller gets its own copy: a run attaches its log to the error it receives.
          for (const [index, waiting] of batch.entries()) waiting.reject(index === 0 ? error : copyError(error));
          continue;
        }
        batch.forEach((waiting, index) => {
          const outcome = outcomes[index];
          if (outcome === undefined) waiting.resolve();
          else waiting.reject(outcome);
        });
      }
    } finally {
      this.#draining = undefined;
    }
  }
}

/** A copy of an error object with the same class, fields, message and stack. */
function copyError(error: unknown): unknown {
  if (typeof error !== "object" || error === null) return error;
  return Object.create(Object.getPrototypeOf(error) as object, Object.getOwnPropertyDescriptors(error));
}
