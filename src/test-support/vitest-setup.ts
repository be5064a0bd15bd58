// Every test: each event an AgentContext appends must match schema/session-log.json. A violation
// throws where it happens and also fails the test afterwards, in case the run caught the throw.
// NOUS_EVENT_CHECK_STATS=1 prints, per test file, how many events were checked and the time it took.
import { afterAll, afterEach, expect } from "vitest";
import { setEventCheck } from "../session/event-check.js";
import { sessionEventCheck } from "./log-schema-check.js";

const check = sessionEventCheck();
const violations: string[] = [];
const stats = process.env.NOUS_EVENT_CHECK_STATS === "1" ? { events: 0, ms: 0 } : undefined;

setEventCheck((event) => {
  const started = stats === undefined ? 0 : performance.now();
  try {
    check(event);
  } catch (error) {
    violations.push((error as Error).message);
    throw error;
  } finally {
    if (stats !== undefined) {
      stats.events += 1;
      stats.ms += performance.now() - started;
    }
  }
});

afterEach(() => {
  if (violations.length === 0) return;
  const found = violations.splice(0);
  throw new Error(`${found.length} session event(s) did not match the log schema:\n${found.join("\n")}`);
});

if (stats !== undefined) {
  afterAll(() => {
    const file = expect.getState().testPath ?? "?";
    console.log(`[event check] ${file}: ${stats.events} events in ${stats.ms.toFixed(1)} ms`);
  });
}
