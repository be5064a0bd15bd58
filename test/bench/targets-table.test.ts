import { describe, expect, it } from "vitest";
import { allMet, atLeast, atMost, targetsTable } from "../../bench/targets-table.js";

const machine = { cpu: "Test CPU", cores: 2, memoryGiB: 3.5, node: "v20.19.0", platform: "linux/x64" };

describe("bench targets table", () => {
  it("prints one row per target with met, missed, not measured or reported, and the machine", () => {
    const table = targetsTable(
      [
        { row: "per step, non-streaming", target: "≤ 1.10× floor", measured: "1.05×", met: atMost(1.05, 1.1) },
        { row: "throughput | N = 500", target: "≥ 0.90× floor", measured: "0.80×", met: atLeast(0.8, 0.9) },
        { row: "cold import", target: "≤ 40 ms", measured: "—", met: atMost(undefined, 40) },
        { row: "PostgreSQL", target: "report", measured: "1.9×", met: undefined, reportOnly: true },
      ],
      machine,
    );
    expect(table.split("\n")).toEqual([
      "Machine: Test CPU, 2 cores, 3.5 GiB RAM, Node v20.19.0, linux/x64.",
      "",
      "| row | target | measured | met / missed |",
      "|---|---|---|---|",
      "| per step, non-streaming | ≤ 1.10× floor | 1.05× | met |",
      "| throughput \\| N = 500 | ≥ 0.90× floor | 0.80× | **missed** |",
      "| cold import | ≤ 40 ms | — | not measured |",
      "| PostgreSQL | report | 1.9× | reported |",
      "",
      "1 met, 1 missed, 1 not measured, 1 reported.",
      "",
    ]);
  });

  it("judges a row with an unmeasured part as not measured", () => {
    expect(allMet([true, undefined])).toBeUndefined();
    expect(allMet([true, false])).toBe(false);
    expect(allMet([true, true])).toBe(true);
    expect(atMost(Number.NaN, 1)).toBeUndefined();
  });
});
