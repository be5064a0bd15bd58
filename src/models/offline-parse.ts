/**
 * The small rule-based parser behind `OfflineModel`: pulls an arithmetic expression, a time of day,
 * a task or a folder out of an English prompt. Deterministic, no dictionary, no network.
 */

const wordOperators: readonly [RegExp, string][] = [
  [/\bsquare root of\s+(\d+(?:\.\d+)?)/gi, "$1 ^ 0.5"],
  [/(\d+(?:\.\d+)?)\s*%\s*of\s+(\d+(?:\.\d+)?)/gi, "($1 / 100) * $2"],
  [/(\d+(?:\.\d+)?)\s+percent\s+of\s+(\d+(?:\.\d+)?)/gi, "($1 / 100) * $2"],
  [/\bto the power of\b|\braised to(?: the power of)?\b|\*\*/gi, "^"],
  [/\bsquared\b/gi, "^ 2"],
  [/\bcubed\b/gi, "^ 3"],
  [/\b(?:multiplied by|times)\b|×|·/gi, "*"],
  [/\b(?:divided by|over)\b|÷/gi, "/"],
  [/\b(?:plus|added to)\b/gi, "+"],
  [/\bminus\b|−/gi, "-"],
  [/\b(?:mod|modulo)\b/gi, "%"],
  [/(\d)\s*[xX]\s*(?=[\d(])/g, "$1 * "],
];

const expressionRun = /[-+(]*\s*[\d.(][\d\s.+\-*/%^()]*/g;
const hasOperator = /[\d)]\s*[-+*/%^]\s*[-+(]*\s*[\d.(]/;
/** A date ("2026-12-02", "12/02/2026"), not a computation. */
const dateLike = /^\d{1,4}([-/])\d{1,2}\1\d{1,4}$/;

/**
 * The arithmetic expression in a prompt, with words turned into operators ("12 times 7" → "12 * 7",
 * "15% of 80" → "(15 / 100) * 80", "2 to the power of 10" → "2 ^ 10"); undefined when the prompt
 * holds no number-operator-number run.
 *
 * @example
 * findExpression("What is 2^10?"); // "2^10"
 */
export function findExpression(prompt: string): string | undefined {
  let text = prompt;
  for (const [pattern, replacement] of wordOperators) text = text.replace(pattern, replacement);
  let best: string | undefined;
  for (const match of text.matchAll(expressionRun)) {
    const candidate = trimExpression(match[0]);
    if (!hasOperator.test(candidate) || dateLike.test(candidate)) continue;
    if (best === undefined || candidate.length > best.length) best = candidate;
  }
  return best;
}

/** Drops trailing operators, dots and unbalanced parentheses a sentence left around an expression. */
function trimExpression(run: string): string {
  let text = run.trim().replace(/[-+*/%^.\s]+$/, "");
  const balance = (value: string) =>
    [...value].reduce((sum, char) => sum + (char === "(" ? 1 : char === ")" ? -1 : 0), 0);
  while (balance(text) > 0 && text.startsWith("(")) text = text.slice(1).trim();
  while (balance(text) < 0 && text.endsWith(")")) text = text.slice(0, -1).trim();
  return text;
}

const partsOfDay: readonly [RegExp, number][] = [
  [/\bmidnight\b/i, 0],
  [/\b(?:noon|midday|lunch ?time)\b/i, 12],
  [/\b(?:this )?morning\b/i, 8],
  [/\bafternoon\b/i, 14],
  [/\bevening\b/i, 18],
  [/\b(?:tonight|at night)\b/i, 20],
];

/**
 * The hour (0-23) a prompt names: "at 7pm" → 19, "at 7:30 am" → 7, "at 19:00" → 19, "in the morning"
 * → 8, "at noon" → 12, "in the afternoon" → 14, "in the evening" → 18, "tonight" → 20; undefined if none.
 *
 * @example
 * findHour("by SMS in the morning"); // 8
 */
export function findHour(prompt: string): number | undefined {
  const clock = /\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?|o'?clock|h\b)?/gi;
  for (const match of prompt.matchAll(clock)) {
    const before = prompt.slice(0, match.index).toLowerCase();
    const suffix = (match[3] ?? "").toLowerCase().replace(/\./g, "");
    const explicit = suffix !== "" || match[2] !== undefined || /\b(?:at|by|around|before|after)\s*$/.test(before);
    if (!explicit) continue;
    let hour = Number(match[1]);
    if (hour > 23 || Number(match[2] ?? 0) > 59) continue;
    if (suffix === "pm" && hour < 12) hour += 12;
    if (suffix === "am" && hour === 12) hour = 0;
    return hour;
  }
  for (const [pattern, hour] of partsOfDay) if (pattern.test(prompt)) return hour;
  return undefined;
}

/** Where a task phrase ends: a comma, a sentence end, or a clause about how and when. */
const taskEnd =
  /[,;.!?]|\s+(?:by|via|through|over)\s+(?:sms|text|e-?mail|phone|push|slack)\b|\s+(?:in the|this|tomorrow|tonight|today|at|on|every|before|after|around)\b/i;

const taskPatterns: readonly RegExp[] = [
  /\bremind me (?:to|that|about)\s+(.+)/i,
  /\badd\s+(.+?)\s+to\s+(?:my|the)\s+(?:todo|to-do|task|shopping)?\s*list\b/i,
  /\b(?:todo|to-do|task)\s*:\s*(.+)/i,
  /\badd (?:a )?(?:todo|to-do|task)(?: item)?(?: to)?\s+(.+)/i,
  /\bI (?:need|have|must|should) to\s+(.+)/i,
];

/**
 * The task in a prompt: "Remind me to buy milk, by SMS in the morning." → "buy milk"; "Add eggs to
 * my todo list" → "eggs"; undefined when the prompt states no task.
 */
export function findTask(prompt: string): string | undefined {
  for (const pattern of taskPatterns) {
    const match = pattern.exec(prompt);
    if (match?.[1] === undefined) continue;
    const text = cutAt(match[1], taskEnd);
    if (text !== "") return text;
  }
  return undefined;
}

const notePatterns: readonly RegExp[] = [
  /\b(?:add|take|make|write|save|create)\s+(?:a|this|the)?\s*note(?:\s+(?:that|saying|to|about))?\s*:?\s+(.+)/i,
  /\bnote(?: that|:)\s+(.+)/i,
  /\bremember (?:that|to)\s+(.+)/i,
];

/** The text of a note a prompt asks to keep ("Add a note: call Bob" → "call Bob"). */
export function findNoteText(prompt: string): string | undefined {
  for (const pattern of notePatterns) {
    const match = pattern.exec(prompt);
    const text = match?.[1]?.trim().replace(/[.!?]+$/, "");
    if (text) return text;
  }
  return undefined;
}

/** The folder a listing prompt names ("List the files in src" → "src"), "." when it names none. */
export function findFolder(prompt: string): string {
  const match =
    /\b(?:in|under|inside|of)\s+(?:the\s+)?(?:folder\s+|directory\s+)?["'`]?([\w./-]+?)["'`]?(?:\s+(?:folder|directory))?[?.!]?$/i.exec(
      prompt.trim(),
    );
  const folder = match?.[1];
  if (folder === undefined || /^(?:here|this|it|the|current|working)$/i.test(folder)) return ".";
  return folder;
}

function cutAt(text: string, end: RegExp): string {
  const match = end.exec(text);
  return (match === null ? text : text.slice(0, match.index)).trim();
}
