import { readdirSync, readFileSync, statSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join, relative } from "node:path";
import ts from "typescript";

/** The modules (relative to `root`) and bare packages reachable from an entry file. */
export interface ImportGraph {
  readonly modules: Set<string>;
  readonly packages: Set<string>;
  /** The Node built-ins (`node:fs`, or a bare `fs`) each importing module names: module → specifiers. */
  readonly builtins: Map<string, string[]>;
}

/**
 * What importing `entry` loads: every module reachable through the imports and re-exports that
 * survive compilation (with `verbatimModuleSyntax`, only `import type` / `export type` are erased),
 * and the bare packages they name. Dynamic `import()`s are lazy: followed only with `dynamic: true`
 * (what the entry may load later, on first use).
 *
 * @example
 * importGraph("src/index.ts", "src").packages.has("zod"); // false
 */
export function importGraph(entry: string, root: string, options: { dynamic?: boolean } = {}): ImportGraph {
  const modules = new Set<string>();
  const packages = new Set<string>();
  const builtins = new Map<string, string[]>();
  const follow = (file: string, target: string) => {
    if (target.startsWith(".")) visit(join(dirname(file), target.replace(/\.js$/, ".ts")));
    else if (target.startsWith("node:") || isBuiltin(target)) {
      const name = relative(root, file);
      builtins.set(name, [...(builtins.get(name) ?? []), target]);
    } else
      packages.add(target.startsWith("@") ? target.split("/").slice(0, 2).join("/") : (target.split("/")[0] ?? ""));
  };
  const visit = (file: string) => {
    const name = relative(root, file);
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
      if (specifier !== undefined && ts.isStringLiteral(specifier)) follow(file, specifier.text);
    }
    if (!options.dynamic) return;
    const lazy = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [argument] = node.arguments;
        if (argument !== undefined && ts.isStringLiteral(argument)) follow(file, argument.text);
      }
      ts.forEachChild(node, lazy);
    };
    lazy(parsed);
  };
  visit(entry);
  return { modules, packages, builtins };
}

/**
 * The import circles among the modules under `root`: each strongly connected group of two or more
 * modules, counting every import and re-export (type-only ones too: a circle of types is still a
 * circle of concepts). Folders named `fixtures` are left out. Empty when the graph is a DAG.
 *
 * @example
 * importCircles("src"); // [] — or [["a.ts", "b.ts"]] when a.ts and b.ts import each other
 */
export function importCircles(root: string): string[][] {
  const edges = new Map<string, string[]>();
  const walk = (directory: string) => {
    for (const name of readdirSync(directory)) {
      const path = join(directory, name);
      if (statSync(path).isDirectory()) {
        if (name !== "fixtures") walk(path);
      } else if (name.endsWith(".ts") && !name.endsWith(".d.ts"))
        edges.set(relative(root, path), importsOf(path, root));
    }
  };
  walk(root);
  // Tarjan's algorithm, iterative over an explicit stack of (node, next edge) frames.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const circles: string[][] = [];
  let counter = 0;
  for (const start of edges.keys()) {
    if (index.has(start)) continue;
    const frames: [string, number][] = [[start, 0]];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as [string, number];
      const [node, next] = frame;
      const targets = (edges.get(node) ?? []).filter((target) => edges.has(target));
      if (next < targets.length) {
        frame[1] = next + 1;
        const target = targets[next] as string;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          frames.push([target, 0]);
        } else if (onStack.has(target)) {
          low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent !== undefined) low.set(parent[0], Math.min(low.get(parent[0]) ?? 0, low.get(node) ?? 0));
      if (low.get(node) !== index.get(node)) continue;
      const group: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) circles.push(group.sort());
    }
  }
  return circles;
}

/** The modules under `root` that `file` imports or re-exports (relative specifiers only, types included). */
function importsOf(file: string, root: string): string[] {
  const parsed = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022);
  const found: string[] = [];
  for (const statement of parsed.statements) {
    const specifier =
      ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement.moduleSpecifier : undefined;
    if (specifier !== undefined && ts.isStringLiteral(specifier) && specifier.text.startsWith(".")) {
      found.push(relative(root, join(dirname(file), specifier.text.replace(/\.js$/, ".ts"))));
    }
  }
  return found;
}
