import type { ValidationResult } from "../tools/schema.js";

/** Parses a model's tool-call arguments. Empty text means no arguments: `{}`. */
export function parseArgs(argsText: string): ValidationResult<unknown> {
  if (argsText.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(argsText) };
  } catch (error) {
    return { ok: false, issues: `arguments are not valid JSON (${(error as Error).message})` };
  }
}
