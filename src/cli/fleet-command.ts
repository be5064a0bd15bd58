import type { RunQueuePort } from "../index.js";
import { type AnyAgent, loadAgentSource } from "./agent-loader.js";
import { type CliIo, EXIT, integerOption, paint, parseCommand, printJson, UsageError } from "./cli-support.js";
import { openStore, storeLocation } from "./open-store.js";
import { readDepsFile } from "./run-command.js";

export const WORKER_HELP = `Usage: nous worker --agent file [options]

Runs the runs queued for the agent (agent.submit, nous submit), several at a time, until
SIGTERM or Ctrl-C: then it takes nothing new, lets the runs going finish (drain) and
exits 0; a second signal exits at once (another worker takes those runs over). A run
whose worker died is taken over by another worker once its lease lapses and resumed
from its log; a call in doubt (started, no result, tool not idempotent) is not run
again: the run stops and waits for a decision (nous sessions resume).

  --agent file          the agent file; its \`deps({ sessionId, tenant })\` export gives
                        each run its live deps; an agent with a \`queue\` option uses it
  --concurrency n       runs at once in this worker (default 4)
  --queue name          the queue, when the agent has none (default: the agent's name)
  --redis url           Redis, when the agent has no queue (default: NOUS_REDIS_URL,
                        else redis://127.0.0.1:6379)
  --store path|url      the session store, when the agent has no queue
  --export name         the agent file's export to use (default: default)
  --json                one JSON line per run started or ended on stdout
  -h, --help            this help

Exit codes: 0 drained and stopped, 2 usage error, 7 bullmq/ioredis to install.
`;

export const SUBMIT_HELP = `Usage: nous submit --agent file "prompt" [options]

Queues a run for the workers (nous worker) and prints its session id at once.

  --agent file          the agent file (its queue, or --queue/--redis/--store)
  --session id          the session to continue or start (default: a new id)
  --tenant name         whose run it is: per-tenant concurrency and budgets
  --deps file.json      initial state deps (JSON, no secrets)
  --wait                wait for the run to end and print its answer
  --follow              print the session's events as workers commit them, then the answer
  --queue, --redis, --store, --export   as for nous worker
  --json                print one JSON object
  -h, --help            this help

Exit codes: 0 queued (or, with --wait/--follow, completed), 1 refused (queue full,
tenant budget spent), the run failed or stopped on a call in doubt (nous sessions
resume decides it), 2 usage error, 3 awaiting approval, 7 bullmq/ioredis to install.
`;

const FLEET_OPTIONS = {
  agent: { type: "string" },
  export: { type: "string" },
  queue: { type: "string" },
  redis: { type: "string" },
  store: { type: "string" },
  json: { type: "boolean" },
} as const;

interface FleetValues {
  agent?: string;
  export?: string;
  queue?: string;
  redis?: string;
  store?: string;
}

/** The agent file's agent, and the queue it runs on (its own, or one built from the flags). */
async function loadFleet(values: FleetValues) {
  if (values.agent === undefined) throw new UsageError("--agent file is required");
  const fleet = await import("../fleet.js");
  const source = await loadAgentSource(values.agent, values.export);
  const agent: AnyAgent = await source.build({});
  const own = agent.queue as (RunQueuePort & Partial<InstanceType<typeof fleet.RunQueue>>) | undefined;
  if (own !== undefined) {
    // The agent file opened its queue's connections: close them, or a usage error never exits.
    const refuse = async (message: string) => {
      await own.close?.().catch(() => undefined);
      await own.store.close().catch(() => undefined);
      return new UsageError(message);
    };
    if (values.queue !== undefined || values.redis !== undefined || values.store !== undefined) {
      throw await refuse("the agent sets its own queue: --queue, --redis and --store do not apply");
    }
    if (typeof own.prepareWorkers !== "function") throw await refuse("the agent's queue is not a nous/fleet runQueue");
    return { fleet, source, agent, queue: own as InstanceType<typeof fleet.RunQueue> };
  }
  const store = await openStore(storeLocation(values.store));
  const queue = fleet.runQueue({ store, name: values.queue ?? agent.name ?? "nous-runs", redis: values.redis });
  return { fleet, source, agent, queue };
}

