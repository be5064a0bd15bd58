import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { importGraph } from "../test-support/import-graph.js";

const source = join(dirname(fileURLToPath(import.meta.url)), "..");
/** Node-only globals: a browser or edge worker has none of them. */
const nodeGlobals = new Set(["process", "Buffer", "require", "__dirname", "__filename"]);
/** The one module that may touch `process`: it does so through `globalThis`, when called. */
const gateway = "platform/node-builtin.ts";

/** Each Node-only global a module names in code (comments aside), and whether at module level (run at import). */
function nodeGlobalUses(file: string): { name: string; line: number; atImport: boolean }[] {
  const parsed = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
  const uses: { name: string; line: number; atImport: boolean }[] = [];
  const visit = (node: ts.Node, inFunction: boolean): void => {
    if (ts.isTypeNode(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) return;
    if (ts.isIdentifier(node) && nodeGlobals.has(node.text) && isValueReference(node)) {
      const line = parsed.getLineAndCharacterOfPosition(node.getStart(parsed)).line + 1;
      uses.push({ name: node.text, line, atImport: !inFunction });
    }
    const entersFunction = ts.isFunctionLike(node) || ts.isClassStaticBlockDeclaration(node);
    // Class field initializers run at construction, not at import (static ones do run at import).
    const instanceField =
      ts.isPropertyDeclaration(node) && !node.modifiers?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword);
    ts.forEachChild(node, (child) => visit(child, inFunction || entersFunction || instanceField));
  };
  visit(parsed, false);
  return uses;
}

function isValueReference(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false;
  if (ts.isQualifiedName(parent) && parent.right === node) return false;
  if (
    (ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) || ts.isMethodDeclaration(parent)) &&
    parent.name === node
  )
    return false;
  if (ts.isPropertySignature(parent) || ts.isBindingElement(parent) || ts.isParameter(parent))
    return parent.name !== node;
  if (ts.isVariableDeclaration(parent) && parent.name === node) return false;
  return true;
}

describe("the main entry runs in browsers and edge runtimes", () => {
  const { modules, builtins } = importGraph(join(source, "index.ts"), source);

  it("imports no Node built-in statically (they load lazily, behind the entry points that need them)", () => {
    expect(modules.size).toBeGreaterThan(100);
    expect(Object.fromEntries(builtins)).toEqual({});
  });

  it("reads no process.env (nor any Node-only global) at import time, and touches process only through platform/node-builtin.ts", () => {
    const found: string[] = [];
    for (const module of modules) {
      for (const use of nodeGlobalUses(join(source, module))) {
        if (use.atImport || module !== gateway)
          found.push(`${module}:${use.line} ${use.name}${use.atImport ? " (at import)" : ""}`);
      }
    }
    expect(found).toEqual([]);
  });

  it("the checks catch what they guard against (a static node: import, a module-level process.env read)", () => {
    const fixture = join(source, "package", "fixtures", "node-only-core.ts");
    const graph = importGraph(fixture, source);
    expect(Object.fromEntries(graph.builtins)).toEqual({ "package/fixtures/node-only-core.ts": ["node:crypto"] });
    expect(nodeGlobalUses(fixture)).toEqual([
      { name: "process", line: 4, atImport: true },
      { name: "Buffer", line: 7, atImport: false },
    ]);
  });
});
