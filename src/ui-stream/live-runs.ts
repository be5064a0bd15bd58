import { ChatRunActiveError } from "../errors/ui-chat-errors.js";
import type { AgentStreamEvent, StreamedLogEvent } from "../runner/agent-stream-event.js";
import { errorChunk } from "./to-ui-message-stream.js";
import type { UIChunkMapper } from "./ui-chunk-mapper.js";
import type { UIMessageChunk } from "./ui-message-chunk.js";

interface Listener {
  unit(unit: AgentStreamEvent): void;
  end(error: unknown): void;
}

/**
 * A run of a chat session streaming in this process, read to its end whoever listens (a client that
 * goes away does not stop it). It keeps only what the log may not have yet: the events published
 * since the last prune (a reconnect drops those the log already holds) and the deltas of the answer
 * in flight, i.e. since the last event.
 */
export class LiveRun {
  readonly sessionId: string;
  /** The first seq of the turn this run streams into (a reconnect replays from there). */
  readonly turnFromSeq: number;
  #events: StreamedLogEvent[] = [];
  #deltas: Exclude<AgentStreamEvent, StreamedLogEvent>[] = [];
  readonly #listeners = new Set<Listener>();
  #done = false;
  #error: unknown;

  constructor(sessionId: string, turnFromSeq: number) {
    this.sessionId = sessionId;
    this.turnFromSeq = turnFromSeq;
  }

  get done(): boolean {
    return this.#done;
  }

  /** Reads `stream` to its end, then calls `onEnd`. */
  async pump(stream: AsyncIterable<AgentStreamEvent>, onEnd: () => void): Promise<void> {
    try {
      for await (const unit of stream) {
        if (unit.kind === "event") {
          this.#events.push(unit);
          this.#deltas = [];
        } else this.#deltas.push(unit);
        for (const listener of this.#listeners) listener.unit(unit);
      }
    } catch (error) {
      this.#error = error;
    } finally {
      this.#done = true;
      onEnd();
      for (const listener of this.#listeners) listener.end(this.#error);
      this.#listeners.clear();
    }
  }

  /** What the log may not hold yet (events after `logSeq`, then the answer's deltas); forgets the events the log has. */
  uncommitted(logSeq: number): AgentStreamEvent[] {
    this.#events = this.#events.filter((event) => event.seq > logSeq);
    return [...this.#events, ...this.#deltas];
  }

  /**
   * A stream of UI chunks: `initial` units first, then the run's own as they come, through `mapper`.
   * Cancelling it (the client went away) only stops listening.
   */
  connect(mapper: UIChunkMapper, initial: readonly AgentStreamEvent[]): ReadableStream<UIMessageChunk> {
    let listener: Listener | undefined;
    return new ReadableStream<UIMessageChunk>({
      start: (controller) => {
        for (const unit of initial) for (const chunk of mapper.map(unit)) controller.enqueue(chunk);
        const end = (error: unknown) => {
          const last = error === undefined || mapper.ended ? [] : [errorChunk(error)];
          for (const chunk of [...mapper.start(), ...last]) controller.enqueue(chunk);
          controller.close();
        };
        if (this.#done) return end(this.#error);
        listener = {
          unit: (unit) => {
            for (const chunk of mapper.map(unit)) controller.enqueue(chunk);
          },
          end,
        };
        this.#listeners.add(listener);
      },
      cancel: () => {
        if (listener !== undefined) this.#listeners.delete(listener);
      },
    });
  }
}

/** The chat runs streaming in this process, at most one per session. */
export class LiveRuns {
  readonly #runs = new Map<string, LiveRun | "claimed">();

  /** The session's live run, if any. */
  get(sessionId: string): LiveRun | undefined {
    const run = this.#runs.get(sessionId);
    return run === "claimed" ? undefined : run;
  }

  /** Reserves the session for a run about to start; refused with `ChatRunActiveError` while one is live. */
  claim(sessionId: string): void {
    if (this.#runs.has(sessionId)) throw new ChatRunActiveError(sessionId);
    this.#runs.set(sessionId, "claimed");
  }

  /** Gives a claim up (the run did not start). */
  release(sessionId: string): void {
    if (this.#runs.get(sessionId) === "claimed") this.#runs.delete(sessionId);
  }

  /** Registers the claimed session's run; `begin` starts reading `stream` (connect a listener first). */
  start(
    sessionId: string,
    turnFromSeq: number,
    stream: AsyncIterable<AgentStreamEvent>,
  ): { run: LiveRun; begin(): void } {
    const run = new LiveRun(sessionId, turnFromSeq);
    this.#runs.set(sessionId, run);
    const begin = () => {
      void run.pump(stream, () => {
        if (this.#runs.get(sessionId) === run) this.#runs.delete(sessionId);
      });
    };
    return { run, begin };
  }
}
