import { describe, expect, it } from "vitest";
import { ArithmeticError, evaluateArithmetic } from "./arithmetic.js";

describe("evaluateArithmetic", () => {
  it.each([
    ["1 + 2 * 3", 7],
    ["(1 + 2) * 3", 9],
    ["10 / 4", 2.5],
    ["10 % 4", 2],
    ["2 ^ 10", 1024],
    ["2 ^ 3 ^ 2", 512],
    ["-2 ^ 2", -4],
    ["(-2) ^ 2", 4],
    ["2 ^ -1", 0.5],
    ["--3", 3],
    ["-(1 + 2) * +4", -12],
    ["1.5e3 + .5", 1500.5],
    ["  7  ", 7],
    ["8 - 3 - 2", 3],
    ["64 / 4 / 2", 8],
  ])("%s = %d", (expression, value) => {
    expect(evaluateArithmetic(expression)).toBe(value);
  });

  it.each([
    ["", "empty"],
    ["1 +", "end of the expression"],
    ["(1 + 2", 'Expected ")"'],
    ["1 + 2)", "Unexpected"],
    ["2 * * 3", "Expected a number"],
    ["1 / 0", "Division by zero"],
    ["5 % 0", "Division by zero"],
    ["10 ^ 400", "finite"],
    ["process.exit(1)", "Unexpected character"],
    ["constructor", "Unexpected character"],
    ["1; 2", "Unexpected character"],
    ["2 ** 3", "Expected a number"],
    ["x = 1", "Unexpected character"],
  ])("refuses %j (%s)", (expression, message) => {
    expect(() => evaluateArithmetic(expression)).toThrow(ArithmeticError);
    expect(() => evaluateArithmetic(expression)).toThrow(message);
  });

  it("bounds nesting and length instead of overflowing the stack", () => {
    expect(() => evaluateArithmetic(`${"(".repeat(150)}1${")".repeat(150)}`)).toThrow("nests deeper");
    expect(() => evaluateArithmetic(`${"-".repeat(150)}1`)).toThrow("nests deeper");
    expect(() => evaluateArithmetic(`${"1+".repeat(600)}1`)).toThrow("longer than");
    expect(evaluateArithmetic(`${"(".repeat(50)}1${")".repeat(50)}`)).toBe(1);
  });
});
