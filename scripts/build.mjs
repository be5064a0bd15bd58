// `npm run build`: tsc emits the declarations (dist/**/*.d.ts, the layout of src/), esbuild the
// JavaScript. Each entry of the exports map, the CLI bin and both default-store seams (package.json
// `browser` field) become one file; code shared by several lives once in dist/chunks/ (one copy of
// every class, so `instanceof` holds across entries). Dependencies and peers stay external, but for
// the two small internal ones in `inlined` below.
// Why: Node loads each ES module file on its own; the core entry was ~230 files (~120 ms cold).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = resolve(import.meta.dirname, "..");
const dist = join(root, "dist");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** ./dist/x/y.js → src/x/y.ts */
const sourceOf = (path) => join(root, path.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"));
const entryFiles = [
  ...Object.values(manifest.exports).flatMap((target) => (typeof target === "string" ? [] : [target.import])),
  ...Object.values(manifest.bin),
  ...Object.entries(manifest.browser).flat(),
];
// Files bundlers swap by path (the `browser` field): imported by that path, never inlined.
const seams = new Map(Object.keys(manifest.browser).map((path) => [sourceOf(path), join(root, path)]));

/** Imports of a seam stay imports of its built file, written relative to each output file below. */
const keepSeams = {
  name: "keep-seams",
  setup(builder) {
    builder.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind === "entry-point") return undefined;
      const target = seams.get(resolve(args.resolveDir, args.path).replace(/\.js$/, ".ts"));
      return target === undefined ? undefined : { path: target, external: true };
    });
  },
};

/**
 * esbuild puts the modules reached from the same set of entries (lazily imported modules count as
 * entries) in one chunk, so the core entry's ~200 modules came out in ~40 chunks. Each entry and
 * lazily imported module gets a bare `import "nous-core"` appended (no line moves: the maps stay
 * true): every core module is then reached from every entry, and the core is one chunk. esbuild
 * drops the import itself from the output (the package has no side effects); what remains is that
 * an entry using any core module loads the whole core chunk (nous/testing alone: a few ms more;
 * beside the core, as it runs, nothing). `checkCoreLayout` below fails the build if the layout
 * ever comes out otherwise.
 */
const core = join(root, "src/index.ts");
const coreFirst = (anchored) => ({
  name: "core-first",
  setup(builder) {
    builder.onResolve({ filter: /^nous-core$/ }, () => ({ path: core }));
    builder.onLoad({ filter: /\.ts$/ }, (args) => {
      if (!anchored.has(args.path) || args.path === core) return undefined;
      return { contents: `${readFileSync(args.path, "utf8")}\nimport "nous-core";\n`, loader: "ts" };
    });
  },
});

/**
 * Packages whose code goes into the build instead of being imported at run time: small, used
 * internally only (no public type mentions them), and together 15 files Node would otherwise
 * resolve and load one by one at every cold start. They are devDependencies for that reason.
 */
const inlined = new Set(["@cfworker/json-schema", "@noble/hashes"]);
const externalPackages = [
  ...Object.keys(manifest.dependencies ?? {}),
  ...Object.keys(manifest.peerDependencies ?? {}),
  ...Object.keys(manifest.optionalDependencies ?? {}),
]
  .filter((name) => !inlined.has(name))
  .flatMap((name) => [name, `${name}/*`]);

