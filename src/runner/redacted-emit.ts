import { redact } from "../redaction/redact.js";
import { redactionActive } from "../redaction/secret-registry.js";
import type { AgentStreamEvent } from "./agent-stream-event.js";
import type { Emit } from "./event-channel.js";

/**
 * The stream's choke point: every event handed to the reader is redacted (see `redact`). Events
 * copied from the log are redacted already; this covers what the stream carries besides — tool
 * results and context updates as they happen, and `run-end`, whose `output` and `deps` the reader
 * gets with placeholders for secrets (`agent.run()` returns the real deps). Deltas are redacted
 * where the model stream is read (`redactStreamParts`), where a secret split across two of them
 * can still be caught.
 */
export function redactingEmit<O, D extends object>(emit: Emit<AgentStreamEvent<O, D>>): Emit<AgentStreamEvent<O, D>> {
  return (event, options) => emit(redactionActive() ? redactEvent(event) : event, options);
}

function redactEvent<O, D extends object>(event: AgentStreamEvent<O, D>): AgentStreamEvent<O, D> {
  switch (event.type) {
    case "text-delta":
    case "reasoning-delta":
    case "tool-call-delta":
      return event;
    case "run-end": {
      // The log and messages come from the log, which is redacted: not walked again.
      const { result } = event;
      const output = redact(result.output);
      const deps = redact(result.deps);
      return output === result.output && deps === result.deps
        ? event
        : { ...event, result: { ...result, output, deps } };
    }
    default:
      return redact(event);
  }
}
