/**
 * The chat page: the AI SDK's own `Chat` machinery (`AbstractChat` + `DefaultChatTransport` from the
 * `ai` package, unchanged) talking to the Nous handler, rendered without a framework. Bundled by
 * esbuild when the server starts.
 *
 * Reconnects: the page keeps the last `data-nous-cursor` it received. After a network disconnect the
 * Chat keeps the half-received message, so `resumeStream()` sends the cursor and gets only the rest;
 * on a fresh load it sends none and the server replays the answer in flight, which replaces the
 * message of the same id.
 */
import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from "ai";

interface Cursor {
  readonly seq: number;
  readonly part: number;
  readonly chars: number;
  readonly open?: string;
}

/** The chat's state, rendering on every change. */
class PageState implements ChatState<UIMessage> {
  #status: ChatStatus = "ready";
  #error: Error | undefined;
  #messages: UIMessage[];
  readonly #changed: () => void;

  constructor(messages: UIMessage[], changed: () => void) {
    this.#messages = messages;
    this.#changed = changed;
  }

  get status(): ChatStatus {
    return this.#status;
  }
  set status(status: ChatStatus) {
    this.#status = status;
    this.#changed();
  }
  get error(): Error | undefined {
    return this.#error;
  }
  set error(error: Error | undefined) {
    this.#error = error;
    this.#changed();
  }
  get messages(): UIMessage[] {
    return this.#messages;
  }
  set messages(messages: UIMessage[]) {
    this.#messages = [...messages];
    this.#changed();
  }
  pushMessage = (message: UIMessage): void => {
    this.messages = [...this.#messages, message];
  };
  popMessage = (): void => {
    this.messages = this.#messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage): void => {
    this.messages = this.#messages.map((old, at) => (at === index ? structuredClone(message) : old));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

class PageChat extends AbstractChat<UIMessage> {}

const API = "/api/chat";
const params = new URLSearchParams(location.search);
const chatId = params.get("chat") ?? crypto.randomUUID();
let cursor: Cursor | undefined;
let resumable = false;

function element<T extends HTMLElement>(selector: string): T {
  const found = document.querySelector<T>(selector);
  if (found === null) throw new Error(`missing ${selector}`);
  return found;
}

function render(): void {
  const list = element<HTMLOListElement>("#messages");
  list.replaceChildren(...(window.chat?.messages ?? []).map(renderMessage));
  element<HTMLElement>("#status").textContent = window.chat?.status ?? "ready";
}

function renderMessage(message: UIMessage): HTMLLIElement {
  const item = document.createElement("li");
  item.dataset.role = message.role;
  item.dataset.id = message.id;
  for (const part of message.parts) {
    if (part.type === "text") {
      const text = document.createElement("span");
      text.className = "text";
      text.textContent = part.text;
      item.append(text);
    } else if (part.type.startsWith("tool-") && "toolCallId" in part) {
      item.append(renderTool(part as ToolPart));
    }
  }
  return item;
}

interface ToolPart {
  readonly type: string;
  readonly toolCallId: string;
  readonly state: string;
  readonly input?: unknown;
  readonly output?: unknown;
  readonly errorText?: string;
  readonly approval?: { readonly id: string; readonly approved?: boolean };
}

function renderTool(part: ToolPart): HTMLElement {
  const box = document.createElement("div");
  box.className = "tool";
  box.dataset.toolCallId = part.toolCallId;
  box.dataset.state = part.state;
  const line = (className: string, text: string) => {
    const span = document.createElement("code");
    span.className = className;
    span.textContent = text;
    box.append(span);
  };
  line("name", part.type.slice("tool-".length));
  line("input", JSON.stringify(part.input ?? null));
  if (part.state === "output-available") line("output", JSON.stringify(part.output));
  if (part.state === "output-error") line("output", part.errorText ?? "");
  if (part.state === "output-denied") line("output", "denied");
  if (part.state === "approval-requested" && part.approval !== undefined) {
    const id = part.approval.id;
    for (const approved of [true, false]) {
      const button = document.createElement("button");
      button.textContent = approved ? "Approve" : "Deny";
      button.className = approved ? "approve" : "deny";
      button.addEventListener("click", () => {
        void window.chat?.addToolApprovalResponse({
          id,
          approved,
          ...(approved ? {} : { reason: "denied on the page" }),
        });
      });
      box.append(button);
    }
  }
  return box;
}

/** The cursor as the reconnect's query parameters (`seq`, `part`, `chars`, and `open` when set). */
function cursorQuery(at: Cursor): URLSearchParams {
  const query = new URLSearchParams({ seq: `${at.seq}`, part: `${at.part}`, chars: `${at.chars}` });
  if (at.open !== undefined) query.set("open", at.open);
  return query;
}

async function start(): Promise<void> {
  const response = await fetch(`/api/chats/${encodeURIComponent(chatId)}/messages`);
  const messages = (await response.json()) as UIMessage[];
  // `?mode=replay`: the transport as it comes (every reconnect replays the answer, which replaces the message).
  const transport =
    params.get("mode") === "replay"
      ? new DefaultChatTransport<UIMessage>({ api: API })
      : new DefaultChatTransport<UIMessage>({
          api: API,
          resumeStreamIsReplay: false,
          prepareReconnectToStreamRequest: ({ id }) => {
            const query = resumable && cursor !== undefined ? `?${cursorQuery(cursor)}` : "";
            return { api: `${API}/${encodeURIComponent(id)}/stream${query}` };
          },
        });
  window.chat = new PageChat({
    id: chatId,
    transport,
    state: new PageState(messages, render),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onData: (part) => {
      if (part.type === "data-nous-cursor") cursor = part.data as Cursor;
    },
    onFinish: ({ isDisconnect }) => {
      resumable = isDisconnect;
    },
  });
  window.chatId = chatId;
  render();
  element<HTMLFormElement>("#composer").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = element<HTMLInputElement>("#prompt");
    const text = input.value.trim();
    if (text === "") return;
    input.value = "";
    void window.chat?.sendMessage({ text });
  });
  document.body.dataset.ready = "true";
  // A fresh page follows the run still going, if any (the server answers 204 when none is).
  if (messages.length > 0) await window.chat.resumeStream();
}

declare global {
  interface Window {
    chat?: PageChat;
    chatId?: string;
  }
}

void start();
