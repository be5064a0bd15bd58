/**
 * The same task in every framework: an agent with one tool `add({a, b})`; the mock model calls it
 * K times (one call per turn), then answers. Each factory returns `run()` (non-streaming) and
 * `stream()` (streaming, every event consumed); both return the final text after checking it is
 * exactly the scripted one, and the worker checks the tool ran K times and the server saw the right
 * requests, so a framework cannot win by skipping work.
 *
 * Every factory imports its framework lazily, so a child process loads only the one it measures.
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FINAL_TEXT } from "./mock-server.ts";

export const K = Number(process.env.BENCH_K ?? 10);
export const MODEL = `mock-k${K}`;
export const INSTRUCTIONS = "You add numbers.";
export const PROMPT = "Add 1 and 2, ten times.";
export const FINAL = FINAL_TEXT;
/** The paced model: SSE events `ms` apart (see mock-server.ts). */
export const pacedModel = (ms: number) => `${MODEL}-p${ms}`;

/** Every `add` execution in this process, all frameworks: the worker checks it grew by K per run. */
export const addCalls = { count: 0 };

export interface Runner {
  /** One run, non-streaming; resolves to the final answer text (checked). */
  run(): Promise<string>;
  /** One run, streaming, every event consumed; resolves to the final answer text (checked). */
  stream(): Promise<string>;
  close?(): Promise<void>;
}

/** `model` defaults to MODEL (instant answers); pass `pacedModel(ms)` for a paced server. */
export type Factory = (baseURL: string, model?: string) => Promise<Runner>;

function check(name: string, text: unknown): string {
  if (text !== FINAL)
    throw new Error(`${name}: final answer ${JSON.stringify(text)}, expected ${JSON.stringify(FINAL)}`);
  return text;
}

// ---------------------------------------------------------------------------------------------
// The floor: a minimal hand-written fetch loop (what any framework must at least do): the same
// task as every framework below, so it sends the same system instructions.

type ChatMessage = Record<string, unknown>;

