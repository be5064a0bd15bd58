/**
 * JSON with object keys sorted and `undefined` members left out, so equal values always give the
 * same text (what hashes of definitions and arguments are taken over).
 *
 * @example
 * canonicalJson({ b: 1, a: [true, null] }); // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
      return canonicalJson((value as { toJSON(): unknown }).toJSON());
    }
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined && typeof item !== "function")
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
