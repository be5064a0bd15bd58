import { describe, expect, it } from "vitest";
import { z } from "zod";
import { tool } from "../tools/tool.js";
import { schemaToType, toolDeclarations } from "./declarations.js";

describe("TypeScript declarations from JSON Schema", () => {
  it("covers the schema shapes tools use", () => {
    expect(schemaToType({ type: "string" })).toBe("string");
    expect(schemaToType({ type: ["integer", "null"] })).toBe("number | null");
    expect(schemaToType({ enum: ["a", "b"] })).toBe('"a" | "b"');
    expect(schemaToType({ const: 3 })).toBe("3");
    expect(schemaToType({ type: "array", items: { type: "number" } })).toBe("number[]");
    expect(schemaToType({ type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } })).toBe(
      "Array<string | number>",
    );
    expect(schemaToType({ type: "array", prefixItems: [{ type: "string" }, { type: "boolean" }] })).toBe(
      "[string, boolean]",
    );
    expect(schemaToType({ type: "object", additionalProperties: { type: "number" } })).toBe(
      "{\n  [key: string]: number;\n}",
    );
    expect(schemaToType({ type: "object", properties: {} })).toBe("Record<string, never>");
    expect(schemaToType({ $ref: "#/x" })).toBe("unknown");
    expect(schemaToType({ allOf: [{ type: "object", properties: { a: { type: "string" } }, required: ["a"] }] })).toBe(
      "{\n  a: string;\n}",
    );
  });

  it("declares zod tools, quoting odd names and neutralizing comment terminators", () => {
    const odd = tool({
      name: "get-weather",
      description: "Weather */ now",
      input: z.object({ city: z.string(), "max-days": z.number().int().optional(), units: z.enum(["c", "f"]) }),
      execute: () => null,
    });
    expect(toolDeclarations([odd])).toBe(
      [
        "declare const tools: {",
        "  /** Weather *\\/ now */",
        '  "get-weather"(args: {',
        "    city: string;",
        '    "max-days"?: number;',
        '    units: "c" | "f";',
        "  }): Promise<unknown>;",
        "};",
      ].join("\n"),
    );
  });
});
