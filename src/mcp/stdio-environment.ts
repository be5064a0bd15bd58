/** Variables every stdio server gets from the parent (when set): enough to find programs and a home. */
const baseVariables: readonly string[] =
  process.platform === "win32"
    ? ["PATH", "HOME", "SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "TEMP", "TMP", "USERPROFILE"]
    : ["PATH", "HOME"];

/** Variables the SDK's stdio transport would add by itself; removed unless allowed. */
const sdkDefaults: readonly string[] = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/**
 * The environment of a stdio server: PATH and HOME (plus what Windows needs to start a process),
 * the parent's variables named in `allow`, then `env` on top. Nothing else of the parent's
 * environment (tokens, `*_API_KEY`, …) reaches the child. Values that look like exported shell
 * functions (`() {`) are never inherited.
 *
 * The result also maps the SDK's own default variables that are not chosen to `undefined`, which
 * Node's `spawn` skips, so the SDK cannot add them back.
 */
export function scrubbedEnvironment(
  allow: readonly string[] = [],
  env: Readonly<Record<string, string>> = {},
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const chosen: Record<string, string | undefined> = {};
  for (const key of sdkDefaults) chosen[key] = undefined;
  for (const key of [...baseVariables, ...allow]) {
    const value = parent[key];
    if (value !== undefined && !value.startsWith("()")) chosen[key] = value;
  }
  Object.assign(chosen, env);
  // Keys mapped to undefined are deliberate: spawn drops them, overriding the SDK's defaults.
  return chosen as Record<string, string>;
}
