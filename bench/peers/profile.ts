/**
 * CPU profile of one framework's runs against the mock server (in this process, so the profile
 * shows client and server; filter by file). Usage:
 *   node --cpu-prof --cpu-prof-dir=profiles --import tsx profile.ts nous [seconds] [stream|concurrent]
 * Then: node summarize-profile.mjs profiles/<file>.cpuprofile
 */
import { fork } from "node:child_process";
import { frameworks } from "./frameworks.ts";

const [name = "nous", seconds = "8", mode = "plain"] = process.argv.slice(2);
const child = fork(new URL("./mock-server.ts", import.meta.url).pathname, [], {
  execArgv: ["--import", "tsx"],
  stdio: ["ignore", "ignore", "inherit", "ipc"],
});
const baseURL = await new Promise<string>((resolve) =>
  child.once("message", (m: { baseURL: string }) => resolve(m.baseURL)),
);
const runner = await frameworks[name]!(baseURL);
const one = mode === "stream" ? () => runner.stream() : () => runner.run();
for (let i = 0; i < 30; i++) await one();
const end = performance.now() + Number(seconds) * 1000;
let runs = 0;
while (performance.now() < end) {
  if (mode === "concurrent") {
    await Promise.all(Array.from({ length: 200 }, () => runner.run()));
    runs += 200;
  } else {
    await one();
    runs++;
  }
}
console.log(`${name} ${mode}: ${runs} runs in ${seconds} s`);
await runner.close?.();
child.kill();
process.exit(0);
