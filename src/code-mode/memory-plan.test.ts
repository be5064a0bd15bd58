import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultLimits, resolveLimits } from "./limits.js";
import { memoryPlan, quickjsLayout, wasmPageBytes } from "./memory-plan.js";

/** The QuickJS build's imported memory minimum and its initial stack pointer, read from the module. */
function readLayout(bytes: Uint8Array) {
  let at = 8;
  const unsigned = () => {
    let value = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = bytes[at++] as number;
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  const name = () => {
    const length = unsigned();
    at += length;
  };
  let minimumPages: number | undefined;
  let heapBase: number | undefined;
  while (at < bytes.length) {
    const section = bytes[at++];
    const end = unsigned() + at;
    if (section === 2) {
      for (let count = unsigned(); count > 0; count--) {
        name();
        name();
        const kind = bytes[at++];
        if (kind === 0) unsigned();
        else if (kind === 2) {
          const flags = unsigned();
          minimumPages = unsigned();
          if (flags & 1) unsigned();
        } else throw new Error(`unexpected import kind ${kind}`);
      }
    }
    // The first global is emscripten's __stack_pointer: mutable i32, `i32.const <top of the C stack>`.
    if (section === 6 && unsigned() > 0 && bytes[at] === 0x7f && bytes[at + 1] === 1 && bytes[at + 2] === 0x41) {
      at += 3;
      heapBase = unsigned();
    }
    at = end;
  }
  return { minimumPages, heapBase };
}

describe("the sandbox's memory plan", () => {
  it("matches the layout of the QuickJS build in use (memory minimum, end of static data and C stack)", () => {
    const variant = createRequire(import.meta.url).resolve("@jitl/quickjs-wasmfile-release-sync");
    const layout = readLayout(readFileSync(join(dirname(variant), "emscripten-module.wasm")));
    expect(layout).toEqual({ minimumPages: quickjsLayout.minimumPages, heapBase: quickjsLayout.heapBase });
  });

  it("starts the memory at static data, C stack and memoryBytes of heap, with a headroom for reading results out", () => {
    const plan = memoryPlan(defaultLimits);
    const heap = plan.initialPages * wasmPageBytes - quickjsLayout.heapBase;
    expect(heap).toBeGreaterThanOrEqual(defaultLimits.memoryBytes);
    expect(heap - defaultLimits.memoryBytes).toBeLessThan(wasmPageBytes);
    expect((plan.maximumPages - plan.initialPages) * wasmPageBytes).toBeGreaterThanOrEqual(
      1024 * 1024 + 6 * defaultLimits.maxOutputBytes,
    );
    expect(plan).toEqual({ initialPages: 1106, maximumPages: 1146 });
  });

  it("never plans past the 2 GiB the build can address, even for the largest limits", () => {
    const plan = memoryPlan(resolveLimits({ memoryBytes: 1792 * 1024 * 1024, maxOutputBytes: 2 ** 30 }));
    expect(plan.maximumPages).toBe(32_768);
    expect(plan.initialPages).toBeLessThan(plan.maximumPages);
  });

  it("refuses memoryBytes outside 16 MiB to 1.75 GiB at definition time", () => {
    expect(() => resolveLimits({ memoryBytes: 8 * 1024 * 1024 })).toThrow(/memoryBytes must be between/);
    expect(() => resolveLimits({ memoryBytes: 1793 * 1024 * 1024 })).toThrow(/memoryBytes must be between/);
  });
});
