/**
 * How the conformance cases are declared without a test runner: `describe` and `it` record each case
 * (its group path and its body) into the collection `collectCases` is running; a runner (vitest in
 * this repository, `runStoreConformance` for users) runs them.
 */

/** One case of the suite: `group` is the describe path ("append"), `title` what it checks. */
export interface ConformanceCase {
  readonly group: readonly string[];
  readonly title: string;
  readonly run: () => Promise<void> | void;
}

let collecting: { path: string[]; cases: ConformanceCase[] } | undefined;

function active(): { path: string[]; cases: ConformanceCase[] } {
  if (collecting === undefined) throw new Error("conformance cases are declared inside collectCases only");
  return collecting;
}

export function describe(name: string, body: () => void): void {
  const state = active();
  state.path.push(name);
  try {
    body();
  } finally {
    state.path.pop();
  }
}

export function it(title: string, run: () => Promise<void> | void): void {
  const state = active();
  state.cases.push({ group: [...state.path], title, run });
}

/** Runs `define` (which calls describe/it) and returns the cases it declared, in order. */
export function collectCases(define: () => void): ConformanceCase[] {
  if (collecting !== undefined) throw new Error("collectCases does not nest");
  collecting = { path: [], cases: [] };
  try {
    define();
    return collecting.cases;
  } finally {
    collecting = undefined;
  }
}
