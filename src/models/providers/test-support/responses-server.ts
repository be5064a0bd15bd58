import type { RecordedRequest, WireReply } from "./dialect-fixture.js";

/*
 * A local stand-in for OpenAI's Responses API that keeps state the way the API does, so that
 * multi-turn reasoning is tested against the rules the real API enforces:
 *
 * - `store` (true unless the request says false) keeps a response's output items; with
 *   `store: false` nothing is kept.
 * - A reasoning item in `input` is accepted only with its `encrypted_content` (which must be the
 *   one issued for that id), or when its id names an item kept by an earlier `store: true`
 *   request. Otherwise: 404 "Item with id … not found", as the API answers.
 * - `include: ["reasoning.encrypted_content"]` adds the encrypted content to reasoning items, for
 *   reasoning models only; any other model rejects it (400, param `include`).
 *
 * Answers follow a script of turns (reasoning, then a function call or a message), as JSON or as
 * the API's semantic SSE events; in a stream the encrypted content arrives only with
 * `response.output_item.done`, as documented (the `.added` item may lack it).
 */

/** One scripted answer: a reasoning item (when `reasoning` is set), then a function call or a message. */
export interface ResponsesTurn {
  readonly reasoning?: string;
  readonly call?: { readonly name: string; readonly arguments: string };
  readonly text?: string;
}

export interface ResponsesServerEntry {
  readonly body: Record<string, unknown>;
  readonly status: number;
  readonly error?: string;
}

export interface ResponsesServer {
  /** Answers one request (pass it to a fake server's `setFallback`, or to `createWireFetch` with `deliver`). */
  handle(request: RecordedRequest): WireReply;
  /** Every request, with the status it got and the error message of a refusal. */
  readonly log: readonly ResponsesServerEntry[];
  /** Ids of the output items kept by `store: true` requests. */
  readonly storedItems: ReadonlySet<string>;
}

type Item = Record<string, unknown>;

const ENCRYPTED_REASONING = "reasoning.encrypted_content";

/** The rule the real API applies, close enough for the models the tests name. */
const isReasoningModel = (model: string) => /^(o\d|gpt-5|codex)/.test(model) && !model.includes("-chat");

/** Opaque to the client, checkable here: the item id and summary, base64url-encoded behind a marker. */
function encrypt(id: string, summary: string): string {
  return `gAAAAB${Buffer.from(JSON.stringify({ id, summary })).toString("base64url")}`;
}

function decryptsTo(blob: string, id: string): boolean {
  if (!blob.startsWith("gAAAAB")) return false;
  try {
    return (JSON.parse(Buffer.from(blob.slice(6), "base64url").toString("utf8")) as { id?: unknown }).id === id;
  } catch {
    return false;
  }
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null,
  ) {
    super(message);
  }
}

/**
 * A stateful Responses API for tests.
 *
 * @example
 * const api = createResponsesServer([{ reasoning: "Look it up.", call: { name: "get_weather", arguments: '{"city":"Paris"}' } }, { text: "Sunny." }]);
 * server.setFallback((request) => api.handle(request));
 */
