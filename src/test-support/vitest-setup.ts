// Every test: each event an AgentContext appends must match schema/session-log.json. A violation
// throws where it happens and also fails the test afterwards, in case the run caught the throw.
import { afterEach } from "vitest";
import { setEventCheck } from "../session/event-check.js";
import { sessionEventCheck } from "./log-schema-check.js";

const check = sessionEventCheck();
const violations: string[] = [];

setEventCheck((event) => {
  try {
    check(event);
  } catch (error) {
    violations.push((error as Error).message);
    throw error;
  }
});

afterEach(() => {
  if (violations.length === 0) return;
  const found = violations.splice(0);
  throw new Error(`${found.length} session event(s) did not match the log schema:\n${found.join("\n")}`);
});
