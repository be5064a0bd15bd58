import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { UnsupportedSchemaError } from "../errors/user-errors.js";
import { compileSchema } from "../tools/schema.js";
import type { JsonSchema } from "./model.js";
import { sampleFromSchema } from "./schema-sample.js";

/** The JSON Schema a tool with this zod input sends to the model. */
function exported(schema: z.ZodType): JsonSchema {
  return compileSchema(schema, "test").jsonSchema;
}

function sampleOf(schema: z.ZodType): unknown {
  return sampleFromSchema(exported(schema));
}

function expectValid(schema: z.ZodType): void {
  const value = sampleOf(schema);
  const parsed = schema.safeParse(value);
  expect(parsed.success, `${JSON.stringify(value)} for ${JSON.stringify(exported(schema))}`).toBe(true);
}

describe("TestModel samples", () => {
  it("fit tuples (prefixItems, with and without a rest, items: false)", () => {
    expectValid(z.tuple([z.string(), z.number().min(5), z.boolean()]));
    expectValid(z.tuple([z.string()], z.number()));
    expectValid(z.tuple([]));
    expect(sampleOf(z.tuple([z.literal("a"), z.literal(2)]))).toEqual(["a", 2]);
  });

  it("fit maxItems, maxLength 0 and an empty enum-keyed record", () => {
    expectValid(z.array(z.string()).max(0));
    expectValid(z.array(z.number()).min(3).max(4));
    expectValid(z.string().max(0));
    expectValid(z.string().min(10).max(12));
    expectValid(z.record(z.enum(["a", "b"]), z.number()));
  });

  it("end recursive schemas ($ref) with a valid value", () => {
    type Tree = { name: string; children: Tree[] };
    const tree: z.ZodType<Tree> = z.lazy(() => z.object({ name: z.string(), children: z.array(tree) }));
    expectValid(z.object({ root: tree }));
  });

  it("make distinct items for uniqueItems, or name the keyword", () => {
    const distinct = sampleFromSchema({ type: "array", items: { type: "string" }, minItems: 3, uniqueItems: true });
    expect(new Set(distinct as string[]).size).toBe(3);
    const numbers = sampleFromSchema({ type: "array", items: { type: "integer" }, minItems: 3, uniqueItems: true });
    expect(new Set(numbers as number[]).size).toBe(3);
    const impossible = () =>
      sampleFromSchema({ type: "array", items: { type: "boolean" }, minItems: 3, uniqueItems: true });
    expect(impossible).toThrow(UnsupportedSchemaError);
    expect(impossible).toThrow(expect.objectContaining({ keyword: "uniqueItems", path: "#" }));
  });

  it("name the unsupported keyword and its place instead of producing an invalid value", () => {
    const schema = z.object({ id: z.string().regex(/^c_\d+$/) });
    expect(() => sampleOf(schema)).toThrow(
      expect.objectContaining({ code: "unsupported_schema", keyword: "pattern", path: "#/properties/id" }),
    );
    expect(() => sampleOf(z.object({ nothing: z.never() }))).toThrow(expect.objectContaining({ keyword: "not" }));
    expect(() => sampleFromSchema({ type: "array", items: false, minItems: 1 })).toThrow(
      expect.objectContaining({ keyword: "minItems" }),
    );
  });

  it("are valid for every schema zod 4 exports (a property over generated schemas)", () => {
    const schema = fc.letrec<{ schema: z.ZodType }>((tie) => ({
      schema: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        leaf(),
        fc.tuple(tie("schema"), fc.nat(3), fc.option(fc.nat(4))).map(([item, min, extra]) => {
          const list = z.array(item).min(min);
          return extra === null ? list : list.max(min + extra);
        }),
        fc
          .tuple(fc.array(tie("schema"), { maxLength: 3 }), fc.option(tie("schema")))
          .map(([items, rest]) =>
            rest === null ? z.tuple(items as [z.ZodType]) : z.tuple(items as [z.ZodType], rest),
          ),
        fc
          .dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.tuple(tie("schema"), fc.boolean()), { maxKeys: 4 })
          .map((shape) =>
            z.object(
              Object.fromEntries(
                Object.entries(shape).map(([key, [value, optional]]) => [key, optional ? value.optional() : value]),
              ),
            ),
          ),
        tie("schema").map((inner) => inner.nullable()),
        fc.tuple(tie("schema"), tie("schema")).map(([a, b]) => z.union([a, b])),
        tie("schema").map((inner) => z.record(z.enum(["x", "y"]), inner)),
        tie("schema").map((inner) => z.record(z.string(), inner)),
        fc
          .tuple(tie("schema"), tie("schema"))
          .map(([a, b]) => z.intersection(z.object({ left: a }), z.object({ right: b }))),
        fc
          .tuple(tie("schema"), tie("schema"))
          .map(([a, b]) =>
            z.discriminatedUnion("kind", [
              z.object({ kind: z.literal("a"), a }),
              z.object({ kind: z.literal("b"), b }),
            ]),
          ),
      ),
    })).schema;
    fc.assert(
      fc.property(schema, (generated) => {
        let value: unknown;
        try {
          value = sampleOf(generated);
        } catch (error) {
          throw new Error(`${JSON.stringify(exported(generated))}: ${(error as Error).message}`);
        }
        const parsed = generated.safeParse(value);
        if (!parsed.success) {
          throw new Error(`${JSON.stringify(value)} fails ${JSON.stringify(exported(generated))}`);
        }
      }),
      // SAMPLE_RUNS=20000 for a longer search.
      { numRuns: Number(process.env.SAMPLE_RUNS ?? 300) },
    );
  });
});

function leaf(): fc.Arbitrary<z.ZodType> {
  const length = fc.tuple(fc.nat(8), fc.nat(8));
  return fc.oneof(
    length.map(([min, extra]) =>
      z
        .string()
        .min(min)
        .max(min + extra),
    ),
    fc.nat(8).map((max) => z.string().max(max)),
    fc.constantFrom<z.ZodType>(
      z.string(),
      z.email(),
      z.uuid(),
      z.iso.date(),
      z.iso.datetime(),
      z.iso.time(),
      z.url(),
      z.string().toLowerCase(),
      z.boolean(),
      z.null(),
      z.int(),
      z.number().positive(),
      z.number().negative(),
      z.int().nonnegative(),
      z.literal("fixed"),
      z.enum(["one", "two"]),
      z.string().default("given"),
    ),
    fc
      .tuple(fc.integer({ min: -50, max: 50 }), fc.nat(40), fc.boolean())
      .map(([min, span, integer]) => (integer ? z.int() : z.number()).min(min).max(min + span)),
    // A multiple within the bounds exists: the minimum is one.
    fc
      .tuple(fc.integer({ min: -20, max: 20 }), fc.nat(40), fc.constantFrom(2, 3, 0.5))
      .map(([k, span, step]) =>
        z
          .number()
          .min(k * step)
          .max(k * step + span)
          .multipleOf(step),
      ),
    fc
      .tuple(fc.integer({ min: -50, max: 50 }), fc.integer({ min: 1, max: 40 }), fc.boolean())
      .map(([low, span, integer]) =>
        integer
          ? z
              .int()
              .gt(low)
              .lt(low + span + 1)
          : z
              .number()
              .gt(low)
              .lt(low + span),
      ),
  );
}
