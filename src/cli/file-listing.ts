import { lstat, readdir, readlink, realpath, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** A path the listing tool refuses: outside the root, absolute, or not a directory. */
export class FileListingError extends Error {
  override readonly name = "FileListingError";
}

/** One entry of a directory listing: names and sizes only, never contents. */
export interface ListedEntry {
  readonly name: string;
  readonly type: "file" | "directory" | "symlink" | "other";
  /** Bytes, for files. */
  readonly size?: number;
}

export interface Listing {
  /** The listed directory, relative to the root ("." for the root itself). */
  readonly path: string;
  readonly entries: readonly ListedEntry[];
  /** True when more entries exist than `limit` allowed. */
  readonly truncated: boolean;
}

function inside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * Where a path that does not exist would lie: the real path of its nearest existing ancestor, with
 * dangling symlinks followed lexically, so a missing path behind a symlink that leaves the root is
 * seen as outside (refused like an existing one) rather than as "does not exist".
 */
async function whereMissingLies(path: string): Promise<string> {
  let current = path;
  let links = 0;
  while (links <= 40) {
    const info = await lstat(current).catch(() => undefined);
    if (info === undefined) {
      const parent = dirname(current);
      if (parent === current) return current;
      current = parent;
    } else if (info.isSymbolicLink()) {
      links++;
      current = resolve(await realpath(dirname(current)), await readlink(current));
    } else {
      return realpath(current);
    }
  }
  return current;
}

/**
 * Lists a directory inside `root` (names, types, sizes; never file contents). The requested path
 * must be relative; it is resolved, then its real path (symlinks followed) must still lie inside
 * the real root, so `../x`, `/etc` and a symlink pointing out of the root are all refused. A path
 * behind such a symlink gets the same refusal whether it exists or not (no existence oracle).
 *
 * @example
 * await listDirectory(process.cwd(), "src"); // { path: "src", entries: [...], truncated: false }
 */
export async function listDirectory(root: string, requested = ".", limit = 200): Promise<Listing> {
  if (typeof requested !== "string" || requested.includes("\0")) throw new FileListingError("Invalid path");
  if (isAbsolute(requested) || /^[a-zA-Z]:/.test(requested)) {
    throw new FileListingError(`Absolute paths are refused: give a path relative to the working directory`);
  }
  const realRoot = await realpath(root);
  const target = resolve(realRoot, requested);
  if (!inside(realRoot, target)) throw new FileListingError(`"${requested}" is outside the working directory`);
  let realTarget: string;
  try {
    realTarget = await realpath(target);
  } catch {
    realTarget = await whereMissingLies(target);
    if (inside(realRoot, realTarget)) throw new FileListingError(`"${requested}" does not exist`);
  }
  if (!inside(realRoot, realTarget)) {
    throw new FileListingError(`"${requested}" resolves (through a symlink) outside the working directory`);
  }
  if (!(await stat(realTarget)).isDirectory()) throw new FileListingError(`"${requested}" is not a directory`);
  const names = (await readdir(realTarget)).sort();
  const entries: ListedEntry[] = [];
  for (const name of names.slice(0, limit)) {
    const info = await lstat(join(realTarget, name)).catch(() => undefined);
    if (info === undefined) continue;
    if (info.isFile()) entries.push({ name, type: "file", size: info.size });
    else if (info.isDirectory()) entries.push({ name, type: "directory" });
    else if (info.isSymbolicLink()) entries.push({ name, type: "symlink" });
    else entries.push({ name, type: "other" });
  }
  return { path: relative(realRoot, realTarget) || ".", entries, truncated: names.length > limit };
}
