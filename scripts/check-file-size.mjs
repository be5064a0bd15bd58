// Fails when a source file outgrows the size budget (DESIGN: keep files small, the runner a thin facade).
// Exemptions must be listed here with the reason.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const budget = 400;
const exempt = new Map([
  // path → reason
  ["src/index.ts", "the public API, listed by name one per line (no logic); it grows with the API"],
]);

const offenders = [];
function walk(directory) {
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (/\.tsx?$/.test(name) && !/\.test(-d)?\.ts$/.test(name)) {
      const lines = readFileSync(path, "utf8").split("\n").length;
      if (lines > budget && !exempt.has(path)) offenders.push(`${path}: ${lines} lines`);
    }
  }
}
walk("src");
if (offenders.length > 0) {
  console.error(`Source files over the ${budget}-line budget:\n  ${offenders.join("\n  ")}`);
  process.exit(1);
}
console.log(`file sizes: every source file is within ${budget} lines`);
