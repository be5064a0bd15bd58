import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { escapeCorpus, prelude } from "./test-support/escape-corpus.js";
import {
  checkCanaries,
  type HostCanaries,
  hostileAgent,
  inBatches,
  secret,
  setUpCanaries,
} from "./test-support/harness.js";

let canaries: HostCanaries;
beforeAll(async () => {
  canaries = await setUpCanaries();
});
afterAll(() => canaries.close());

describe("the escape corpus", () => {
  it(`has at least 100 hostile programs (${escapeCorpus.length})`, () => {
    expect(escapeCorpus.length).toBeGreaterThanOrEqual(100);
  });

  it("reaches no host object, file, network, process or secret", async () => {
    const started = performance.now();
    const outcomes = await inBatches(escapeCorpus, 4, async (body, index) => {
      const { agent, model } = hostileAgent(canaries, prelude(canaries) + body, {
        timeMs: 2000,
        memoryBytes: 32 << 20,
      });
      const result = await agent.run("go");
      expect(result.output, `program ${index}`).toBe("done");
      expect(JSON.stringify(result.log), `program ${index} leaked the secret`).not.toContain(secret);
      checkCanaries(canaries, `program ${index}: ${body.slice(0, 80)}`);
      return (model.requests[1]?.messages.at(-1) as { result: unknown; isError: boolean }) ?? null;
    });
    if (process.env.NOUS_PRINT_CORPUS) {
      for (const [index, outcome] of outcomes.entries()) {
        console.log(index, escapeCorpus[index]?.slice(0, 60), JSON.stringify(outcome).slice(0, 300));
      }
    }
    console.log(`escape corpus: ${escapeCorpus.length} programs in ${Math.round(performance.now() - started)} ms`);
  }, 120_000);
});
