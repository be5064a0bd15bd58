import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { RecordedRequest, WireReply } from "./dialect-fixture.js";

/** How the fake server sends one reply: the bytes, and optionally how to deliver or break them. */
export interface ReplyPlan {
  reply: WireReply;
  /** Send the body in chunks of these byte sizes (the rest goes in a last chunk). Default: one chunk. */
  chunkSizes?: readonly number[];
  /** Pause between chunks, in milliseconds. Default 0 (still a separate write per chunk). */
  chunkDelayMs?: number;
  /** Destroy the connection after sending this many body bytes (a cut mid-body). */
  cutAfterBytes?: number;
  /** Send this many body bytes, then keep the connection open and silent until the client leaves. */
  hangAfterBytes?: number;
  /** Do not answer at all (not even headers) until the client leaves. */
  hangBeforeHeaders?: boolean;
}

/** What a test gives the server: a plan, a bare reply, or a function of the request. */
export type ReplySource = ReplyPlan | WireReply | ((request: RecordedRequest) => ReplyPlan | WireReply);

/**
 * A loopback HTTP server for provider tests. It records every request and answers with queued
 * replies byte for byte (JSON bodies with a content length, SSE bodies chunked), so an adapter is
 * tested against what the vendor's API really sends.
 *
 * @example
 * const server = await startFakeServer();
 * server.enqueue({ status: 200, body: '{"ok":true}' });
 * const model = createModel({ baseURL: server.url, apiKey: "k" });
 * await model.doGenerate(request);
 * server.requests[0]?.path; // "/v1/chat/completions"
 * await server.close();
 */
export interface FakeServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Replies used in order, one per request; when the queue is empty the fallback (if any) answers. */
  enqueue(...sources: ReplySource[]): void;
  /** The reply used when the queue is empty. Without one, an unexpected request gets a 599. */
  setFallback(source: ReplySource | undefined): void;
  /** Connections currently open (keep-alive connections in the client's pool included). */
  openConnections(): number;
  /** Responses started but not yet closed (finished or destroyed). */
  activeResponses(): number;
  /** Resolves once no response is active, or rejects after `timeoutMs`. */
  waitForIdle(timeoutMs?: number): Promise<void>;
  /** Resolves when the server has sent `bytes` body bytes of the current reply. */
  waitForBytesSent(bytes: number, timeoutMs?: number): Promise<void>;
  /** Forgets recorded requests, queued replies and the fallback. */
  reset(): void;
  close(): Promise<void>;
}

/** Starts a fake server on 127.0.0.1 with an ephemeral port. */
export async function startFakeServer(): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const queue: ReplySource[] = [];
  let fallback: ReplySource | undefined;
  const sockets = new Set<Socket>();
  const active = new Set<ServerResponse>();
  let bytesSent = 0;
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };

  const server = createServer((incoming, response) => {
    active.add(response);
    response.on("close", () => {
      active.delete(response);
      notify();
    });
    void handle(incoming, response).catch(() => response.destroy());
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      notify();
    });
  });

  async function handle(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const raw = await readBody(incoming);
    let body: unknown = raw;
    try {
      body = raw === "" ? undefined : JSON.parse(raw);
    } catch {
      // keep the raw text
    }
    const recorded: RecordedRequest = {
      method: incoming.method ?? "GET",
      path: incoming.url ?? "/",
      headers: { ...incoming.headers },
      body,
    };
    requests.push(recorded);
    const source = queue.shift() ?? fallback;
    if (source === undefined) {
      response.writeHead(599, { "content-type": "text/plain" }).end("fake server: no reply queued");
      return;
    }
    const resolved = typeof source === "function" ? source(recorded) : source;
    await send(response, "reply" in resolved ? resolved : { reply: resolved });
  }

  async function send(response: ServerResponse, plan: ReplyPlan): Promise<void> {
    bytesSent = 0;
    if (plan.hangBeforeHeaders === true) return; // the client's abort closes the socket
    const bytes = Buffer.from(plan.reply.body, "utf8");
    const headers: Record<string, string> = { ...plan.reply.headers };
    const isSse = Object.entries(headers).some(
      ([name, value]) => name.toLowerCase() === "content-type" && value.includes("text/event-stream"),
    );
    const streamed = isSse || plan.chunkSizes !== undefined || plan.cutAfterBytes !== undefined;
    if (!streamed) headers["content-length"] = String(bytes.length);
    response.writeHead(plan.reply.status, headers);
    response.flushHeaders();
    const limit = Math.min(bytes.length, plan.cutAfterBytes ?? plan.hangAfterBytes ?? bytes.length);
    let offset = 0;
    for (const size of [...(plan.chunkSizes ?? []), Number.POSITIVE_INFINITY]) {
      if (offset >= limit || response.destroyed) break;
      const end = Math.min(limit, offset + size);
      if (offset > 0 && (plan.chunkDelayMs ?? 0) > 0) await delay(plan.chunkDelayMs ?? 0);
      if (response.destroyed) return;
      await write(response, bytes.subarray(offset, end));
      offset = end;
      bytesSent = offset;
      notify();
    }
    if (plan.cutAfterBytes !== undefined) {
      response.socket?.destroy();
      return;
    }
    if (plan.hangAfterBytes !== undefined) return;
    response.end();
  }

  function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!condition()) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`fake server: timed out waiting for ${what}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...sources) => {
      queue.push(...sources);
    },
    setFallback: (source) => {
      fallback = source;
    },
    openConnections: () => sockets.size,
    activeResponses: () => active.size,
    waitForIdle: (timeoutMs = 5000) => waitFor(() => active.size === 0, timeoutMs, "responses to close"),
    waitForBytesSent: (bytes, timeoutMs = 5000) => waitFor(() => bytesSent >= bytes, timeoutMs, `${bytes} bytes`),
    reset: () => {
      requests.length = 0;
      queue.length = 0;
      fallback = undefined;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    incoming.on("error", reject);
  });
}

function write(response: ServerResponse, chunk: Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    if (response.write(chunk)) return resolve();
    const done = () => {
      response.off("drain", done);
      response.off("close", done);
      resolve();
    };
    response.on("drain", done);
    response.on("close", done);
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
