import { AsyncLocalStorage } from "node:async_hooks";
import { type Context, type ContextManager, context, ROOT_CONTEXT, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

/** A tracer whose finished spans an in-memory exporter keeps. */
export function memoryTracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, provider, tracer: provider.getTracer("nous-test") };
}

/** The test's context manager: `context.with` over AsyncLocalStorage (what the Node SDK registers). */
class StorageContextManager implements ContextManager {
  readonly #storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.#storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    value: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run(value, () => fn.call(thisArg, ...args));
  }
  bind<T>(_context: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.#storage.disable();
    return this;
  }
}

/** Registers the AsyncLocalStorage context manager globally (once per test file). */
export function enableContext(): void {
  context.setGlobalContextManager(new StorageContextManager());
}

/** A span as the tests compare it: everything but ids, children nested under their parent. */
export interface SpanNode {
  readonly name: string;
  readonly kind: "internal" | "client" | "other";
  readonly status: "unset" | "ok" | "error";
  readonly start: number;
  readonly end: number;
  readonly attributes: Record<string, unknown>;
  readonly events: readonly { readonly name: string; readonly attributes: Record<string, unknown> }[];
  readonly children: SpanNode[];
}

/** The exported spans as trees (roots: spans whose parent was not exported), children in start order. */
export function spanTrees(spans: readonly ReadableSpan[]): SpanNode[] {
  const nodes = new Map<string, SpanNode>();
  for (const span of spans) {
    nodes.set(span.spanContext().spanId, {
      name: span.name,
      kind: span.kind === SpanKind.INTERNAL ? "internal" : span.kind === SpanKind.CLIENT ? "client" : "other",
      status:
        span.status.code === SpanStatusCode.ERROR ? "error" : span.status.code === SpanStatusCode.OK ? "ok" : "unset",
      start: span.startTime[0] * 1e3 + span.startTime[1] / 1e6,
      end: span.endTime[0] * 1e3 + span.endTime[1] / 1e6,
      attributes: { ...span.attributes },
      events: span.events.map((event) => ({ name: event.name, attributes: { ...event.attributes } })),
      children: [],
    });
  }
  const roots: SpanNode[] = [];
  for (const span of spans) {
    const node = nodes.get(span.spanContext().spanId) as SpanNode;
    const parent = span.parentSpanContext === undefined ? undefined : nodes.get(span.parentSpanContext.spanId);
    (parent?.children ?? roots).push(node);
  }
  const order = (list: SpanNode[]) => {
    list.sort((left, right) => left.start - right.start);
    for (const node of list) order(node.children);
  };
  order(roots);
  return roots;
}

/** A tree as indented lines: `name (kind) status`, for exact comparison. */
export function outline(nodes: readonly SpanNode[], depth = 0): string[] {
  return nodes.flatMap((node) => [
    `${"  ".repeat(depth)}${node.name} (${node.kind})${node.status === "error" ? ` error ${String(node.attributes["error.type"])}` : ""}`,
    ...outline(node.children, depth + 1),
  ]);
}

/** Every attribute and event attribute value of the spans, as one string (for "never contains" checks). */
export function allAttributeText(spans: readonly ReadableSpan[]): string {
  return JSON.stringify(
    spans.map((span) => [span.name, span.attributes, span.events.map((event) => event.attributes)]),
  );
}
