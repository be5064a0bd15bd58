/**
 * A long session loaded from SQLite and carried on, in process (no HTTP): the time from opening a
 * new `SqliteStore` on the file to the end of one more run on that session.
 *
 * Built first through real runs: Nous on `ScriptedModel` (a fresh one per run), each run TURNS
 * `add` tool turns then an answer, all on one `sessionId` in one SQLite file (synchronous FULL,
 * group commit), until the log holds at least EVENTS events. Then, SAMPLES times: close the store,
 * open a new `SqliteStore` on the same file (the page cache is warm; the process is not fresh),
 * run one more turn (`agent.run` with the session id: the run reads the whole log, folds the state,
 * projects the messages, asks the model, which answers at once, and appends), and time it. The
 * model's request is checked to carry the whole history; the run's answer is checked. The log read
 * alone (`store.read`) is timed on the same store too.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ResumeCell {
  events: number;
  samples: number;
  /** Median ms from `new SqliteStore` to the end of the run. */
  medianMs: number;
  minMs: number;
  maxMs: number;
  /** Median ms of `store.read(sessionId)` alone. */
  readMs: number;
  buildSeconds: number;
}

const TURNS = 20;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export async function sessionResume(quick: boolean, events = Number(process.env.BENCH_RESUME_EVENTS ?? 10_000)) {
  const entry = process.env.NOUS_ENTRY ?? "../../src/index.ts";
  const sibling = (name: string) => entry.replace(/index\.(ts|js)$/, `${name}.$1`);
  const { Agent, tool } = (await import(entry)) as typeof import("../../src/index.ts");
  const { ScriptedModel } = (await import(sibling("testing"))) as typeof import("../../src/testing.ts");
  const { SqliteStore } = (await import(sibling("sqlite"))) as typeof import("../../src/sqlite.ts");
  const { z } = await import("zod");
  const directory = mkdtempSync(join(tmpdir(), "nous-bench-resume-"));
  process.once("exit", () => rmSync(directory, { recursive: true, force: true }));
  const path = join(directory, "session.db");
  const sessionId = "long";
  const add = tool({
    name: "add",
    description: "Add two numbers",
    input: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }: { a: number; b: number }) => a + b,
  });
  // The same agent definition every time (a session goes on with the agent that ran it).
  const agentWith = (model: InstanceType<typeof ScriptedModel>) =>
    new Agent({ model, instructions: "You add numbers.", tools: [add], maxIterations: TURNS + 5 });
  const open = () => new SqliteStore({ path, groupCommit: true, synchronous: "full" });

  const building = performance.now();
  let store = open();
  let count = 0;
  let runs = 0;
  while (count < events) {
    const model = new ScriptedModel(
      [...Array.from({ length: TURNS }, () => ({ toolCalls: [{ name: "add", args: { a: 1, b: 2 } }] })), { text: "3" }],
      { modelId: "bench" },
    );
    const result = await agentWith(model).run(`Add 1 and 2, ${TURNS} times (${runs++}).`, { sessionId, store });
    if (result.output !== "3") throw new Error(`resume bench: build run answered ${JSON.stringify(result.output)}`);
    model.assertAllUsed();
    count = (await store.read(sessionId)).length;
  }
  const buildSeconds = (performance.now() - building) / 1000;
  const built = count;

  const samples = quick ? 7 : 21;
  const times: number[] = [];
  const reads: number[] = [];
  for (let sample = 0; sample <= samples; sample++) {
    await store.close();
    const model = new ScriptedModel([{ text: "Done." }], { modelId: "bench" });
    const agent = agentWith(model);
    const started = performance.now();
    store = open();
    const result = await agent.run("And that is all.", { sessionId, store });
    const elapsed = performance.now() - started;
    if (result.output !== "Done.") throw new Error(`resume bench: answered ${JSON.stringify(result.output)}`);
    const sent = model.requests[0]?.messages.length ?? 0;
    // Every build run: a user message, TURNS (call, result) pairs and an answer; plus this prompt.
    if (sent < runs * (2 * TURNS + 2) + 1) throw new Error(`resume bench: the request held ${sent} messages`);
    const reading = performance.now();
    const read = await store.read(sessionId);
    if (read.length <= count) throw new Error("resume bench: the run appended nothing");
    count = read.length;
    if (sample > 0) {
      // The first sample warms the code paths of a fresh store; it is not kept.
      times.push(elapsed);
      reads.push(performance.now() - reading);
    }
  }
  await store.close();
  return {
    events: built,
    samples,
    medianMs: median(times),
    minMs: Math.min(...times),
    maxMs: Math.max(...times),
    readMs: median(reads),
    buildSeconds,
  } satisfies ResumeCell;
}
