/**
 * Node built-ins reached without a static `node:` import, so the core entry loads in browsers and
 * edge runtimes too. `process.getBuiltinModule` exists on Node ≥ 20.16, Bun and Deno; elsewhere
 * (a browser, a worker) there is no process and every lookup is `undefined`.
 */

interface BuiltinProcess {
  readonly env?: Record<string, string | undefined>;
  readonly pid?: number;
  getBuiltinModule?(id: string): unknown;
}

/** The host's `process`, when it has one (Node, Bun, Deno); `undefined` in a browser. */
export function hostProcess(): BuiltinProcess | undefined {
  return (globalThis as { process?: BuiltinProcess }).process;
}

/**
 * A Node built-in module by id, or `undefined` where the runtime has none.
 *
 * @example
 * const os = nodeBuiltin<typeof import("node:os")>("node:os");
 * os?.hostname(); // "build-7" on Node, undefined in a browser
 */
export function nodeBuiltin<T>(id: `node:${string}`): T | undefined {
  try {
    return hostProcess()?.getBuiltinModule?.(id) as T | undefined;
  } catch {
    return undefined;
  }
}

/**
 * The process environment, read when called (never at import): `process.env` where there is one,
 * else an empty record (browsers, edge workers: pass settings explicitly there).
 *
 * @example
 * const key = settings.apiKey ?? processEnv().OPENAI_API_KEY;
 */
export function processEnv(): Record<string, string | undefined> {
  return hostProcess()?.env ?? {};
}