const options = {
  absWorkingDir: root,
  entryPoints: entryFiles.map(sourceOf),
  outbase: "src",
  outdir: "dist",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "es2022",
  // Every package stays external but the small ones no public type names (`inlined`, README).
  external: externalPackages,
  // Not `keepNames`: it wraps every closure made inside a function in a `__name` call, paid at each
  // call (~15 % of the runner's own CPU per step). The classes whose name it fixed are renamed back
  // below (`classNamesKept`), and `checkExportedNames` fails the build if any public class is off.
  sourcemap: true,
  tsconfig: "tsconfig.build.json",
  write: false,
  logLevel: "warning",
  // The appended core imports are there for the chunk layout only: esbuild drops them from the output.
  logOverride: { "ignored-bare-import": "silent" },
};
const survey = await build({ ...options, plugins: [keepSeams], metafile: true, sourcemap: false });
const lazy = Object.values(survey.metafile.inputs).flatMap((input) =>
  input.imports.filter((edge) => edge.kind === "dynamic-import" && !edge.external).map((edge) => join(root, edge.path)),
);
// Not the seams swapped by path: the core chunk imports them, and they must not import it back.
const anchored = new Set([...entryFiles.map(sourceOf), ...lazy].filter((path) => !seams.has(path)));
rmSync(dist, { recursive: true, force: true });
const result = await build({ ...options, plugins: [keepSeams, coreFirst(anchored)] });
/**
 * A class that names itself inside its body comes out as `var X = class _X {…}`, so `X.name` would
 * be "_X" (error names are recorded in logs): the inner name is made `X` again, which binds the
 * same class.
 */
function classNamesKept(text) {
  for (const [, name] of text.matchAll(/\bvar ([A-Za-z$][\w$]*) = class _\1\b/g)) {
    text = text.replace(new RegExp(`(?<![\\w$.])_${name.replaceAll("$", "\\$")}(?![\\w$])`, "g"), name);
  }
  return text;
}

for (const file of result.outputFiles) {
  let text = file.text;
  if (file.path.endsWith(".js")) {
    text = classNamesKept(text);
    for (const target of seams.values()) {
      const path = relative(dirname(file.path), target).replaceAll("\\", "/");
      text = text.replaceAll(JSON.stringify(target), JSON.stringify(path.startsWith(".") ? path : `./${path}`));
    }
  }
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, text);
}

/** The core entry's own files loaded at import: itself, the core chunk, the runtime helpers, default-store. */
function checkCoreLayout(limit) {
  const loaded = new Set();
  const visit = (file) => {
    if (loaded.has(file)) return;
    loaded.add(file);
    for (const [, path] of readFileSync(file, "utf8").matchAll(/^(?:import|export)\b[^;"]*"(\.[^"]+)"/gm)) {
      visit(join(dirname(file), path));
    }
  };
  visit(join(dist, "index.js"));
  if (loaded.size > limit) {
    throw new Error(`the core entry loads ${loaded.size} files of dist/ (at most ${limit}): ${[...loaded].join(", ")}`);
  }
}
checkCoreLayout(4);

// The inlined packages' licenses ship with the code taken from them.
writeFileSync(
  join(dist, "THIRD-PARTY-LICENSES.txt"),
  [...inlined]
    .map((name) => {
      const folder = join(root, "node_modules", name);
      const { version, license, author, repository } = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
      // A package that ships no LICENSE file: what its package.json declares.
      const text = existsSync(join(folder, "LICENSE"))
        ? readFileSync(join(folder, "LICENSE"), "utf8").trim()
        : `License: ${license}. Author: ${author}. Source: ${repository?.url ?? repository}.`;
      return `${name}@${version}\n\n${text}\n`;
    })
    .join("\n---\n\n"),
);

/** Every class an entry exports has its own name (`instanceof` aside, users and logs see `.name`). */
async function checkExportedNames() {
  const wrong = [];
  for (const entry of entryFiles.filter((path) => !Object.hasOwn(manifest.browser, path))) {
    if (Object.values(manifest.bin).includes(entry)) continue;
    let module;
    try {
      module = await import(pathToFileURL(join(root, entry)).href);
    } catch {
      continue; // an entry whose optional peers are not installed here
    }
    for (const [key, value] of Object.entries(module)) {
      const isClass = typeof value === "function" && Function.prototype.toString.call(value).startsWith("class");
      if (isClass && value.name !== key) wrong.push(`${entry}: ${key} is named ${value.name}`);
    }
  }
  if (wrong.length > 0) throw new Error(`exported classes with the wrong name:\n${wrong.join("\n")}`);
}
await checkExportedNames();

execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], {
  cwd: root,
  stdio: "inherit",
});
