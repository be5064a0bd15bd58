import { createHash } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { secretPlaceholder } from "./placeholder.js";
import { redact, redactError } from "./redact.js";
import { secret } from "./secret.js";
import { forgetSecretsForTesting, redactText, registerSecret } from "./secret-registry.js";

const KEY = "sk-live-0123456789abcdef";
const hashed = (value: string) => `[secret:sha256:${createHash("sha256").update(value).digest("hex").slice(0, 12)}]`;

beforeEach(() => forgetSecretsForTesting());

describe("redact", () => {
  it("returns the very value, unwalked, while nothing is registered", () => {
    const value = { a: [1, { b: KEY }] };
    expect(redact(value)).toBe(value);
  });

  it("replaces every occurrence of a registered secret in values and keys, copying only what changes", () => {
    registerSecret(KEY);
    const untouched = { n: 1, list: ["plain"] };
    const value = { header: `Bearer ${KEY}`, [KEY]: "as a key", nested: [{ deep: `${KEY}/${KEY}` }], untouched };
    const redacted = redact(value);
    expect(redacted).toEqual({
      header: `Bearer ${hashed(KEY)}`,
      [hashed(KEY)]: "as a key",
      nested: [{ deep: `${hashed(KEY)}/${hashed(KEY)}` }],
      untouched,
    });
    expect(redacted.untouched).toBe(untouched);
    expect(value.header).toBe(`Bearer ${KEY}`); // not mutated
    expect(JSON.stringify(redacted)).not.toContain(KEY);
  });

  it("ignores values shorter than 6 characters", () => {
    registerSecret("abc12");
    expect(redact({ text: "abc12" })).toEqual({ text: "abc12" });
  });

  it("redacts the JSON-escaped form of a secret with quotes or backslashes", () => {
    const tricky = 'pa"ss\\word';
    registerSecret(tricky);
    const inner = JSON.stringify({ password: tricky }); // a JSON document inside a string
    expect(redact({ inner }).inner).toBe(`{"password":"${hashed(tricky)}"}`);
    expect(redactText(`say ${tricky}`)).toBe(`say ${hashed(tricky)}`);
  });

  it("prefers the longer of two overlapping secrets", () => {
    registerSecret("secret-one");
    registerSecret("secret-one-and-more");
    expect(redactText("x secret-one-and-more y")).toBe(`x ${hashed("secret-one-and-more")} y`);
  });

  it("replaces secret() markers wherever they are, and registers their strings", () => {
    const marked = secret({ token: "tok-987654321" });
    expect(redact({ result: [marked] })).toEqual({ result: [marked.placeholder] });
    expect(JSON.stringify({ marked })).toBe(`{"marked":"${marked.placeholder}"}`);
    expect(String(secret("hunter2-long"))).toBe(secretPlaceholder("hunter2-long"));
    expect(redactText("echo tok-987654321")).toBe(`echo ${hashed("tok-987654321")}`);
    expect(marked.reveal()).toEqual({ token: "tok-987654321" });
  });

  it("keeps class instances and survives cycles", () => {
    registerSecret(KEY);
    const date = new Date(0);
    const cyclic: Record<string, unknown> = { text: KEY, date };
    cyclic.self = cyclic;
    const redacted = redact(cyclic);
    expect(redacted.text).toBe(hashed(KEY));
    expect(redacted.date).toBe(date);
  });

  it("finds a secret registered after the same text was found clean", () => {
    registerSecret("another-secret-value");
    const text = `token ${KEY}`;
    expect(redact({ text })).toEqual({ text });
    expect(redact({ text })).toEqual({ text });
    registerSecret(KEY);
    expect(redact({ text })).toEqual({ text: `token ${hashed(KEY)}` });
  });

  it("finds secrets in cyclic values deeper than 32 levels, and stops", () => {
    registerSecret(KEY);
    type Node = { next?: Node; note: string };
    const first: Node = { note: "start" };
    let last = first;
    for (let depth = 0; depth < 40; depth++) {
      const node: Node = { note: depth === 38 ? KEY : "plain" };
      last.next = node;
      last = node;
    }
    last.next = first;
    const redacted = redact(first);
    let node: Node | undefined = redacted;
    for (let depth = 0; depth < 39; depth++) node = node?.next;
    expect(node?.note).toBe(hashed(KEY));
  });

  it("redacts an error's message, stack and causes in place", () => {
    registerSecret(KEY);
    const error = new Error(`failed with ${KEY}`, { cause: new Error(`because ${KEY}`) });
    redactError(error);
    expect(error.message).toBe(`failed with ${hashed(KEY)}`);
    expect(error.stack).not.toContain(KEY);
    expect((error.cause as Error).message).toBe(`because ${hashed(KEY)}`);
  });

  it("costs little per event: the fast path, and a walk with secrets registered (measured, loosely bounded)", () => {
    const event = {
      toolCallId: "call_1",
      toolName: "lookup",
      result: {
        rows: Array.from({ length: 5 }, (_, index) => ({ id: index, name: `row ${index}`, tags: ["a", "b"] })),
      },
      isError: false,
    };
    const n = 20_000;
    let start = performance.now();
    for (let index = 0; index < n; index++) redact(event);
    const fast = ((performance.now() - start) * 1000) / n;
    for (let index = 0; index < 5; index++) registerSecret(`secret-value-${index}-abcdef`);
    start = performance.now();
    for (let index = 0; index < n; index++) redact(event);
    const walked = ((performance.now() - start) * 1000) / n;
    console.log(
      `redact per event: ${fast.toFixed(3)} µs with nothing registered, ${walked.toFixed(2)} µs with 5 secrets`,
    );
    expect(redact(event)).toBe(event); // nothing to replace: the same object
    expect(walked).toBeLessThan(1000); // far from a millisecond even on a loaded machine
  });
});

describe("redactError on a frozen error", () => {
  it("leaves it as it is instead of throwing", () => {
    registerSecret(KEY);
    const error = Object.freeze(new Error(`frozen ${KEY}`));
    expect(() => redactError(error)).not.toThrow();
  });
});
