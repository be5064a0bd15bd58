/** Test helpers: where the reference servers and fixtures are, and how to start them. */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import type { McpStdioTransport } from "../connect-mcp.js";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export const repositoryRoot = here("../../../");
export const everythingBin = here("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const filesystemBin = here("../../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
export const probeServer = here("../fixtures/probe-server.ts");
export const nousStdioServer = here("../fixtures/nous-stdio-server.ts");
const loopbackOnly = here("../fixtures/loopback-only.mjs");

/** A stdio transport running a TypeScript fixture through tsx. */
export function tsxFixture(path: string, extra: Partial<McpStdioTransport> = {}): McpStdioTransport {
  return { type: "stdio", command: process.execPath, args: ["--import", "tsx", path], cwd: repositoryRoot, ...extra };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Starts server-everything in Streamable HTTP mode on a loopback port; resolves once it listens. */
export async function startEverythingHttp(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ["--import", loopbackOnly, everythingBin, "streamableHttp"], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${seen}`)), 20_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes("listening on port")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited with ${code}: ${seen}`));
    });
  });
  child.stderr?.resume();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
