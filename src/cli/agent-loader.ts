import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { NousError } from "../errors/nous-error.js";
import type { Agent, Model } from "../index.js";
import { BUILTIN_AGENT_NAME, createBuiltinAssistant } from "./builtin-assistant.js";
import { CliExit, EXIT, UsageError } from "./cli-support.js";

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
  /** The agent file as given on the command line; undefined for the built-in assistant. */
  readonly agentFile?: string;
  /** Builds the agent; `model` replaces the file's own model when the file exports a factory. */
  build(options: { model?: Model | string; maxIterations?: number }): Promise<AnyAgent>;
  /** False when the file exports an agent instance, whose model cannot be replaced. */
  readonly acceptsModel: boolean;
  /** Live dependencies the module exports as `deps` (an object, or a function returning one). */
  liveDeps(context?: { readonly sessionId: string; readonly tenant: string }): Promise<Record<string, unknown>>;
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

/** The one line printed when a TypeScript agent file cannot be loaded for want of tsx (exit code 2). */
export function tsxMissingMessage(file: string): string {
  return `Loading the TypeScript agent file "${file}" needs tsx in your project: npm install --save-dev tsx (or compile it to .js)`;
}

/** The file an `exports` entry points to under the ESM conditions (`import`, then `node`, then `default`). */
function esmTarget(entry: unknown): string | undefined {
  if (typeof entry === "string") return entry;
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return undefined;
  for (const condition of ["import", "node", "default"]) {
    const target = esmTarget((entry as Record<string, unknown>)[condition]);
    if (target !== undefined) return target;
  }
  return undefined;
}

/**
 * The URL of tsx's ESM API as installed for `folder` (node_modules lookup upwards from it), read from
 * tsx's own `exports` under the import condition: `require.resolve` would give its CommonJS build,
 * which Node 20 cannot use to register an ESM loader.
 */
function tsxEsmApi(folder: string): string | undefined {
  let manifestPath: string;
  try {
    manifestPath = createRequire(join(folder, "noop.js")).resolve("tsx/package.json");
  } catch {
    return undefined;
  }
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { exports?: Record<string, unknown> };
  const target = esmTarget(manifest.exports?.["./esm/api"]);
  return target === undefined ? undefined : pathToFileURL(join(dirname(manifestPath), target)).href;
}

type ModuleRecord = Record<string, unknown>;

/** A CommonJS-compiled module seen from ESM: `{ default: module.exports }`; its exports are the record. */
function unwrapCommonJs(module: ModuleRecord): ModuleRecord {
  const inner = module.default;
  return typeof inner === "object" && inner !== null && (inner as { __esModule?: unknown }).__esModule === true
    ? (inner as ModuleRecord)
    : module;
}

let tsxRegistered = false;

/**
 * How to import a TypeScript agent file through the tsx installed in the user's project (looked up
 * from the file's folder, then the working directory; never nous's own install), loaded with
 * `import()`: `register()` puts tsx's ESM loader in place (`module.register`), so the file and the
 * `nous` it imports are the CLI's own module instances. In a project without `"type": "module"`,
 * where Node refuses that import (a require(esm) cycle), `tsImport` loads it through a loader scoped
 * to that import instead. Undefined when the project has no tsx.
 */
async function typeScriptImporter(agentFile: string): Promise<((url: string) => Promise<ModuleRecord>) | undefined> {
  const api = tsxEsmApi(dirname(agentFile)) ?? tsxEsmApi(process.cwd());
  if (api === undefined) return undefined;
  const { tsImport, register } = (await import(api)) as {
    tsImport?: (specifier: string, parentURL: string) => Promise<ModuleRecord>;
    register?: () => unknown;
  };
  if (typeof register !== "function") return undefined;
  if (!tsxRegistered) register();
  tsxRegistered = true;
  return async (url) => {
    try {
      return unwrapCommonJs((await import(url)) as ModuleRecord);
    } catch (error) {
      const cycle = (error as { code?: unknown }).code === "ERR_REQUIRE_CYCLE_MODULE";
      if (!cycle || typeof tsImport !== "function") throw error;
      return unwrapCommonJs(await tsImport(url, pathToFileURL(agentFile).href));
    }
  };
}

/** Whether this Node strips TypeScript types itself (Node ≥ 22.18 and 23.6 by default). */
function nodeStripsTypes(): boolean {
  const features = process.features as unknown as Record<string, unknown>;
  return features.typescript === "strip" || features.typescript === "transform";
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
  const typeScript = extension.endsWith("ts");
  const tsx = typeScript ? await typeScriptImporter(path) : undefined;
  const withTsx = tsx !== undefined;
  if (typeScript && !withTsx && !nodeStripsTypes()) throw new CliExit(EXIT.usage, tsxMissingMessage(file));
  let module: ModuleRecord;
  try {
    const url = pathToFileURL(path).href;
    module = tsx === undefined ? ((await import(url)) as ModuleRecord) : await tsx(url);
  } catch (error) {
    // An optional part the agent imports (nous/mcp, nous/code-mode) without its package: say what to install.
    if (NousError.isInstance(error) && error.code === "optional_peer_missing") throw error;
    const reason = error instanceof Error ? error.message : String(error);
    // Node's own type stripping handles erasable syntax only: tsx handles the rest.
    if (typeScript && !withTsx) throw new CliExit(EXIT.usage, `${tsxMissingMessage(file)}; Node said: ${reason}`);
    throw new UsageError(`Could not load agent file "${file}": ${reason}`);
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
  const liveDeps = async (context?: { readonly sessionId: string; readonly tenant: string }) => {
    const deps = module.deps;
    const value = typeof deps === "function" ? await (deps as (context: unknown) => unknown)(context) : deps;
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  };
  if (isAgent(exported)) {
    return { label: file, agentFile: file, acceptsModel: false, build: async () => exported, liveDeps };
  }
  return {
    label: file,
    agentFile: file,
    acceptsModel: true,
    liveDeps,
    build: async (options) => {
      const agent = await (exported as AgentFactory)(options);
      if (!isAgent(agent)) throw new UsageError(`The factory "${exportName}" of "${file}" did not return an Agent`);
      return agent;
    },
  };
}

/** The model the CLI picks: `--model`, else NOUS_MODEL, else undefined (the agent's own model; the built-in assistant's is the OfflineModel). */
export function chosenModel(option: string | undefined): string | undefined {
  return option ?? (process.env.NOUS_MODEL || undefined);
}
