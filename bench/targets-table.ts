/**
 * The performance targets table (issue 20): one row per target with its limit, the measured figure
 * and met / missed, under a line naming the machine. Pure formatting: `bench/peers/targets.ts` turns a
 * benchmark run's results into rows; `npm run bench:targets` prints the table.
 */

/** One target: `met` is undefined when it was not measured, or when the row is only reported. */
export interface TargetRow {
  readonly row: string;
  readonly target: string;
  readonly measured: string;
  readonly met: boolean | undefined;
  /** A figure to report, with no limit (e.g. the PostgreSQL store). */
  readonly reportOnly?: boolean;
}

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly node: string;
  readonly platform: string;
  /** The 1/5/15-minute load average when the run started. */
  readonly load?: readonly number[];
}

/** `value ≤ limit`, or undefined when not measured. */
export function atMost(value: number | undefined, limit: number): boolean | undefined {
  return value === undefined || !Number.isFinite(value) ? undefined : value <= limit;
}

/** `value ≥ limit`, or undefined when not measured. */
export function atLeast(value: number | undefined, limit: number): boolean | undefined {
  return value === undefined || !Number.isFinite(value) ? undefined : value >= limit;
}

/** Every check true; undefined when any is undefined (not measured). */
export function allMet(checks: readonly (boolean | undefined)[]): boolean | undefined {
  return checks.some((check) => check === undefined) ? undefined : checks.every(Boolean);
}

export function formatRatio(value: number | undefined): string {
  return value !== undefined && Number.isFinite(value) ? `${value.toFixed(2)}×` : "—";
}

export function formatNumber(value: number | undefined, digits = 0): string {
  return value !== undefined && Number.isFinite(value)
    ? value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : "—";
}

function verdict(row: TargetRow): string {
  if (row.reportOnly) return "reported";
  if (row.met === undefined) return "not measured";
  return row.met ? "met" : "**missed**";
}

export function describeMachine(machine: Machine): string {
  const load = machine.load ? `, load average ${machine.load.map((value) => value.toFixed(2)).join(" / ")}` : "";
  return `${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(1)} GiB RAM, Node ${machine.node}, ${machine.platform}${load}`;
}

/** The markdown table: a machine line, then `| row | target | measured | met / missed |`, then a count. */
export function targetsTable(rows: readonly TargetRow[], machine: Machine): string {
  const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");
  const lines = [
    `Machine: ${describeMachine(machine)}.`,
    "",
    "| row | target | measured | met / missed |",
    "|---|---|---|---|",
    ...rows.map((row) => `| ${cell(row.row)} | ${cell(row.target)} | ${cell(row.measured)} | ${verdict(row)} |`),
    "",
  ];
  const judged = rows.filter((row) => !row.reportOnly);
  const met = judged.filter((row) => row.met === true).length;
  const missed = judged.filter((row) => row.met === false).length;
  lines.push(
    `${met} met, ${missed} missed, ${judged.length - met - missed} not measured, ${rows.length - judged.length} reported.`,
  );
  return `${lines.join("\n")}\n`;
}
