import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";

/** The modules (relative to `root`) and bare packages reachable from an entry file. */
export interface ImportGraph {
  readonly modules: Set<string>;
  readonly packages: Set<string>;
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
  const follow = (file: string, target: string) => {
    if (target.startsWith(".")) visit(join(dirname(file), target.replace(/\.js$/, ".ts")));
    else if (!target.startsWith("node:"))
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
  return { modules, packages };
}
