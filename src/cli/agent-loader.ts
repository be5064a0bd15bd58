import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { NousError } from "../errors/nous-error.js";
import type { Agent, Model } from "../index.js";
import { BUILTIN_AGENT_NAME, createBuiltinAssistant } from "./builtin-assistant.js";
import { UsageError } from "./cli-support.js";

/** Any agent, whatever its deps and output types. */
// biome-ignore lint/suspicious/noExplicitAny: the CLI runs agents of every deps and output type
export type AnyAgent = Agent<any, any>;

/** What an agent file may export: an `Agent`, or a factory that builds one for a model (needed by `--model` and replay). */
export type AgentFactory = (options: {
  model?: Model | string;
  maxIterations?: number;
}) => AnyAgent | Promise<AnyAgent>;

/** A loaded agent source: how to build the agent, plus the module's live deps. */
export interface AgentSource {
  /** "built-in assistant" or the file path. */
  readonly label: string;
  /** Builds the agent; `model` replaces the file's own model when the file exports a factory. */
  build(options: { model?: Model | string; maxIterations?: number }): Promise<AnyAgent>;
  /** False when the file exports an agent instance, whose model cannot be replaced. */
  readonly acceptsModel: boolean;
  /** Live dependencies the module exports as `deps` (an object, or a function returning one). */
  liveDeps(): Promise<Record<string, unknown>>;
}

const loadable = new Set([".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"]);

function isAgent(value: unknown): value is AnyAgent {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as AnyAgent).stream === "function" &&
    typeof (value as AnyAgent).resume === "function"
  );
}

/** Registers tsx's ESM loader so that TypeScript agent files can be imported; a clear error without tsx. */
async function registerTypeScript(): Promise<void> {
  const candidates: string[] = [];
  try {
    candidates.push(createRequire(join(process.cwd(), "noop.js")).resolve("tsx/esm/api"));
  } catch {}
  let api: { register?: () => unknown } | undefined;
  for (const candidate of candidates) {
    api = await import(pathToFileURL(candidate).href).catch(() => undefined);
    if (api?.register) break;
  }
  if (api?.register === undefined) {
    api = await import("tsx/esm/api" as string).catch(() => undefined);
  }
  if (typeof api?.register !== "function") {
    throw new UsageError(
      "Loading a TypeScript agent file needs tsx: install it (npm install --save-dev tsx), or compile the file to .js",
    );
  }
  api.register();
}

/** The agent source for the built-in assistant. */
export function builtinSource(): AgentSource {
  return {
    label: `built-in assistant (${BUILTIN_AGENT_NAME})`,
    acceptsModel: true,
    build: async (options) => createBuiltinAssistant(options),
    liveDeps: async () => ({}),
  };
}

/**
 * Loads an agent file: a .js/.mjs/.ts module whose default export (or the export named by
 * `exportName`) is an `Agent` or a factory `({ model, maxIterations }) => Agent`. A `deps` export
 * (object or function) supplies live dependencies. `undefined` → the built-in assistant.
 */
export async function loadAgentSource(file: string | undefined, exportName = "default"): Promise<AgentSource> {
  if (file === undefined) return builtinSource();
  const path = resolve(file);
  const extension = extname(path);
  if (!loadable.has(extension)) {
    throw new UsageError(`Agent file "${file}" must be a .js, .mjs, .cjs, .ts, .mts or .cts module`);
  }
  if (!existsSync(path)) throw new UsageError(`Agent file "${file}" does not exist`);
  if (extension.endsWith("ts")) await registerTypeScript();
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    // An optional part the agent imports (nous/mcp, nous/code-mode) without its package: say what to install.
    if (NousError.isInstance(error) && error.code === "optional_peer_missing") throw error;
    throw new UsageError(`Could not load agent file "${file}": ${error instanceof Error ? error.message : error}`);
  }
  const exported = module[exportName];
  if (exported === undefined) {
    const names = Object.keys(module).join(", ") || "none";
    throw new UsageError(
      `Agent file "${file}" has no export "${exportName}" (its exports: ${names}); use --export name`,
    );
  }
  if (!isAgent(exported) && typeof exported !== "function") {
    throw new UsageError(`Export "${exportName}" of "${file}" is neither an Agent nor a function returning one`);
  }
  const liveDeps = async () => {
    const deps = module.deps;
    const value = typeof deps === "function" ? await (deps as () => unknown)() : deps;
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  };
  if (isAgent(exported)) {
    return { label: file, acceptsModel: false, build: async () => exported, liveDeps };
  }
  return {
    label: file,
    acceptsModel: true,
    liveDeps,
    build: async (options) => {
      const agent = await (exported as AgentFactory)(options);
      if (!isAgent(agent)) throw new UsageError(`The factory "${exportName}" of "${file}" did not return an Agent`);
      return agent;
    },
  };
}

/** The model the CLI picks: `--model`, else NOUS_MODEL, else undefined (the built-in TestModel). */
export function chosenModel(option: string | undefined): string | undefined {
  return option ?? (process.env.NOUS_MODEL || undefined);
}
