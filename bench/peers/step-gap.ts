/**
 * Where a step's time goes, Nous against the floor, in one process against the mock server (in its
 * own process): per request, the round trip (fetch called → response headers), and the gap (the
 * previous response body read → the next fetch called), which is the client's own work between two
 * requests, and how much of the round trip the event loop was busy (undici's own client work, and
 * anything else the framework left queued). The gap is far less sensitive to load than run times. Usage:
 *   node --import tsx peers/step-gap.ts [runs] [nous-entry]
 */
import { startRunner } from "./in-process-runner.ts";

const [runs = "1000", entry] = process.argv.slice(2);
if (entry !== undefined) process.env.NOUS_ENTRY = entry;

interface Timing {
  roundTrip: number;
  gap: number;
  requests: number;
  gaps: number;
}
const timing: Timing = { roundTrip: 0, gap: 0, requests: 0, gaps: 0 };
let busy = 0;
let lastBodyRead = 0;
const realFetch = globalThis.fetch;
globalThis.fetch = (async (url: Parameters<typeof fetch>[0], init?: RequestInit) => {
  const sent = performance.now();
  if (lastBodyRead !== 0) {
    timing.gap += sent - lastBodyRead;
    timing.gaps++;
  }
  const elu0 = performance.eventLoopUtilization();
  const response = await realFetch(url, init);
  busy += performance.eventLoopUtilization(elu0).active;
  timing.roundTrip += performance.now() - sent;
  timing.requests++;
  for (const reader of ["text", "json"] as const) {
    const read = response[reader].bind(response) as () => Promise<unknown>;
    Object.defineProperty(response, reader, {
      value: async () => {
        const body = await read();
        lastBodyRead = performance.now();
        return body;
      },
    });
  }
  return response;
}) as typeof fetch;

const subjects = await Promise.all(["floor", "nous"].map((name) => startRunner(name, "plain")));
const reset = () => {
  busy = 0;
  Object.assign(timing, { roundTrip: 0, gap: 0, requests: 0, gaps: 0 });
};
// A few hundred runs before timing: both sides' medians are still falling after a hundred.
for (const subject of subjects) for (let i = 0; i < 400; i++) await subject.one();
for (let round = 0; round < 2; round++) {
  for (const [index, subject] of subjects.entries()) {
    reset();
    lastBodyRead = 0;
    const started = performance.now();
    for (let i = 0; i < Number(runs); i++) {
      lastBodyRead = 0;
      await subject.one();
    }
    const perRun = (performance.now() - started) / Number(runs);
    const us = (ms: number) => (ms * 1000).toFixed(0).padStart(5);
    console.log(
      `${(index === 0 ? "floor" : "nous").padEnd(6)} run ${perRun.toFixed(3)} ms  round trip ${us(timing.roundTrip / timing.requests)} µs  gap ${us(timing.gap / timing.gaps)} µs busy-in-rt ${us(busy / timing.requests)} µs`,
    );
  }
}
for (const subject of subjects) subject.stop();
process.exit(0);