async function floorLoop(baseURL: string, model: string, streaming: boolean): Promise<string> {
  const messages: ChatMessage[] = [
    { role: "system", content: INSTRUCTIONS },
    { role: "user", content: PROMPT },
  ];
  const tools = [
    {
      type: "function",
      function: {
        name: "add",
        description: "Add two numbers",
        parameters: {
          type: "object",
          properties: { a: { type: "number" }, b: { type: "number" } },
          required: ["a", "b"],
        },
      },
    },
  ];
  for (let turn = 0; turn < 50; turn++) {
    const response = await fetch(`${baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer x" },
      body: JSON.stringify({ model, messages, tools, stream: streaming }),
    });
    if (!response.ok) throw new Error(`floor: HTTP ${response.status}`);
    let content = "";
    let toolCalls: { id: string; name: string; arguments: string }[] = [];
    if (!streaming) {
      const body = (await response.json()) as {
        choices: {
          message: {
            content: string | null;
            tool_calls?: { id: string; function: { name: string; arguments: string } }[];
          };
        }[];
      };
      const message = body.choices[0]!.message;
      content = message.content ?? "";
      toolCalls = (message.tool_calls ?? []).map((call) => ({ id: call.id, ...call.function }));
    } else {
      const decoder = new TextDecoder();
      let buffer = "";
      let done = false;
      for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(bytes, { stream: true });
        let end = buffer.indexOf("\n\n");
        while (end !== -1) {
          const line = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf("\n\n");
          if (!line.startsWith("data: ")) continue;
          const data = line.slice(6);
          if (data === "[DONE]") {
            done = true;
            break;
          }
          const chunk = JSON.parse(data) as {
            choices: {
              delta: {
                content?: string | null;
                tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
              };
            }[];
          };
          const delta = chunk.choices[0]?.delta;
          if (!delta) continue;
          if (delta.content) content += delta.content;
          for (const part of delta.tool_calls ?? []) {
            toolCalls[part.index] ??= { id: "", name: "", arguments: "" };
            const slot = toolCalls[part.index]!;
            if (part.id) slot.id = part.id;
            if (part.function?.name) slot.name = part.function.name;
            if (part.function?.arguments) slot.arguments += part.function.arguments;
          }
        }
      }
      if (!done) throw new Error("floor: stream ended before [DONE]");
    }
    if (toolCalls.length === 0) return check("floor", content);
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: toolCalls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      })),
    });
    for (const call of toolCalls) {
      const args = JSON.parse(call.arguments) as { a: number; b: number };
      addCalls.count++;
      messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(args.a + args.b) });
    }
  }
  throw new Error("floor: too many turns");
}

export const floor: Factory = async (baseURL, model = MODEL) => ({
  run: () => floorLoop(baseURL, model, false),
  stream: () => floorLoop(baseURL, model, true),
});

// ---------------------------------------------------------------------------------------------
// Nous, from the repository source, through the OpenAI-compatible provider (`custom` preset).
// Retry stays on (the default). `variant` adds a context update per tool call, or a SQLite store.

export type NousVariant = "plain" | "update" | "sqlite-full" | "sqlite-normal" | "postgres";

/** The PostgreSQL server for `nous+postgres` (a throwaway schema per worker, dropped on close). */
export const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const nousSource = process.env.NOUS_ENTRY ?? "../../src/index.ts";

export function nousFactory(variant: NousVariant): Factory {
  return async (baseURL, model = MODEL) => {
    const { Agent, ContextUpdate, createOpenAICompatibleModel, tool } = (await import(
      nousSource
    )) as typeof import("../../src/index.ts");
    const { z } = await import("zod");
    type Deps = { sums: number[] };
    const add = tool({
      name: "add",
      description: "Add two numbers",
      input: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }: { a: number; b: number }) => {
        addCalls.count++;
        return variant === "update"
          ? { result: a + b, update: ContextUpdate.new<Deps>().append("sums", a + b) }
          : a + b;
      },
    });
    const agent = new Agent<Deps>({
      model: createOpenAICompatibleModel("custom", model, { baseURL }),
      instructions: INSTRUCTIONS,
      tools: [add],
      maxIterations: K + 5,
    });
    let store: { close(): Promise<void> } | undefined;
    let path: string | undefined;
    let options = (): Record<string, unknown> => ({ deps: { sums: [] } });
    if (variant === "sqlite-full" || variant === "sqlite-normal") {
      const { SqliteStore } = (await import(
        nousSource.replace(/index\.(ts|js)$/, "sqlite.$1")
      )) as typeof import("../../src/sqlite.ts");
      const file = join(tmpdir(), `nous-bench-${process.pid}-${Date.now()}.db`);
      path = file;
      // Also removed when the worker exits on a failure, without close().
      process.once("exit", () => {
        for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
      });
      const sqlite = new SqliteStore({
        path,
        groupCommit: true,
        synchronous: variant === "sqlite-full" ? "full" : "normal",
      });
      store = sqlite;
      let session = 0;
      options = () => ({ deps: { sums: [] }, sessionId: `s${process.pid}-${session++}`, store: sqlite });
    }
    if (variant === "postgres") {
      const { PostgresStore } = (await import(
        nousSource.replace(/index\.(ts|js)$/, "postgres.$1")
      )) as typeof import("../../src/postgres.ts");
      const schema = `nous_bench_${process.pid}`;
      const postgres = await PostgresStore.connect(DATABASE_URL, { schema, groupCommit: true });
      const drop = async () => {
        const { default: pg } = await import("pg");
        const client = new pg.Client({ connectionString: DATABASE_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      };
      store = { close: () => postgres.close().then(drop) };
      let session = 0;
      options = () => ({ deps: { sums: [] }, sessionId: `s${process.pid}-${session++}`, store: postgres });
    }
    const once = async (streaming: boolean) => {
      let output: unknown;
      if (!streaming) output = (await agent.run(PROMPT, options() as never)).output;
      else {
        const stream = agent.stream(PROMPT, options() as never);
        for await (const _event of stream);
        output = (await stream.result).output;
      }
      return check("nous", output);
    };
    return {
      run: () => once(false),
      stream: () => once(true),
      close: async () => {
        await store?.close();
        if (path) for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
      },
    };
  };
}

// ---------------------------------------------------------------------------------------------
// Vercel AI SDK 6 with @ai-sdk/openai-compatible.

export const aiSdk: Factory = async (baseURL, modelName = MODEL) => {
  const { generateText, streamText, tool, stepCountIs } = await import("ai");
  const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
  const { z } = await import("zod");
  const provider = createOpenAICompatible({ name: "mock", baseURL, apiKey: "x", includeUsage: true });
  const model = provider.chatModel(modelName);
  const tools = {
    add: tool({
      description: "Add two numbers",
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      execute: async ({ a, b }) => {
        addCalls.count++;
        return a + b;
      },
    }),
  };
  const settings = { model, tools, system: INSTRUCTIONS, prompt: PROMPT, stopWhen: stepCountIs(K + 5) };
  return {
    run: async () => {
      const result = await generateText(settings);
      return check("ai-sdk", result.text);
    },
    stream: async () => {
      const result = streamText(settings);
      let text = "";
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") text += part.text;
        else if (part.type === "error") throw part.error;
      }
      return check("ai-sdk", text);
    },
  };
};

// ---------------------------------------------------------------------------------------------
// LangGraph.js: the prebuilt ReAct agent with @langchain/openai (Chat Completions).

export const langGraph: Factory = async (baseURL, model = MODEL) => {
  const { createReactAgent } = await import("@langchain/langgraph/prebuilt");
  const { ChatOpenAI } = await import("@langchain/openai");
  const { tool } = await import("@langchain/core/tools");
  const { z } = await import("zod");
  const add = tool(
    async ({ a, b }: { a: number; b: number }) => {
      addCalls.count++;
      return String(a + b);
    },
    { name: "add", description: "Add two numbers", schema: z.object({ a: z.number(), b: z.number() }) },
  );
  const make = (streaming: boolean) =>
    createReactAgent({
      llm: new ChatOpenAI({ model, apiKey: "x", configuration: { baseURL }, streaming, streamUsage: true }),
      tools: [add],
      prompt: INSTRUCTIONS,
    });
  const plain = make(false);
  const streamingAgent = make(true);
  const input = () => ({ messages: [{ role: "user", content: PROMPT }] });
  return {
    run: async () => {
      const state = await plain.invoke(input(), { recursionLimit: 2 * K + 10 });
      return check("langgraph", state.messages.at(-1)?.content);
    },
    stream: async () => {
      let text = "";
      const events = await streamingAgent.stream(input(), { recursionLimit: 2 * K + 10, streamMode: "messages" });
      for await (const [message, metadata] of events) {
        if (
          (metadata as { langgraph_node?: string }).langgraph_node === "agent" &&
          typeof message.content === "string"
        ) {
          text += message.content;
        }
      }
      return check("langgraph", text);
    },
  };
};

// ---------------------------------------------------------------------------------------------
// OpenAI Agents SDK in chat-completions mode.

export const openaiAgents: Factory = async (baseURL, model = MODEL) => {
  const { Agent, run, tool, OpenAIChatCompletionsModel, setTracingDisabled } = await import("@openai/agents");
  const { default: OpenAI } = await import("openai");
  const { z } = await import("zod");
  setTracingDisabled(true);
  const client = new OpenAI({ baseURL, apiKey: "x" });
  const add = tool({
    name: "add",
    description: "Add two numbers",
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: async ({ a, b }) => {
      addCalls.count++;
      return String(a + b);
    },
  });
  const agent = new Agent({
    name: "adder",
    instructions: INSTRUCTIONS,
    model: new OpenAIChatCompletionsModel(client as never, model),
    tools: [add],
  });
  return {
    run: async () => {
      const result = await run(agent, PROMPT, { maxTurns: K + 5 });
      return check("openai-agents", result.finalOutput);
    },
    stream: async () => {
      const result = await run(agent, PROMPT, { maxTurns: K + 5, stream: true });
      let text = "";
      for await (const event of result) {
        if (event.type === "raw_model_stream_event" && event.data.type === "output_text_delta")
          text += event.data.delta;
      }
      await result.completed;
      return check("openai-agents", text || result.finalOutput);
    },
  };
};

export const frameworks: Record<string, Factory> = {
  floor,
  nous: nousFactory("plain"),
  "nous+update": nousFactory("update"),
  "nous+sqlite": nousFactory("sqlite-full"),
  "nous+sqlite-normal": nousFactory("sqlite-normal"),
  "nous+postgres": nousFactory("postgres"),
  "ai-sdk": aiSdk,
  langgraph: langGraph,
  "openai-agents": openaiAgents,
};

/**
 * What each framework's cold import loads (resolved from bench/peers). Nous twice: `@nous-dist/` is
 * the current src/ compiled by bench.ts, `@nous-build/` the repository's own build (dist/, what users
 * import; skipped when absent).
 */
export const coldImports: Record<string, string[]> = {
  nous: ["@nous-dist/index.js"],
  "nous (dist/)": ["@nous-build/index.js"],
  "ai-sdk": ["ai", "@ai-sdk/openai-compatible"],
  langgraph: ["@langchain/langgraph", "@langchain/langgraph/prebuilt", "@langchain/openai"],
  "openai-agents": ["@openai/agents"],
};
