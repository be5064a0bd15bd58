/**
 * The README's Embeddings example (the ts block that starts with `// embeddings.ts`) runs as a
 * user's script against the built package, with `OPENAI_BASE_URL` pointing at a server that speaks
 * the OpenAI embeddings wire format.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TSX_LOADER, temporaryDirectory } from "../cli/fixtures/cli-process.js";
import { repoRoot } from "../test-support/packed-project.js";
import { useFakeServer } from "./test-support/embedding-test-support.js";

function readmeExample(): string {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const start = readme.indexOf("```ts\n// embeddings.ts");
  expect(start, "the README shows embeddings.ts").toBeGreaterThan(-1);
  return readme.slice(start + "```ts\n".length, readme.indexOf("```", start + 6));
}

/** Each text's vector: the seaside town is nearest to the holiday by the sea. */
const vectors: Record<string, number[]> = {
  "sunny day at the beach": [1, 0.1, 0],
  "rainy afternoon in the city": [0, 1, 0],
  "a quiet seaside town": [0.9, 0, 0.3],
  "holiday by the sea": [1, 0, 0.2],
};

const fake = useFakeServer();

describe("the README's Embeddings example", () => {
  it("ranks the documents by cosine similarity and prints the nearest, the tokens and their cost", async () => {
    fake.server.setFallback((request) => {
      const { input } = request.body as { input: string[] };
      const data = input.map((text, index) => ({
        object: "embedding",
        index,
        embedding: Buffer.from(new Float32Array(vectors[text] ?? []).buffer).toString("base64"),
      }));
      const tokens = input.length * 1000;
      return {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          object: "list",
          data,
          model: "text-embedding-3-small",
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        }),
      };
    });
    const cwd = temporaryDirectory("nous-readme-embeddings-");
    writeFileSync(
      join(cwd, "package.json"),
      JSON.stringify({ name: "embeddings-user", private: true, type: "module" }),
    );
    writeFileSync(join(cwd, "embeddings.ts"), readmeExample());
    mkdirSync(join(cwd, "node_modules"));
    symlinkSync(repoRoot, join(cwd, "node_modules", "nous"));
    const env = { ...process.env, OPENAI_API_KEY: "sk-readme-example-key", OPENAI_BASE_URL: `${fake.server.url}/v1` };
    const stdout = await new Promise<string>((done, fail) =>
      execFile(
        process.execPath,
        ["--import", TSX_LOADER, "embeddings.ts"],
        { cwd, env, timeout: 60_000 },
        (error, out, err) => (error ? fail(new Error(`${error.message}\n${err}`)) : done(out)),
      ),
    );
    expect(stdout.trim()).toBe("a quiet seaside town 3000 0.00006");
    expect(fake.server.requests.map((request) => request.body)).toEqual([
      {
        model: "text-embedding-3-small",
        input: Object.keys(vectors).slice(0, 3),
        encoding_format: "base64",
        dimensions: 256,
      },
      { model: "text-embedding-3-small", input: ["holiday by the sea"], encoding_format: "base64", dimensions: 256 },
    ]);
  }, 60_000);
});
