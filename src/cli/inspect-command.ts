import type { AgentIdentity, ApprovalTool } from "../index.js";
import { NousError, type SessionStore } from "../index.js";
import { chosenModel, loadAgentSource } from "./agent-loader.js";
import { type CliIo, EXIT, integerOption, paint, parseCommand, UsageError } from "./cli-support.js";
import { describeStore, openStore, storeLocation } from "./open-store.js";

export const INSPECT_HELP = `Usage: nous inspect [options]

Serves the session inspector (a web page and its JSON API) on the session store, until Ctrl-C.
Every request needs a token (generated unless given), printed in the URL.

Options:
  --port n              the port (default 4317; 0 picks a free one)
  --host h              the address to bind (default 127.0.0.1)
  --token t             the access token, at least 32 characters (default: a generated one)
  --no-token            serve without a token (loopback hosts only: any local user can approve)
  --store path|url      SQLite file or postgres:// URL (default: NOUS_STORE, else .nous/sessions.db)
  --agent file          resume approved sessions with this agent file (default: the built-in
                        assistant); a decision for a session another agent ran is refused
  --export name         the agent file's export (default: default)
  --model provider:model  the model of resumed runs (default: NOUS_MODEL, else the offline model)
  --json                print {"url", "token", "store"} as one JSON line once listening
  -h, --help            this help

Exit codes: 0 stopped with Ctrl-C (or SIGTERM), 1 failed to start, 2 usage error.
`;

const OPTIONS = {
  port: { type: "string" },
  host: { type: "string" },
  token: { type: "string" },
  store: { type: "string" },
  agent: { type: "string" },
  "no-token": { type: "boolean" },
  export: { type: "string" },
  model: { type: "string" },
  json: { type: "boolean" },
} as const;

type StartInspector = (options: {
  store: SessionStore;
  host?: string;
  port?: number;
  token?: string | false;
  resume?: (sessionId: string) => Promise<void>;
  agent?: { toolNamed(name: string): ApprovalTool | undefined; readonly identity?: AgentIdentity };
}) => Promise<{ url: string; token: string | undefined; close(): Promise<void> }>;

async function loadInspector(): Promise<StartInspector> {
  try {
    const module = (await import("../inspector/server.js")) as { startInspector?: StartInspector };
    if (typeof module.startInspector !== "function") throw new Error("it does not export startInspector");
    return module.startInspector;
  } catch (error) {
    if (NousError.isInstance(error)) throw error; // OptionalPeerMissingError: hono is not installed
    throw new Error(
      `The web inspector (src/inspector/server.js) could not be loaded: ${error instanceof Error ? error.message : error}`,
    );
  }
}

/** `nous inspect`: starts the web inspector and waits for Ctrl-C. */
export async function inspectCommand(io: CliIo, args: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommand(args, OPTIONS);
  if (values.help) {
    io.out(INSPECT_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 0) throw new UsageError("nous inspect takes no arguments");
  const port = integerOption("port", values.port, 0);
  if (values["no-token"] && values.token !== undefined)
    throw new UsageError("--no-token and --token exclude each other");
  const token = values["no-token"] ? false : values.token;
  if (port !== undefined && port > 65535) throw new UsageError("--port must be at most 65535");
  const source = await loadAgentSource(values.agent, values.export);
  const startInspector = await loadInspector();
  const location = storeLocation(values.store);
  const store = await openStore(location);
  const agent = await source.build({ model: chosenModel(values.model) });
  const resume = async (sessionId: string) => {
    try {
      await agent.resume(sessionId, { store, deps: await source.liveDeps() });
    } catch (error) {
      // Paused again for another approval: that is a state the inspector shows, not a failure.
      if (NousError.isInstance(error) && error.code === "approval_pending") return;
      throw error;
    }
  };
  let inspector: Awaited<ReturnType<StartInspector>>;
  try {
    inspector = await startInspector({ store, host: values.host, port, token, resume, agent });
  } catch (error) {
    await store.close();
    if (NousError.isInstance(error) && error.code === "invalid_definition") throw new UsageError(error.message);
    throw error;
  }
  const colors = paint(io);
  if (values.json)
    io.out(
      `${JSON.stringify({ url: inspector.url, token: inspector.token ?? null, store: describeStore(location) })}\n`,
    );
  else {
    io.out(`Inspector: ${colors.bold(inspector.url)}\n`);
    io.err(colors.dim(`Store ${describeStore(location)} · resumes with ${source.label} · Ctrl-C to stop\n`));
  }
  await new Promise<void>((stop) => {
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  io.err("\nStopping the inspector…\n");
  await inspector.close();
  await store.close();
  return EXIT.ok;
}
