import { secretPlaceholder } from "./placeholder.js";

/**
 * Values shorter than this are not registered: redacting them would hit ordinary words.
 *
 * @example
 * registerSecret("abc12"); // ignored: 5 characters
 */
export const MIN_SECRET_LENGTH = 6;

/** Each form a secret may take in text (as given, JSON-escaped) → the secret itself (what the placeholder hashes). */
const forms = new Map<string, string>();
/** The forms as an array, and the shortest's length: the hot check reads these. */
let formList: string[] = [];
let shortest = Number.POSITIVE_INFINITY;
let longest = 0;
let pattern: RegExp | undefined;
let markers = false;

/**
 * Registers a secret string for the whole process: from now on `redact` replaces every occurrence
 * of it (and of its JSON-escaped form) inside any string — values and keys — with a placeholder
 * such as `[secret:sha256:1a2b3c4d5e6f]`. Values shorter than 6 characters are ignored (they would
 * redact ordinary words); non-strings are ignored. Registering a value twice is harmless.
 *
 * @example
 * registerSecret(process.env.DB_PASSWORD ?? "");
 * redact({ note: `password is ${process.env.DB_PASSWORD}` }); // { note: "password is [secret:sha256:…]" }
 */
export function registerSecret(value: string): void {
  if (typeof value !== "string" || value.length < MIN_SECRET_LENGTH || forms.has(value)) return;
  addForm(value, value);
  const escaped = JSON.stringify(value).slice(1, -1);
  if (escaped !== value) addForm(escaped, value);
}

/** Registers every string (6 characters or longer) inside `value`: a string, or plain data holding strings. */
export function registerSecretsIn(value: unknown, depth = 0): void {
  if (typeof value === "string") registerSecret(value);
  else if (depth < 32 && typeof value === "object" && value !== null) {
    for (const item of Array.isArray(value) ? value : Object.values(value)) registerSecretsIn(item, depth + 1);
  }
}

function addForm(form: string, original: string): void {
  forms.set(form, original);
  formList = [...forms.keys()];
  shortest = Math.min(shortest, form.length);
  longest = Math.max(longest, form.length);
  pattern = undefined;
}

/** Notes that a `secret()` marker exists, so `redact` must walk values from now on. */
export function noteSecretMarker(): void {
  markers = true;
}

/** False while no secret is registered and no marker was made: `redact` then returns values untouched. */
export function redactionActive(): boolean {
  return markers || forms.size > 0;
}

/** The length of the shortest registered form (Infinity when none): shorter text holds no secret. */
export function shortestSecretLength(): number {
  return shortest;
}

/** The length of the longest registered form (0 when none): how much of a stream to hold back. */
export function longestSecretLength(): number {
  return longest;
}

/**
 * `text` with every registered secret replaced by its placeholder; `text` itself (no copy) when it
 * holds none.
 *
 * @example
 * redactText("Bearer sk-live-0123456789"); // "Bearer [secret:sha256:…]" once the key is registered
 */
export function redactText(text: string): string {
  if (forms.size === 0 || !containsSecret(text)) return text;
  return text.replace(secretPattern(), (found) => secretPlaceholder(forms.get(found) ?? found));
}

/** True when `text` holds a registered secret. */
export function containsSecret(text: string): boolean {
  if (text.length < shortest) return false;
  if (formList.length <= 16) {
    for (let index = 0; index < formList.length; index++) if (text.includes(formList[index] as string)) return true;
    return false;
  }
  const found = secretPattern();
  found.lastIndex = 0;
  return found.test(text);
}

/** Every registered form as one global alternation, longest first (so a secret containing another wins). */
export function secretPattern(): RegExp {
  if (pattern === undefined) {
    const sorted = [...forms.keys()].sort((a, b) => b.length - a.length);
    pattern = new RegExp(sorted.map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g");
  }
  pattern.lastIndex = 0;
  return pattern;
}

/** The secret a registered form stands for (the form itself for an unknown one). */
export function secretOfForm(form: string): string {
  return forms.get(form) ?? form;
}

/**
 * Forgets every registered secret and marker. For tests only: a registered secret is meant to stay
 * registered for the life of the process.
 *
 * @example
 * beforeEach(() => forgetSecretsForTesting());
 */
export function forgetSecretsForTesting(): void {
  forms.clear();
  formList = [];
  shortest = Number.POSITIVE_INFINITY;
  longest = 0;
  pattern = undefined;
  markers = false;
}