/** `nous worker`: runs queued runs until a signal, then drains. */
export async function workerCommand(io: CliIo, args: readonly string[]): Promise<number> {
  const { values } = parseCommand(args, { ...FLEET_OPTIONS, concurrency: { type: "string" } });
  if (values.help) {
    io.out(WORKER_HELP);
    return EXIT.ok;
  }
  const concurrency = integerOption("concurrency", values.concurrency, 1) ?? 4;
  const { fleet, source, agent, queue } = await loadFleet(values);
  const colors = paint(io);
  const closeAll = async () => {
    await queue.close().catch(() => undefined);
    await queue.store.close().catch(() => undefined);
  };
  const worker = await fleet
    .runWorker({
      queue,
      agent,
      concurrency,
      deps: (context) => source.liveDeps(context),
      onRun: (event) => {
        if (values.json) {
          // An error prints its message and, when it has one, its stable code (lease_lost, …).
          const failure = event.type === "error" ? (event.error as { message?: unknown; code?: unknown }) : undefined;
          const error =
            failure === undefined ? {} : { error: String(failure?.message ?? failure), code: failure?.code };
          io.out(`${JSON.stringify({ ...event, ...error, pid: process.pid })}\n`);
        } else if (event.type === "started") {
          io.err(`▶ ${event.sessionId} (tenant ${event.tenant}, queued ${event.waitedMs} ms)\n`);
        } else if (event.type === "ended") {
          io.err(
            `${event.outcome.type === "completed" ? colors.green("✓") : colors.yellow("■")} ${event.sessionId} ${event.outcome.type}\n`,
          );
        } else if (event.type === "error") {
          io.err(
            `${colors.red("!")} ${event.sessionId ?? ""} ${String((event.error as Error)?.message ?? event.error)}\n`,
          );
        }
      },
    })
    .catch(async (error: unknown) => {
      await closeAll();
      throw error;
    });
  if (values.json) io.out(`${JSON.stringify({ type: "ready", pid: process.pid, queue: queue.name, concurrency })}\n`);
  io.err(
    `Worker ${process.pid} on queue "${queue.name}", ${concurrency} at a time; SIGTERM or Ctrl-C drains and stops\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.once("SIGINT", () => process.exit(EXIT.interrupted));
      process.once("SIGTERM", () => process.exit(EXIT.interrupted));
      io.err(`Draining: ${worker.running} run(s) going, taking nothing new…\n`);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await worker.close();
  await closeAll();
  io.err("Drained.\n");
  return EXIT.ok;
}

/** `nous submit`: queues a run; with --wait or --follow, waits for its end. */
export async function submitCommand(io: CliIo, args: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommand(args, {
    ...FLEET_OPTIONS,
    session: { type: "string" },
    tenant: { type: "string" },
    deps: { type: "string" },
    wait: { type: "boolean" },
    follow: { type: "boolean" },
  });
  if (values.help) {
    io.out(SUBMIT_HELP);
    return EXIT.ok;
  }
  const prompt = positionals.join(" ").trim();
  if (prompt === "") throw new UsageError('the prompt is required: nous submit --agent file "prompt"');
  const deps = await readDepsFile(values.deps);
  const { agent, queue } = await loadFleet(values);
  try {
    const submission = await agent.submit(prompt, { sessionId: values.session, tenant: values.tenant, deps, queue });
    if (!values.wait && !values.follow) {
      if (values.json) printJson(io, submission);
      else io.out(`${submission.sessionId}\n`);
      io.err(`Queued run ${submission.runId} on "${submission.queue}" (tenant ${submission.tenant})\n`);
      return EXIT.ok;
    }
    if (values.follow) {
      for await (const event of agent.follow(submission.sessionId, { queue })) {
        if (!values.json) io.err(`  ${event.seq} ${event.type}\n`);
      }
    }
    const result = await agent.result(submission.sessionId, { queue });
    if (values.json) printJson(io, { ...submission, status: "completed", output: result.output, usage: result.usage });
    else io.out(`${typeof result.output === "string" ? result.output : JSON.stringify(result.output)}\n`);
    return EXIT.ok;
  } finally {
    await queue.close();
    await queue.store.close();
  }
}
