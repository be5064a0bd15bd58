/**
 * A chat UI on a Nous agent: a Hono server whose `/api/chat` is `uiChatHandler` (what `useChat` /
 * `Chat` from the AI SDK talk to), and a page that uses the `ai` package's own `Chat` with
 * `DefaultChatTransport`: streamed text, tool calls with their results, approve/deny buttons, and
 * reconnects that miss nothing. The demo model is offline and deterministic (see demo-model.ts).
 *
 * Run: npx tsx examples/ui-chat/server.ts   (then open http://localhost:3000)
 * Try: "hello", "what is the weather in Paris?", "pay the invoice", "refund the invoice".
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createAdaptorServer } from "@hono/node-server";
import { build } from "esbuild";
import { Hono } from "hono";
import { z } from "zod";
import {
  Agent,
  agentAsTool,
  MemoryStore,
  type Model,
  type SessionStore,
  sessionToUIMessages,
  tool,
  uiChatHandler,
} from "../../src/index.js";
import { DemoModel } from "./demo-model.js";

const getWeather = tool({
  name: "get_weather",
  description: "The weather in a city",
  input: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, celsius: 21, sky: "sunny" }),
});

const payInvoice = tool({
  name: "pay_invoice",
  description: "Pay an invoice (a person approves it first)",
  input: z.object({ invoice: z.string(), amount: z.number().positive() }),
  needsApproval: true,
  execute: ({ invoice, amount }) => ({ paid: invoice, amount }),
});

const issueRefund = tool({
  name: "issue_refund",
  description: "Refund an invoice (a person approves it first)",
  input: z.object({ invoice: z.string() }),
  needsApproval: true,
  execute: ({ invoice }) => ({ refunded: invoice }),
});

export interface ChatServerOptions {
  /** 0 picks a free port (default 3000). */
  readonly port?: number;
  readonly model?: Model;
  readonly store?: SessionStore;
  /** Lets `cut()` break the open streams' connections mid-answer (tests). */
  readonly cuttable?: boolean;
}

export interface ChatServer {
  readonly url: string;
  readonly store: SessionStore;
  /** Breaks every open chat stream's connection (as a network failure would); returns how many. */
  cut(): number;
  close(): Promise<void>;
}

const PAGE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Nous chat</title>
<style>
body { font: 15px system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; }
#messages { list-style: none; padding: 0; }
#messages li { margin: .5rem 0; padding: .5rem .75rem; border-radius: .5rem; background: #f3f4f6; }
#messages li[data-role="user"] { background: #dbeafe; }
.tool { margin: .4rem 0; padding: .4rem; border: 1px solid #d1d5db; border-radius: .4rem; display: grid; gap: .2rem; }
.tool button { justify-self: start; }
#composer { display: flex; gap: .5rem; } #prompt { flex: 1; }
</style></head>
<body><h1>Nous chat</h1><p>Status: <span id="status">loading</span></p>
<ol id="messages"></ol>
<form id="composer"><input id="prompt" autocomplete="off" placeholder="Say hello, ask for the weather, or pay the invoice"><button>Send</button></form>
<script type="module" src="/page.js"></script></body></html>`;

/** Bundles the page script (the `ai` package included) for the browser. */
async function bundlePage(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("./page.ts", import.meta.url))],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    logLevel: "silent",
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error("esbuild produced no page script");
  return output.text;
}

/** Starts the example server; resolves once it listens. */
export async function startChatServer(options: ChatServerOptions = {}): Promise<ChatServer> {
  const store = options.store ?? new MemoryStore();
  const model = options.model ?? new DemoModel();
  // A sub-agent: its approval requests reach the page as tool parts of their own.
  const refunds = new Agent({ name: "refunds", model, tools: [issueRefund] });
  const agent = new Agent({
    name: "ui-chat",
    model,
    instructions: "You are a helpful assistant.",
    // A sub-agent may use only tools its parent has: issue_refund is listed here too.
    tools: [getWeather, payInvoice, agentAsTool(refunds, { name: "refund_desk", description: "Refunds" }), issueRefund],
  });
  const chat = uiChatHandler({ agent, store });
  const script = await bundlePage();
  const open = new Set<TransformStreamDefaultController<Uint8Array>>();
  const cuttable = async (request: Request): Promise<Response> => {
    const response = await chat(request);
    if (!options.cuttable || response.body === null) return response;
    let held: TransformStreamDefaultController<Uint8Array> | undefined;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        start: (controller) => {
          held = controller;
          open.add(controller);
        },
        flush: () => {
          if (held !== undefined) open.delete(held);
        },
      }),
    );
    return new Response(body, { status: response.status, headers: response.headers });
  };

  const app = new Hono();
  app.get("/", (c) => c.html(PAGE_HTML));
  app.get("/page.js", (c) => c.body(script, 200, { "content-type": "text/javascript; charset=utf-8" }));
  app.get("/api/chats/:id/messages", async (c) => c.json(await sessionToUIMessages(store, c.req.param("id"))));
  app.post("/api/chat", (c) => cuttable(c.req.raw));
  app.get("/api/chat/:id/stream", (c) => cuttable(c.req.raw));

  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 3000, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    store,
    cut() {
      const count = open.size;
      for (const controller of open) controller.error(new Error("chat stream cut on purpose (ChatServer.cut)"));
      open.clear();
      return count;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startChatServer({ port: Number(process.env.PORT ?? 3000) });
  console.log(`Nous chat: ${server.url}`);
}
