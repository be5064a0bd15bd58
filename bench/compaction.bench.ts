/**
 * The cost of compaction in the projections: a 10,000-event session (turns of a prompt, a tool
 * call, its result of a few hundred bytes, bookkeeping and an answer) with a summarizing
 * compaction every 1,000 events and a dropped-results one between them, against the same session
 * without compactions: `projectMessages` over the log, `SessionLog.fromEvents` (what a continued or
 * resumed run does) and the window of the last request (what `rebuildRequest` projects). Prints the
 * median CPU time of 15 runs after 3 warm-ups, in ms.
 * Run: npx tsx bench/compaction.bench.ts [events]
 */
import type { SessionEvent } from "../src/session/events.js";
import { projectMessages } from "../src/session/projections.js";
import { windowMessages } from "../src/session/recorded-request.js";
import { SessionLog } from "../src/session/session-log.js";

const count = Number(process.argv[2] ?? 10_000);
const at = new Date().toISOString();
const result = { text: "a typical tool result of a few hundred bytes ".repeat(6), ok: true };

function session(compact: boolean): SessionEvent[] {
  const events: SessionEvent[] = [];
  const push = (type: string, data: unknown) => events.push({ seq: events.length + 1, at, type, data } as SessionEvent);
  let turn = 0;
  let summarizedFrom = 1;
  while (events.length < count) {
    turn += 1;
    const id = `call_${turn}`;
    push("user_message", { content: `turn ${turn}` });
    push("model_request", { model: "m", iteration: 0, messageCount: 0, window: [[1, events.length]] });
    push("model_response", { model: "m", usage: { inputTokens: 100 }, finishReason: "tool-calls", latencyMs: 1 });
    push("assistant_message", { content: [{ type: "tool-call", toolCallId: id, toolName: "lookup", args: { turn } }] });
    push("tool_call", { toolCallId: id, toolName: "lookup", args: { turn } });
    push("tool_result", { toolCallId: id, toolName: "lookup", result, isError: false });
    push("assistant_message", { content: [{ type: "text", text: `done ${turn}` }] });
    if (!compact) continue;
    if (turn % 70 === 35) {
      const dropped = Array.from({ length: 20 }, (_, index) => `call_${turn - 30 + index}`);
      push("compaction", {
        strategy: "drop_tool_results",
        dropped,
        placeholder: "[dropped]",
        tokensBefore: 9,
        tokensAfter: 3,
      });
    }
    if (turn % 140 === 0) {
      const to = events.length - 14;
      push("compaction", {
        strategy: "summarize",
        summary: `summary up to ${to}`,
        replaces: [summarizedFrom, to],
        requestSeq: to,
        tokensBefore: 9000,
        tokensAfter: 900,
      });
      summarizedFrom = 1;
    }
  }
  return events.slice(0, count);
}

function median(run: () => unknown): number {
  const times: number[] = [];
  for (let round = 0; round < 18; round++) {
    const started = process.cpuUsage();
    run();
    const used = process.cpuUsage(started);
    if (round >= 3) times.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

const rows: string[] = ["| case | no compaction (ms) | with compactions (ms) |", "|---|---:|---:|"];
const plain = session(false);
const compacted = session(true);
const compactions = compacted.filter((event) => event.type === "compaction").length;
const cases: [string, (events: SessionEvent[]) => unknown][] = [
  ["projectMessages(log)", (events) => projectMessages(events)],
  ["SessionLog.fromEvents(log).messages", (events) => SessionLog.fromEvents(events).messages],
  ["windowMessages (last request)", (events) => windowMessages(events, [[1, events.length]])],
];
for (const [name, run] of cases) {
  rows.push(`| ${name} | ${median(() => run(plain)).toFixed(2)} | ${median(() => run(compacted)).toFixed(2)} |`);
}
console.log(
  `${count} events; ${compactions} compactions; messages seen: ${projectMessages(plain).length} raw, ${projectMessages(compacted).length} compacted\n`,
);
console.log(rows.join("\n"));
