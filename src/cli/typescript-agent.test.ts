/**
 * TypeScript agent files the way users hit them: the packed tarball installed into a fresh project,
 * `npx nous run ./agent.ts "…"` run there — with tsx installed in that project (Node 20, the
 * machine's, and Node 24), and without it (one line naming the install command, exit code 2).
 */
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUNTIMES, runtimeBinary } from "../store/test-support/runtimes.js";
import { type PackedProject, packedProject, writeProjectFiles } from "../test-support/packed-project.js";
import { tsxMissingMessage } from "./agent-loader.js";

/** Uses syntax Node's own type stripping refuses (an enum), so only tsx can load it. */
const AGENT_TS = `import { Agent, ContextUpdate, OfflineModel, tool, type Model, type RunContext } from "nous";

enum Channel {
  Sms = "sms",
  Email = "email",
}
type Deps = { todos: string[] };

const addTodo = tool({
  name: "add_todo",
  description: "Add an item to the user's todo list",
  input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  execute: (args, context: RunContext<Deps>) => {
    const { text } = args as { text: string };
    return {
      result: { added: (context.deps.todos ?? []).length + 1, channel: Channel.Sms },
      update: ContextUpdate.new<Deps>().append("todos", text),
    };
  },
});

export default ({ model }: { model?: Model | string } = {}) =>
  new Agent<Deps>({ name: "todo-ts", model: model ?? new OfflineModel(), tools: [addTodo] });
`;

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `npx nous …` in the project, with `nodeFolder` first on PATH (so npx and nous run on that Node). */
function npxNous(project: PackedProject, args: readonly string[], nodeFolder?: string): Promise<Ran> {
  const path = [nodeFolder, process.env.PATH].filter(Boolean).join(":");
  const env: Record<string, string | undefined> = { ...process.env, PATH: path, NOUS_MODEL: "", NOUS_STORE: "" };
  for (const key of Object.keys(env)) if (key.startsWith("VITEST") || key === "NODE_OPTIONS") delete env[key];
  return new Promise((done) => {
    execFile(
      "npx",
      ["--no-install", "nous", ...args],
      { cwd: project.dir, env, timeout: 120_000 },
      (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const PROMPT = "Remind me to buy milk";
const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** Runs `use` with a store URL on a PostgreSQL schema of its own, dropped afterwards. */
async function withSchema<T>(use: (store: string) => Promise<T>): Promise<T> {
  const store = new URL(DATABASE_URL);
  const schema = `nous_ts_${process.pid}_${Date.now().toString(36)}`;
  store.searchParams.set("schema", schema);
  try {
    return await use(store.href);
  } finally {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
}

function expectTodoAdded(result: Ran): void {
  expect(result.stderr).not.toContain("needs tsx");
  expect(result.code, result.stderr).toBe(0);
  const outcome = JSON.parse(result.stdout) as { status: string; output: string; deps: { todos: string[] } };
  expect(outcome).toMatchObject({ status: "completed", deps: { todos: ["buy milk"] } });
  expect(outcome.output).toBe('Added "buy milk" to your todo list (item 1).');
}

describe("TypeScript agent files in a user's project (packed tarball)", () => {
  let withTsx: PackedProject;
  let withoutTsx: PackedProject;

  beforeAll(() => {
    // The runs use a PostgreSQL store, pg being plain JavaScript: better-sqlite3 compiles from source
    // where no prebuilt binary can be fetched (minutes on 2 cores), and the agent loads before any store opens.
    withTsx = packedProject({ with: ["tsx@4.23.15", "pg@8.23.1"] });
    withoutTsx = packedProject();
    for (const project of [withTsx, withoutTsx]) writeProjectFiles(project.dir, { "agent.ts": AGENT_TS });
  }, 900_000);

  afterAll(() => {
    withTsx?.remove();
    withoutTsx?.remove();
  }, 120_000);

  it("npx nous run ./agent.ts loads through the project's tsx on Node 20", async () => {
    expect(process.versions.node.split(".")[0]).toBe("20");
    expectTodoAdded(
      await withSchema((store) => npxNous(withTsx, ["run", "./agent.ts", PROMPT, "--json", "--store", store])),
    );
  });

  const node24 = runtimeBinary(RUNTIMES.node24);
  it.runIf(node24 !== undefined)("npx nous run ./agent.ts loads through the project's tsx on Node 24", async () => {
    const folder = dirname(node24 as string);
    const version = await new Promise<string>((done) =>
      execFile(join(folder, "node"), ["--version"], (_error, stdout) => done(stdout.trim())),
    );
    expect(version).toMatch(/^v24\./);
    expectTodoAdded(
      await withSchema((store) => npxNous(withTsx, ["run", "./agent.ts", PROMPT, "--json", "--store", store], folder)),
    );
  });

  it("without tsx in the project: one line saying to install it, exit code 2", async () => {
    const result = await npxNous(withoutTsx, ["run", "./agent.ts", PROMPT]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(`nous: ${tsxMissingMessage("./agent.ts")}\n`);
    expect(result.stderr).toContain("npm install --save-dev tsx");
  });
});
