/**
 * CPU profile of one framework's runs against the mock server (in this process, so the profile
 * shows client and server; filter by file). Usage:
 *   node --cpu-prof --cpu-prof-dir=profiles --import tsx profile.ts nous [seconds] [stream|concurrent]
 * Then: node summarize-profile.mjs profiles/<file>.cpuprofile
 */
import { startRunner } from "./in-process-runner.ts";

const [name = "nous", seconds = "8", mode = "plain"] = process.argv.slice(2);
const { runner, one, stop } = await startRunner(name, mode);
for (let i = 0; i < 400; i++) await one();
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
stop();
process.exit(0);
