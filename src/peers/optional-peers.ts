import { OptionalPeerMissingError } from "../errors/optional-peer-missing-error.js";

/** An optional peer package: its npm name and what `npm install` gets (the major version Nous supports). */
export interface PeerPackage {
  readonly name: string;
  readonly spec: string;
}

/**
 * The optional entry points and the peer packages each loads. package.json's peerDependencies
 * (marked optional) hold the same packages; src/package/peer-dependencies.test.ts keeps them in step.
 */
export const OPTIONAL_PEERS = {
  "nous/mcp": [{ name: "@modelcontextprotocol/sdk", spec: "@modelcontextprotocol/sdk@1" }],
  "nous/code-mode": [
    { name: "quickjs-emscripten-core", spec: "quickjs-emscripten-core@0.32" },
    { name: "@jitl/quickjs-wasmfile-release-sync", spec: "@jitl/quickjs-wasmfile-release-sync@0.32" },
  ],
  "nous/inspector": [
    { name: "hono", spec: "hono@4" },
    { name: "@hono/node-server", spec: "@hono/node-server@2" },
  ],
  "nous/postgres": [{ name: "pg", spec: "pg@8" }],
  "nous/fleet": [
    { name: "bullmq", spec: "bullmq@6" },
    { name: "ioredis", spec: "ioredis@5" },
  ],
  "nous/telemetry": [{ name: "@opentelemetry/api", spec: "@opentelemetry/api@1" }],
} as const satisfies Record<string, readonly PeerPackage[]>;

export type OptionalEntry = keyof typeof OPTIONAL_PEERS;

/**
 * Runs `load` (the entry's `import()` of its peers) and turns "package not found" for one of the
 * entry's peers into one `OptionalPeerMissingError` naming the install command. Any other failure
 * (a peer that is installed but broken, a missing dependency of a peer) is rethrown as it is.
 */
export async function loadPeers<T>(entry: OptionalEntry, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw peerError(entry, error) ?? error;
  }
}

/** The typed error for `error` when it says one of the entry's peers is not installed; undefined otherwise. */
export function peerError(entry: OptionalEntry, error: unknown): OptionalPeerMissingError | undefined {
  const peers = OPTIONAL_PEERS[entry];
  const missing = peers.filter((peer) => isNotFound(error, peer.name)).map((peer) => peer.name);
  if (missing.length === 0) return undefined;
  return new OptionalPeerMissingError({ entry, packages: peers, missing, cause: error });
}

/** Node's, Bun's and Deno's "cannot find package <name>" (import or require.resolve). */
function isNotFound(error: unknown, name: string): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof message !== "string") return false;
  const notFound =
    code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND" || /Cannot find (package|module)/i.test(message);
  if (!notFound) return false;
  return (
    message.includes(`'${name}'`) ||
    message.includes(`"${name}"`) ||
    message.includes(`'${name}/`) ||
    message.includes(`"${name}/`)
  );
}
