import type { Context, Span, Tracer } from "@opentelemetry/api";
import { otel } from "./otel-api.js";
import type { PlannedSpan } from "./planned-span.js";

/**
 * Starts and ends `planned` and its descendants through `tracer`, with the log's times, `planned`
 * as a child of the span active in `parent` (none: a new trace). Returns the span and how many
 * spans were emitted.
 */
export function emitSpans(tracer: Tracer, planned: PlannedSpan, parent: Context): { span: Span; count: number } {
  const span = tracer.startSpan(
    planned.name,
    {
      kind: planned.kind === "client" ? otel.SpanKind.CLIENT : otel.SpanKind.INTERNAL,
      startTime: new Date(planned.start),
      attributes: planned.attributes,
    },
    parent,
  );
  for (const event of planned.events) span.addEvent(event.name, event.attributes, new Date(event.at));
  if (planned.status.code === "error") {
    span.setStatus({
      code: otel.SpanStatusCode.ERROR,
      ...(planned.status.message === undefined ? {} : { message: planned.status.message }),
    });
  }
  let count = 1;
  const inside = otel.trace.setSpan(parent, span);
  for (const child of planned.children) count += emitSpans(tracer, child, inside).count;
  // A span never ends before it starts, whatever the clocks of the events said.
  const start = Date.parse(planned.start);
  span.end(new Date(Math.max(start, Date.parse(planned.end))));
  return { span, count };
}
