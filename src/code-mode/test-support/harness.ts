import { existsSync, mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { Agent } from "../../agent/agent.js";
import { ContextUpdate } from "../../context/context-update.js";
import { isPlainObject } from "../../context/plain-object.js";
import { ScriptedModel } from "../../models/scripted-model.js";
import { tool } from "../../tools/tool.js";
import { codeMode } from "../code-mode.js";
import type { CodeLimits } from "../limits.js";

export const secret = "nous-secret-4c1f9e";

/** Host-side canaries: a file that must never be created, a server that must get no request, a global that must stay unset. */
export interface HostCanaries {
  readonly file: string;
  readonly url: string;
  requests: number;
  /** Arguments the spy tool received that were not plain JSON data. */
  readonly impure: string[];
  close(): Promise<void>;
}

const prototypes = [Object.prototype, Array.prototype, Function.prototype, Promise.prototype, String.prototype];
const snapshot = () => prototypes.map((prototype) => Reflect.ownKeys(prototype).map(String).sort().join(","));
let before: string[] = [];

export async function setUpCanaries(): Promise<HostCanaries> {
  const dir = mkdtempSync(join(tmpdir(), "nous-code-mode-"));
  let server: Server | undefined;
  const canaries = {
    file: join(dir, "pwned.txt"),
    url: "",
    requests: 0,
    impure: [] as string[],
    /** Stops the canary server and removes the planted secrets. */
    close: () =>
      new Promise<void>((resolve) => {
        delete process.env.NOUS_SECRET;
        delete (globalThis as Record<string, unknown>).nousSecret;
        if (server) server.close(() => resolve());
        else resolve();
      }),
  };
  server = createServer((request, response) => {
    canaries.requests += 1;
    response.end("hit");
    request.resume();
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  canaries.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pwned`;
  process.env.NOUS_SECRET = secret;
  (globalThis as Record<string, unknown>).nousSecret = secret;
  before = snapshot();
  return canaries;
}

/** Asserts no canary was tripped. */
export function checkCanaries(canaries: HostCanaries, label: string): void {
  expect(existsSync(canaries.file), `${label}: canary file created`).toBe(false);
  expect(canaries.requests, `${label}: canary server hit`).toBe(0);
  expect((globalThis as Record<string, unknown>).__nousCanary, `${label}: host global set`).toBeUndefined();
  expect(snapshot(), `${label}: a host prototype changed`).toEqual(before);
  expect(({} as Record<string, unknown>).polluted, label).toBeUndefined();
  expect(JSON.stringify({ a: [1] }), label).toBe('{"a":[1]}');
  expect(canaries.impure, `${label}: a tool received non-plain data`).toEqual([]);
}

/** Where `value` is not plain JSON data (own enumerable data properties, plain prototypes, finite numbers). */
export function impurity(value: unknown, path = "$"): string | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return undefined;
  if (typeof value === "number") return Number.isFinite(value) ? undefined : path;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return path;
    for (let index = 0; index < value.length; index++) {
      if (!(index in value)) return `${path}[${index}]`;
      const found = impurity(value[index], `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return path;
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (typeof key !== "string" || !descriptor || !("value" in descriptor)) return `${path}.${String(key)}`;
    const found = impurity(descriptor.value, `${path}.${key}`);
    if (found) return found;
  }
  return undefined;
}

/** An agent whose model runs `code` with run_code once, with the spy and leaky tools allowed. */
export function hostileAgent(canaries: HostCanaries, code: string, limits: CodeLimits) {
  const spy = tool({
    name: "spy",
    description: "Records what it receives",
    input: { description: "anything" },
    execute: (args: unknown) => {
      const found = impurity(args);
      if (found !== undefined) canaries.impure.push(found);
      if (isPlainObject(args) && (args as { fail?: unknown }).fail === true) throw new Error("spy failed on purpose");
      let update = ContextUpdate.new().set("spied", args);
      if (isPlainObject(args)) update = update.merge("merged", args).merge("merged", args);
      return { result: { received: args }, update };
    },
  });
  const leaky = tool({
    name: "leaky",
    description: "Returns host values that are not data",
    input: { description: "anything" },
    execute: () => ({ fn: () => process, sym: Symbol("s"), when: new Date(0), ok: 1 }),
  });
  const model = new ScriptedModel([{ toolCalls: [{ id: "p", name: "run_code", args: { code } }] }, { text: "done" }]);
  const agent = new Agent({ model, tools: [spy, leaky, codeMode({ tools: [spy, leaky], limits })] });
  return { agent, model };
}

/** Runs `items` through `task`, `width` at a time. */
export async function inBatches<T, R>(
  items: readonly T[],
  width: number,
  task: (item: T, index: number) => Promise<R>,
) {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await task(items[index] as T, index);
      }
    }),
  );
  return results;
}
