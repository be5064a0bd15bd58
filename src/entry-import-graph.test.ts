import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const source = dirname(fileURLToPath(import.meta.url));

/**
 * What importing `entry` loads: every module reachable through the imports and re-exports that
 * survive compilation (with `verbatimModuleSyntax`, only `import type` / `export type` are erased),
 * and the bare packages they name. Dynamic `import()`s are lazy and not followed.
 */
function loadedOnImport(entry: string): { modules: Set<string>; packages: Set<string> } {
  const modules = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    const name = relative(source, file);
    if (modules.has(name)) return;
    modules.add(name);
    const parsed = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022);
    for (const statement of parsed.statements) {
      let specifier: ts.Expression | undefined;
      if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) {
        specifier = statement.moduleSpecifier;
      } else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) {
        specifier = statement.moduleSpecifier;
      }
      if (specifier === undefined || !ts.isStringLiteral(specifier)) continue;
      const target = specifier.text;
      if (target.startsWith(".")) visit(join(dirname(file), target.replace(/\.js$/, ".ts")));
      else
        packages.add(target.startsWith("@") ? target.split("/").slice(0, 2).join("/") : (target.split("/")[0] ?? ""));
    }
  };
  visit(entry);
  return { modules, packages };
}

describe("the main entry's import graph", () => {
  const { modules, packages } = loadedOnImport(join(source, "index.ts"));

  it("is what the package loads (sanity check of the walk)", () => {
    expect(modules.has("agent.ts")).toBe(true);
    expect(modules.has("models/providers/anthropic.ts")).toBe(true);
    expect(packages.has("@cfworker/json-schema")).toBe(true);
  });

  it("does not load zod: provider answers are checked by shared/wire-check.ts, the sub-agent input is hand-written", () => {
    expect(packages.has("zod")).toBe(false);
  });

  it("loads the SSE parser and each provider's request, response and stream code only on a first request", () => {
    expect(packages.has("eventsource-parser")).toBe(false);
    const wireCode = [...modules].filter(
      (name) =>
        /^models\/providers\/.*-(request|response|stream|errors|wire)\.ts$/.test(name) ||
        name.endsWith("/wire-check.ts"),
    );
    expect(wireCode).toEqual([]);
  });

  it("keeps test and store drivers out", () => {
    for (const name of ["better-sqlite3", "pg", "vitest", "typescript", "fast-check"]) {
      expect(packages.has(name)).toBe(false);
    }
  });
});