export function createResponsesServer(turns: readonly ResponsesTurn[]): ResponsesServer {
  const log: ResponsesServerEntry[] = [];
  const storedItems = new Set<string>();
  let answered = 0;

  function check(body: Record<string, unknown>): void {
    const model = typeof body.model === "string" ? body.model : "";
    const include = Array.isArray(body.include) ? body.include : [];
    if (include.includes(ENCRYPTED_REASONING) && !isReasoningModel(model)) {
      throw new Refusal(400, `Encrypted reasoning content is not available for model ${model}.`, "include");
    }
    if (!Array.isArray(body.input)) throw new Refusal(400, "input must be a list of items.", "input");
    for (const item of body.input as Item[]) {
      if (item?.type !== "reasoning") continue;
      const id = String(item.id);
      if (typeof item.encrypted_content === "string") {
        if (!decryptsTo(item.encrypted_content, id)) {
          throw new Refusal(400, `The encrypted content of item '${id}' could not be verified.`, "input");
        }
      } else if (!storedItems.has(id)) {
        throw new Refusal(
          404,
          `Item with id '${id}' not found: items are kept only for requests with store set to true.`,
          "input",
        );
      }
    }
  }

  function answer(body: Record<string, unknown>): Item {
    const turn = turns[answered] ?? { text: "(no more turns scripted)" };
    answered += 1;
    const n = answered;
    const include = Array.isArray(body.include) ? body.include : [];
    const output: Item[] = [];
    if (turn.reasoning !== undefined) {
      const id = `rs_${n}`;
      output.push({
        type: "reasoning",
        id,
        summary: [{ type: "summary_text", text: turn.reasoning }],
        ...(include.includes(ENCRYPTED_REASONING) ? { encrypted_content: encrypt(id, turn.reasoning) } : {}),
      });
    }
    if (turn.call !== undefined) {
      const { name, arguments: args } = turn.call;
      output.push({
        type: "function_call",
        id: `fc_${n}`,
        call_id: `call_${n}`,
        name,
        arguments: args,
        status: "completed",
      });
    }
    if (turn.text !== undefined) {
      const content = [{ type: "output_text", text: turn.text, annotations: [] }];
      output.push({ type: "message", id: `msg_${n}`, status: "completed", role: "assistant", content });
    }
    const store = body.store !== false;
    if (store) for (const item of output) storedItems.add(String(item.id));
    const response: Item = {
      id: `resp_${n}`,
      object: "response",
      status: "completed",
      error: null,
      incomplete_details: null,
      model: body.model,
      store,
      output,
      usage: {
        input_tokens: 50 * n,
        output_tokens: 20,
        output_tokens_details: { reasoning_tokens: 12 },
        total_tokens: 50 * n + 20,
      },
    };
    return response;
  }

  return {
    log,
    storedItems,
    handle(request) {
      const body = (typeof request.body === "object" && request.body !== null ? request.body : {}) as Record<
        string,
        unknown
      >;
      try {
        check(body);
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        log.push({ body, status: error.status, error: error.message });
        return {
          status: error.status,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            error: { message: error.message, type: "invalid_request_error", param: error.param, code: null },
          }),
        };
      }
      log.push({ body, status: 200 });
      const response = answer(body);
      if (body.stream !== true) {
        return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(response) };
      }
      return { status: 200, headers: { "content-type": "text/event-stream" }, body: streamOf(response) };
    },
  };
}

/** The semantic events of a response, item by item, in two deltas per text. */
function streamOf(response: Item): string {
  const events: Item[] = [];
  const emit = (type: string, fields: Item) => events.push({ type, sequence_number: events.length, ...fields });
  const halves = (text: string) => [text.slice(0, Math.ceil(text.length / 2)), text.slice(Math.ceil(text.length / 2))];
  emit("response.created", { response: { ...response, status: "in_progress", output: [], usage: null } });
  (response.output as Item[]).forEach((item, output_index) => {
    const item_id = item.id;
    switch (item.type) {
      case "reasoning": {
        const { encrypted_content: _notYet, ...opening } = item;
        emit("response.output_item.added", { output_index, item: { ...opening, summary: [] } });
        const text = (item.summary as { text: string }[])[0]?.text ?? "";
        emit("response.reasoning_summary_part.added", { item_id, output_index, summary_index: 0 });
        for (const delta of halves(text)) {
          emit("response.reasoning_summary_text.delta", { item_id, output_index, summary_index: 0, delta });
        }
        emit("response.reasoning_summary_text.done", { item_id, output_index, summary_index: 0, text });
        break;
      }
      case "function_call":
        emit("response.output_item.added", { output_index, item: { ...item, arguments: "", status: "in_progress" } });
        for (const delta of halves(String(item.arguments))) {
          emit("response.function_call_arguments.delta", { item_id, output_index, delta });
        }
        emit("response.function_call_arguments.done", { item_id, output_index, arguments: item.arguments });
        break;
      default: {
        const text = (item.content as { text: string }[])[0]?.text ?? "";
        emit("response.output_item.added", { output_index, item: { ...item, content: [], status: "in_progress" } });
        emit("response.content_part.added", { item_id, output_index, content_index: 0 });
        for (const delta of halves(text)) {
          emit("response.output_text.delta", { item_id, output_index, content_index: 0, delta, logprobs: [] });
        }
        emit("response.output_text.done", { item_id, output_index, content_index: 0, text });
      }
    }
    emit("response.output_item.done", { output_index, item });
  });
  emit("response.completed", { response });
  return events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join("");
}
