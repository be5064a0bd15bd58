/**
 * The numbers of a base64 string of little-endian 32-bit floats (OpenAI's `encoding_format:
 * "base64"`): a quarter of the bytes of the JSON digits, and no number parsing. Undefined when the
 * text is not base64 or its length is not a whole number of floats.
 *
 * @example
 * decodeFloat32Base64("AACAPwAAAMA="); // [1, -2]
 */
export function decodeFloat32Base64(text: string): number[] | undefined {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return undefined;
  }
  if (binary.length % 4 !== 0) return undefined;
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  const view = new DataView(bytes.buffer);
  const numbers = new Array<number>(bytes.length / 4);
  for (let index = 0; index < numbers.length; index++) numbers[index] = view.getFloat32(index * 4, true);
  return numbers;
}
