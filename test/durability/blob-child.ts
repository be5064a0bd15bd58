/**
 * Child process of the blob crash test. Usage:
 *   node … blob-child.ts <sqlitePath> <sessionId> <baseURL>
 * Runs an agent on an OpenAI Chat Completions model at `baseURL` (a loopback wire server in the
 * parent) with a prompt holding an image (`imageBytes(seed)` below), on a SQLite store; the parent
 * SIGKILLs it mid-run. Prints `DONE` at the end, or `ERROR <code> <message>`.
 */
import { writeSync } from "node:fs";
import { Agent } from "../../src/agent/agent.js";
import { createOpenAIChatModel } from "../../src/models/providers/openai-chat.js";
import { bytesToBase64 } from "../../src/platform/binary-bytes.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";

/** 64 KiB of deterministic bytes: the image the child sends. */
export function imageBytes(): Uint8Array {
  const bytes = new Uint8Array(64 * 1024);
  for (let index = 0; index < bytes.length; index++) bytes[index] = (index * 31 + 7) % 251;
  return bytes;
}

if (process.argv[1]?.endsWith("blob-child.ts")) {
  const [path = "", sessionId = "s", baseURL = ""] = process.argv.slice(2);
  const say = (line: string) => writeSync(1, `${line}\n`);
  const agent = new Agent({
    name: "viewer",
    model: createOpenAIChatModel("gpt-4o-mini", { baseURL, apiKey: "sk-test-blob-child-0123456789" }),
  });
  const store = new SqliteStore({ path });
  try {
    const image = { type: "image", data: bytesToBase64(imageBytes()), mediaType: "image/png" } as const;
    await agent.run([{ type: "text", text: "What is in it?" }, image], { sessionId, store, lease: { ttlMs: 1_000 } });
    say("DONE");
  } catch (error) {
    say(`ERROR ${(error as { code?: string }).code ?? "unexpected"} ${String(error)}`);
  } finally {
    await store.close();
  }
}
