import type { RecordedRequest, WireReply } from "./dialect-fixture.js";

/** One in-memory HTTP answer: status, headers and the body as exact byte chunks (which need not be valid UTF-8). */
export interface WireDelivery {
  status: number;
  headers?: Record<string, string>;
  chunks: readonly Uint8Array[];
}

/** A wire reply as one delivery, its body cut into chunks at the given byte offsets. */
export function deliver(reply: WireReply, splitAt: readonly number[] = []): WireDelivery {
  return { status: reply.status, headers: reply.headers, chunks: splitBytes(Buffer.from(reply.body, "utf8"), splitAt) };
}

/** Cuts bytes at the given offsets (sorted, out-of-range ones ignored). */
export function splitBytes(bytes: Uint8Array, splitAt: readonly number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const offset of [...splitAt].sort((a, b) => a - b)) {
    if (offset <= start || offset >= bytes.length) continue;
    chunks.push(bytes.subarray(start, offset));
    start = offset;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

/** A `fetch` that records requests and answers from memory: thousands of wire cases without sockets. */
export interface WireFetch {
  readonly fetch: typeof fetch;
  readonly requests: RecordedRequest[];
}

/**
 * An in-memory `fetch` for provider tests; each call answers with `respond(request)`. The body is a
 * byte stream delivered one chunk per read, so decoders see the same splits a socket would give.
 *
 * @example
 * const wire = createWireFetch(() => deliver(reply, [17]));
 * const model = fixture.createModel({ baseURL: "http://fake.test", apiKey: "k", fetch: wire.fetch });
 */
export function createWireFetch(respond: (request: RecordedRequest) => WireDelivery): WireFetch {
  const requests: RecordedRequest[] = [];
  const wireFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) throw signal.reason;
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    const rawBody = typeof init?.body === "string" ? init.body : "";
    let body: unknown = rawBody;
    try {
      body = rawBody === "" ? undefined : JSON.parse(rawBody);
    } catch {
      // keep the raw text
    }
    const recorded: RecordedRequest = {
      method: init?.method ?? "GET",
      path: `${url.pathname}${url.search}`,
      headers: headerRecord(new Headers(init?.headers)),
      body,
    };
    requests.push(recorded);
    const delivery = respond(recorded);
    let index = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (signal?.aborted) return controller.error(signal.reason);
        const chunk = delivery.chunks[index++];
        if (chunk === undefined) return controller.close();
        controller.enqueue(chunk);
      },
    });
    const nullBody = delivery.status === 204 || delivery.status === 304;
    return new Response(nullBody ? null : stream, { status: delivery.status, headers: delivery.headers });
  };
  return { fetch: wireFetch as typeof fetch, requests };
}

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}
