import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activeSandboxes } from "./sandbox.js";
import { bombCorpus, bombLimits } from "./test-support/bomb-corpus.js";
import { escapeCorpus, prelude } from "./test-support/escape-corpus.js";
import {
  checkCanaries,
  type HostCanaries,
  hostileAgent,
  inBatches,
  secret,
  setUpCanaries,
} from "./test-support/harness.js";

const runs = 1000;
const mb = (bytes: number) => Math.round(bytes / 1048576);

let canaries: HostCanaries;
beforeAll(async () => {
  canaries = await setUpCanaries();
});
afterAll(() => canaries.close());

describe("the host over many hostile runs", () => {
  it(`stays healthy over ${runs} runs mixing the escape and bomb corpora`, async () => {
    const started = performance.now();
    let baseline: NodeJS.MemoryUsage | undefined;
    let peakRss = 0;
    const limitsSeen = new Map<string, number>();
    await inBatches(
      Array.from({ length: runs }, (_, index) => index),
      4,
      async (index) => {
        const isBomb = index % 3 === 0;
        const bomb = bombCorpus[(index / 3) % bombCorpus.length];
        const code = isBomb && bomb ? bomb.code : prelude(canaries) + escapeCorpus[index % escapeCorpus.length];
        const { agent, model } = hostileAgent(
          canaries,
          code,
          isBomb ? bombLimits : { timeMs: 1000, memoryBytes: 16 << 20 },
        );
        const result = await agent.run("go");
        expect(result.output).toBe("done");
        const message = model.requests[1]?.messages.at(-1) as { result: unknown; isError: boolean };
        if (isBomb && bomb) {
          const limit =
            /Code limit \\?"(\w+)\\?" exceeded/.exec(
              typeof message.result === "string" ? message.result : JSON.stringify(message.result),
            )?.[1] ?? "none";
          // under load any bomb may reach its wall time first; the bomb corpus test checks the exact limit
          expect([...bomb.limits, "time"], `run ${index}: ${bomb.name}`).toContain(limit);
          limitsSeen.set(limit, (limitsSeen.get(limit) ?? 0) + 1);
        } else {
          expect(JSON.stringify(result.log)).not.toContain(secret);
        }
        checkCanaries(canaries, `run ${index}`);
        if (index === 100) baseline = process.memoryUsage();
        peakRss = Math.max(peakRss, process.memoryUsage().rss);
      },
    );
    const end = process.memoryUsage();
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `${runs} hostile runs in ${seconds.toFixed(1)} s; limits hit: ${JSON.stringify(Object.fromEntries(limitsSeen))}; ` +
        `heap ${mb(baseline?.heapUsed ?? 0)} → ${mb(end.heapUsed)} MiB, rss ${mb(baseline?.rss ?? 0)} → ${mb(end.rss)} MiB (peak ${mb(peakRss)} MiB)`,
    );
    expect(activeSandboxes()).toBe(0);
    expect(end.heapUsed - (baseline?.heapUsed ?? 0)).toBeLessThan(150 * 1048576);
    expect(end.rss - (baseline?.rss ?? 0)).toBeLessThan(400 * 1048576);
    expect(peakRss).toBeLessThan(2048 * 1048576);
  }, 600_000);
});
