/** Deepest nesting of arrays and objects accepted from a program (tool arguments, its result). */
export const maxJsonDepth = 256;

export type GuestJson =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problem: string; readonly tooDeep: boolean };

/**
 * Parses JSON text made inside the sandbox. The nesting depth is measured first (iteratively), so
 * that neither the parse nor any later recursive walk of the value (validation, merging, the
 * session log's serialization) can overflow the host's stack; a `RangeError` is caught all the same.
 */
export function parseGuestJson(text: string): GuestJson {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 92) index++;
      else if (char === 34) inString = false;
    } else if (char === 34) inString = true;
    else if (char === 91 || char === 123) {
      depth++;
      if (depth > maxJsonDepth)
        return { ok: false, problem: `nested deeper than ${maxJsonDepth} levels`, tooDeep: true };
    } else if (char === 93 || char === 125) depth--;
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    if (error instanceof RangeError) return { ok: false, problem: "too deeply nested to read", tooDeep: true };
    return { ok: false, problem: "not JSON data", tooDeep: false };
  }
}
