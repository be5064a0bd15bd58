// Self time by function and by file of a .cpuprofile (top 40), to find hot spots.
import { readFileSync } from "node:fs";
const profile = JSON.parse(readFileSync(process.argv[2], "utf8"));
const filter = process.argv[3];
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const node = byId.get(profile.samples[i]);
  const key = `${node.callFrame.functionName || "(anon)"} ${node.callFrame.url.replace(/^.*\/(node_modules|src)\//, "$1/")}:${node.callFrame.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const byFile = new Map();
for (const [key, us] of self) {
  const file = key.split(" ")[1].replace(/:\d+$/, "") || "(native)";
  byFile.set(file, (byFile.get(file) ?? 0) + us);
}
const show = (map, n) => [...map].filter(([k]) => !filter || k.includes(filter)).sort((a, b) => b[1] - a[1]).slice(0, n)
  .forEach(([k, us]) => console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`));
console.log("== by function"); show(self, 40);
console.log("== by file"); show(byFile, 30);
