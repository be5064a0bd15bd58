import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FileListingError, listDirectory } from "./file-listing.js";
import { temporaryDirectory } from "./fixtures/cli-process.js";

describe("listDirectory", () => {
  let outside: string;
  let root: string;
  beforeAll(() => {
    outside = temporaryDirectory("nous-outside-");
    writeFileSync(join(outside, "secret.txt"), "top secret");
    root = join(temporaryDirectory("nous-root-"), "project");
    mkdirSync(join(root, "src", "deep"), { recursive: true });
    writeFileSync(join(root, "README.md"), "hello");
    writeFileSync(join(root, "src", "a.ts"), "export const a = 1;\n");
    symlinkSync(outside, join(root, "escape"));
    symlinkSync(join(root, "src"), join(root, "src-link"));
    symlinkSync(join(outside, "secret.txt"), join(root, "secret-link.txt"));
    symlinkSync(join(outside, "missing"), join(root, "dangling-out"));
    symlinkSync(join(root, "dangling-out"), join(root, "chain-out"));
    symlinkSync(join(root, "missing"), join(root, "dangling-in"));
  });

  it("lists names, types and sizes (never contents), sorted", async () => {
    const listing = await listDirectory(root, ".");
    expect(listing.path).toBe(".");
    expect(listing.entries).toEqual([
      { name: "README.md", type: "file", size: 5 },
      { name: "chain-out", type: "symlink" },
      { name: "dangling-in", type: "symlink" },
      { name: "dangling-out", type: "symlink" },
      { name: "escape", type: "symlink" },
      { name: "secret-link.txt", type: "symlink" },
      { name: "src", type: "directory" },
      { name: "src-link", type: "symlink" },
    ]);
    expect(JSON.stringify(listing)).not.toContain("hello");
    expect((await listDirectory(root, "src")).entries).toEqual([
      { name: "a.ts", type: "file", size: 20 },
      { name: "deep", type: "directory" },
    ]);
    expect((await listDirectory(root, "src/deep/..")).path).toBe("src");
  });

  it("follows a symlink that stays inside the root", async () => {
    expect((await listDirectory(root, "src-link")).path).toBe("src");
  });

  it.each([
    ["..", "outside the working directory"],
    ["../", "outside the working directory"],
    ["src/../../", "outside the working directory"],
    ["../project/../..", "outside the working directory"],
    ["/", "Absolute paths are refused"],
    ["/etc", "Absolute paths are refused"],
    ["escape", "through a symlink"],
    ["escape/", "through a symlink"],
    ["secret-link.txt", "through a symlink"],
    ["README.md", "not a directory"],
    ["missing", "does not exist"],
    ["a\0b", "Invalid path"],
  ])("refuses %j (%s)", async (path, message) => {
    await expect(listDirectory(root, path)).rejects.toThrow(FileListingError);
    await expect(listDirectory(root, path)).rejects.toThrow(message);
  });

  it("refuses a path that escapes through a symlinked parent", async () => {
    await expect(listDirectory(root, "escape/..")).resolves.toMatchObject({ path: "." });
    mkdirSync(join(outside, "sub"), { recursive: true });
    await expect(listDirectory(root, "escape/sub")).rejects.toThrow("through a symlink");
  });

  it("gives one refusal for outside paths whether they exist or not (no existence oracle through symlinks)", async () => {
    const refusal = (path: string) =>
      listDirectory(root, path).then(
        () => "listed",
        (error: Error) => error.message.replace(path, "<path>"),
      );
    const existing = await refusal("escape/sub");
    expect(existing).toContain("through a symlink");
    for (const path of [
      "escape/nope",
      "escape/nope/deeper",
      "escape/secret.txt",
      "dangling-out",
      "chain-out",
      "dangling-out/x",
    ]) {
      expect(await refusal(path), path).toBe(existing);
    }
    expect(await refusal("dangling-in")).toContain("does not exist");
    expect(await refusal("src/nope")).toContain("does not exist");
  });

  it("truncates long listings", async () => {
    const listing = await listDirectory(root, ".", 2);
    expect(listing.entries).toHaveLength(2);
    expect(listing.truncated).toBe(true);
  });
});
