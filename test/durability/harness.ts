/** Test helpers of the durability suite: spawning the crash child, checking logs, reaching PostgreSQL. */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import type { SessionEvent } from "../../src/session/events.js";
import type { SessionStore } from "../../src/store/session-store.js";
import { commandOf } from "../../src/test-support/node-script.js";

const here = dirname(fileURLToPath(import.meta.url));
const childScript = join(here, "crash-child.ts");
export const repoRoot = join(here, "..", "..");
export const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** The node arguments that run a child script (bundled once, see `commandOf`). */
const childCommand = commandOf;

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `nous-${prefix}-`));
}

/** A small seeded PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface KillPlan {
  /** SIGKILL once this many `ACK` lines were read. */
  readonly afterAcks?: number;
  /** SIGKILL this long after spawning. */
  readonly afterMs?: number;
  /** SIGKILL when the child prints `AT <window>`. */
  readonly atWindow?: boolean;
}

export interface ChildOutcome {
  readonly lines: string[];
  /** Every seq the child acknowledged (printed after the commit resolved). */
  readonly acked: number[];
  readonly killed: boolean;
  readonly code: number | null;
  /** The last non-ACK line (DONE …, INDOUBT …, AT …). */
  readonly last: string | undefined;
}

export interface SpawnOptions {
  /** The child script (default: crash-child.ts). */
  readonly script?: string;
  readonly args: readonly string[];
  readonly env?: Record<string, string>;
  readonly kill?: KillPlan;
  /** Called with the process once it prints `READY`. */
  readonly onReady?: (child: ChildProcess) => void;
}

/** A crash child that is running: its output so far, a way to wait for a line, and its exit. */
export interface RunningChild {
  readonly process: ChildProcess;
  readonly lines: readonly string[];
  /** Resolves with the first line (seen so far or later) starting with `prefix`; rejects if the child exits first. */
  waitForLine(prefix: string): Promise<string>;
  /** Writes a line to the child's stdin. */
  send(line: string): void;
  /** SIGKILLs the child (its outcome then says `killed`); nothing when it has exited. */
  kill(): void;
  readonly exit: Promise<ChildOutcome>;
}

/** Starts the crash child; `exit` resolves once it exited (by itself or killed). */
export function startChild(options: SpawnOptions): RunningChild {
  const child = spawn(process.execPath, [...childCommand(options.script ?? childScript), ...options.args], {
    cwd: repoRoot,
    env: {
      ...process.env,
      NODE_PATH: join(repoRoot, "node_modules"),
      NOUS_PAUSE_UNTIL_GO: "",
      NOUS_WAIT_LEASE: "",
      ...options.env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const acked: number[] = [];
  const waiters: { prefix: string; resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  let killed = false;
  let exited = false;
  let buffer = "";
  let stderr = "";
  const kill = () => {
    if (!killed && child.exitCode === null) {
      killed = true;
      child.kill("SIGKILL");
    }
  };
  const timer = options.kill?.afterMs !== undefined ? setTimeout(kill, options.kill.afterMs) : undefined;
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    let newline = buffer.indexOf("\n");
    while (newline !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      lines.push(line);
      if (line.startsWith("ACK ")) {
        acked.push(Number(line.slice(4)));
        if (options.kill?.afterAcks !== undefined && acked.length >= options.kill.afterAcks) kill();
      } else if (line.startsWith("AT ") && options.kill?.atWindow) kill();
      else if (line === "READY") options.onReady?.(child);
      for (const waiter of waiters.filter((each) => line.startsWith(each.prefix))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
      newline = buffer.indexOf("\n");
    }
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exit = new Promise<ChildOutcome>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      exited = true;
      if (timer) clearTimeout(timer);
      for (const waiter of waiters.splice(0)) {
        waiter.reject(new Error(`child exited before printing ${waiter.prefix}: ${lines.join(" | ")} ${stderr}`));
      }
      if (!killed && code !== 0 && code !== 2 && code !== 3) {
        reject(new Error(`child exited ${code}: ${lines.filter((l) => !l.startsWith("ACK")).join(" | ")} ${stderr}`));
        return;
      }
      resolve({ lines, acked, killed, code, last: lines.filter((line) => !line.startsWith("ACK ")).at(-1) });
    });
  });
  return {
    process: child,
    lines,
    waitForLine: (prefix) => {
      const seen = lines.find((line) => line.startsWith(prefix));
      if (seen !== undefined) return Promise.resolve(seen);
      if (exited) return Promise.reject(new Error(`child exited before printing ${prefix}`));
      return new Promise((resolve, reject) => waiters.push({ prefix, resolve, reject }));
    },
    send: (line) => child.stdin.write(`${line}\n`),
    kill,
    exit,
  };
}

/** Runs the crash child and resolves once it exited (by itself or killed). */
export function runChild(options: SpawnOptions): Promise<ChildOutcome> {
  return startChild(options).exit;
}

/**
 * Runs the crash child to its end synchronously: this process's event loop is blocked meanwhile (no
 * timer, no lease heartbeat runs), as in a stalled process. Returns its output lines.
 */
export function runChildSync(args: readonly string[], env: Record<string, string> = {}): string[] {
  const result = spawnSync(process.execPath, [...childCommand(childScript), ...args], {
    cwd: repoRoot,
    env: { ...process.env, NODE_PATH: join(repoRoot, "node_modules"), ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  if (result.status !== 0) throw new Error(`child exited ${result.status}: ${result.stdout} ${result.stderr}`);
  return result.stdout.split("\n").filter((line) => line.length > 0);
}

/** Resolves once the session reads as interrupted: its run's process is gone and its lease has expired. */
export async function untilInterrupted(store: SessionStore, sessionId: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await store.get(sessionId))?.status !== "interrupted") {
    if (Date.now() > deadline) throw new Error(`session ${sessionId} did not become interrupted in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Seqs are exactly 1 … n: no gap, no duplicate, in order. */
export function seqProblems(events: readonly SessionEvent[]): string | undefined {
  for (const [index, event] of events.entries()) {
    if (event.seq !== index + 1) return `event ${index} has seq ${event.seq}`;
  }
  return undefined;
}

export function callIdOf(event: SessionEvent): string | undefined {
  return (event.data as { toolCallId?: string } | undefined)?.toolCallId;
}

/** How many events of `type` each tool call id has. */
export function countByCall(events: readonly SessionEvent[], type: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const event of events) {
    const id = callIdOf(event);
    if (event.type === type && id) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/**
 * Whether PostgreSQL answers. When it does not: under CI that is a failure (returns an error to
 * throw), otherwise the PostgreSQL tests are skipped with one line.
 */
export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch (error) {
    if (process.env.CI) throw new Error(`PostgreSQL at ${DATABASE_URL} is unreachable under CI: ${String(error)}`);
    console.log(`skipping PostgreSQL durability tests: ${DATABASE_URL} unreachable`);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}
