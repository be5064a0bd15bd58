/**
 * Scripts the packed-install test writes into the user's project and runs there: each imports the
 * package by its name, as the user's code does, and prints one JSON line.
 */
import { OPTIONAL_PEERS } from "../../peers/optional-peers.js";

/** Imports each optional entry and prints what it threw (or "loaded"). */
export const importEntries = `
const nous = await import("nous");
const entries = ${JSON.stringify([...Object.keys(OPTIONAL_PEERS)])};
const out = {};
for (const entry of entries) {
  try {
    await import(entry);
    out[entry] = "loaded";
  } catch (error) {
    out[entry] = {
      typed: error instanceof nous.OptionalPeerMissingError,
      name: error.name, code: error.code, packages: error.packages, installCommand: error.installCommand, message: error.message,
    };
  }
}
console.log(JSON.stringify(out));
`;

export const mcpServer = `
import { tool } from "nous";
import { serveMcpStdio } from "nous/mcp";
const add = tool({
  name: "add",
  description: "Adds two numbers",
  input: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  execute: ({ a, b }) => ({ sum: a + b }),
});
await serveMcpStdio({ name: "adder", version: "1.0.0", tools: [add] });
`;

export const mcpClient = `
import { Agent } from "nous";
import { ScriptedModel } from "nous/testing";
import { connectMcp } from "nous/mcp";
const connection = await connectMcp({ transport: { type: "stdio", command: process.execPath, args: ["mcp-server.mjs"] } });
const tools = await connection.tools();
const add = tools.find((item) => item.name.endsWith("add"));
const model = new ScriptedModel([{ toolCalls: [{ id: "c1", name: add.name, args: { a: 2, b: 3 } }] }, { text: "done" }]);
const result = await new Agent({ model, tools }).run("add them");
await connection.close();
console.log(JSON.stringify({ tools: tools.map((item) => item.name), result: result.log.find((event) => event.type === "tool_result").data }));
`;

export const codeModeRun = `
import { Agent } from "nous";
import { ScriptedModel } from "nous/testing";
import { codeMode } from "nous/code-mode";
const model = new ScriptedModel([{ toolCalls: [{ id: "p", name: "run_code", args: { code: "return 1 + 1;" } }] }, { text: "done" }]);
const result = await new Agent({ model, tools: [codeMode()] }).run("go");
console.log(JSON.stringify(result.log.find((event) => event.type === "tool_result").data));
`;

export const inspectorRun = `
import { MemoryStore } from "nous";
import { startInspector } from "nous/inspector";
const store = new MemoryStore();
await store.append("s1", [{ seq: 1, at: new Date().toISOString(), type: "note", data: { n: 1 } }], { expectedLastSeq: 0 });
const inspector = await startInspector({ store, port: 0 });
const response = await fetch(new URL("/api/sessions", inspector.url), { headers: { "x-nous-token": inspector.token } });
const refused = await fetch(new URL("/api/sessions", inspector.url));
console.log(JSON.stringify({ status: response.status, refused: refused.status, body: await response.json() }));
await inspector.close();
`;

/** Appends two events to a fresh session of the store and reads them back. */
const storeRoundTrip = (open: string, close: string) => `
${open}
const at = new Date().toISOString();
await store.append("s1", [{ seq: 1, at, type: "note", data: { n: 1 } }, { seq: 2, at, type: "note", data: { n: 2 } }], { expectedLastSeq: 0 });
const read = await store.read("s1");
await store.close();
${close}
console.log(JSON.stringify({ seqs: read.map((event) => event.seq), data: read.map((event) => event.data) }));
`;

export const postgresRun = storeRoundTrip(
  `import { PostgresStore } from "nous/postgres";
import pg from "pg";
const schema = "nous_packed_" + process.pid;
const store = await PostgresStore.connect(process.env.DATABASE_URL, { schema });`,
  `const client = new pg.Client(process.env.DATABASE_URL);
await client.connect();
await client.query("DROP SCHEMA " + schema + " CASCADE");
await client.end();`,
);

export const sqliteRun = storeRoundTrip(
  `import { SqliteStore } from "nous/sqlite";
const store = new SqliteStore({ path: "sessions-" + process.pid + ".db" });`,
  "",
);
