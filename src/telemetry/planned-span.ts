/** A span attribute's value, as OpenTelemetry takes it. */
export type SpanAttributeValue = string | number | boolean | string[];

/** A span's attributes by name. */
export type SpanAttributes = Record<string, SpanAttributeValue>;

/** A point in a span's life: a retry, a fallback, an approval asked or decided. */
export interface PlannedSpanEvent {
  readonly name: string;
  /** ISO 8601: the `at` of the log event it comes from. */
  readonly at: string;
  readonly attributes: SpanAttributes;
}

/**
 * A span as the session log describes it, before any tracer sees it: the builder's output. Start
 * and end are the `at` of the log events that opened and closed it; `status` is "error" for a
 * failure and "unset" otherwise (the GenAI conventions leave a success unset).
 */
export interface PlannedSpan {
  readonly name: string;
  readonly kind: "internal" | "client";
  readonly start: string;
  end: string;
  readonly attributes: SpanAttributes;
  status: { readonly code: "unset" | "error"; readonly message?: string };
  readonly events: PlannedSpanEvent[];
  readonly children: PlannedSpan[];
}

/** A new open span (it ends where it starts until something closes it). */
export function plannedSpan(
  name: string,
  kind: PlannedSpan["kind"],
  start: string,
  attributes: SpanAttributes,
): PlannedSpan {
  return { name, kind, start, end: start, attributes, status: { code: "unset" }, events: [], children: [] };
}

/** Marks a span failed: status error, `error.type` set to the error's code. */
export function failSpan(span: PlannedSpan, errorType: string, message?: string): void {
  span.status = message === undefined ? { code: "error" } : { code: "error", message };
  span.attributes["error.type"] = errorType;
}
