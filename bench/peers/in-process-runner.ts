/** The mock server in a child process and one framework's runner against it, for profile.ts and heap-burst.ts. */
import { fork } from "node:child_process";
import { frameworks, type Runner } from "./frameworks.ts";

export async function startRunner(
  name: string,
  mode: string,
): Promise<{ runner: Runner; one: () => Promise<string>; stop: () => void }> {
  const child = fork(new URL("./mock-server.ts", import.meta.url).pathname, [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const baseURL = await new Promise<string>((resolve) =>
    child.once("message", (m: { baseURL: string }) => resolve(m.baseURL)),
  );
  const runner = await frameworks[name]!(baseURL);
  const one = mode === "stream" ? () => runner.stream() : () => runner.run();
  return { runner, one, stop: () => child.kill() };
}
