// Helpers of bench/fleet.bench.mjs: the mock model server and `nous worker` child processes,
// what they print, their memory, and percentiles.
import { fork, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";

export const root = join(import.meta.dirname, "..");

/** bench/peers/mock-server.ts in its own process (through tsx): resolves to its base URL. */
export function startMockServer() {
  const child = fork(join(root, "bench", "peers", "mock-server.ts"), [], {
    cwd: root,
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (message) => resolve({ baseURL: message.baseURL, stop: () => child.kill() }));
    child.once("exit", (code) => reject(new Error(`mock server exited (${code})`)));
  });
}

export async function mockStats(baseURL) {
  return (await fetch(`${baseURL}/stats`)).json();
}

/** A kB figure of /proc/<pid>/status (VmRSS, VmHWM), or undefined once the process is gone. */
export function procStatusKb(pid, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One `nous worker --json` child. Every JSON line it prints goes to `onEvent(event, receivedAtMs)`;
 * its VmRSS is sampled every 500 ms (`maxRssKb`).
 */
export class WorkerProcess {
  constructor({ agentFile, concurrency, env, onEvent }) {
    this.spawnedAt = Date.now();
    this.child = spawn(
      process.execPath,
      [
        join(root, "dist", "cli", "main.js"),
        "worker",
        "--agent",
        agentFile,
        "--concurrency",
        String(concurrency),
        "--json",
      ],
      { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
    );
    this.pid = this.child.pid;
    this.maxRssKb = 0;
    this.stderr = "";
    this.exited = new Promise((resolve) => this.child.once("exit", (code, signal) => resolve({ code, signal })));
    this.child.stderr.on("data", (chunk) => {
      this.stderr = (this.stderr + chunk).slice(-4_000);
    });
    this.ready = new Promise((resolve, reject) => {
      createInterface({ input: this.child.stdout }).on("line", (line) => {
        const at = Date.now();
        let event;
        try {
          event = JSON.parse(line);
        } catch {
          return;
        }
        if (event.type === "ready") {
          this.readyAt = at;
          resolve(this);
        }
        onEvent(event, at, this);
      });
      this.exited.then(({ code, signal }) =>
        reject(new Error(`worker ${this.pid} exited (${code ?? signal}) before ready: ${this.stderr}`)),
      );
    });
    this.ready.catch(() => undefined);
    this.sampler = setInterval(() => {
      const rss = procStatusKb(this.pid, "VmRSS");
      if (rss !== undefined) this.maxRssKb = Math.max(this.maxRssKb, rss);
    }, 500);
    this.exited.then(() => clearInterval(this.sampler));
  }

  /** Peak RSS so far (the kernel's VmHWM, or the sampled maximum once it exited), in MB. */
  peakMb() {
    const hwm = procStatusKb(this.pid, "VmHWM");
    return Math.max(hwm ?? 0, this.maxRssKb) / 1024;
  }

  /** SIGTERM: the worker drains (finishes its runs) and exits. */
  async stop() {
    this.child.kill("SIGTERM");
    const timeout = sleep(30_000).then(() => this.child.kill("SIGKILL"));
    await Promise.race([this.exited, timeout]);
    return this.exited;
  }

  kill9() {
    this.child.kill("SIGKILL");
    return this.exited;
  }
}

/** Resolves once `done()` holds, checking every 20 ms; rejects after `timeoutMs` with `what()`. */
export async function until(done, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what()}`);
    await sleep(20);
  }
}

/** The q-quantile (0–1) of the numbers, nearest rank. */
export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export const fmt = (value, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : "—";

/** Runs `task(i)` for i < count, `inFlight` at a time. */
export async function pool(count, inFlight, task) {
  let next = 0;
  const lane = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, lane));
}

/** Calls `submit(i)` for i < count at `ratePerS`, not waiting for one before the next is due. */
export async function paced(count, ratePerS, submit, shouldStop = () => false) {
  const start = performance.now();
  const pending = new Set();
  for (let i = 0; i < count && !shouldStop(); i++) {
    const due = start + (i * 1000) / ratePerS;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const promise = submit(i).finally(() => pending.delete(promise));
    pending.add(promise);
  }
  await Promise.all(pending);
}
