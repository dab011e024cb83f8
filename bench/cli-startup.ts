/**
 * Start-up cost of the one-shot CLI: `metahooks sync cronjob < request.json`, wall time of the
 * whole process (spawn to exit), median and 90th percentile of RUNS runs, next to `node -e 0`
 * (the floor) and to the sources run through tsx (what every call paid before dist/).
 * Run after `npm run build`: `node --import tsx bench/cli-startup.ts [runs]`.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";

const RUNS = Number(process.argv[2] ?? 15);
const input = readFileSync("examples/cronjob/sync-request.json");

function measure(args: string[]): { median: number; p90: number } {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const out = spawnSync(process.execPath, args, { input, encoding: "utf8" });
    times.push(performance.now() - t0);
    if (out.status !== 0) throw new Error(`${args.join(" ")} exited ${out.status}: ${out.stderr}`);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)]!, p90: times[Math.ceil(times.length * 0.9) - 1]! };
}

if (!existsSync("dist/bin/metahooks.js")) throw new Error("run `npm run build` first");
const hook = ["sync", "cronjob", "--now", "2026-01-05T12:00:30Z"];
const rows: Array<[string, { median: number; p90: number }]> = [
  ["node -e 0 (floor)", measure(["-e", "0"])],
  ["node dist/main.js sync cronjob (modules as compiled)", measure(["dist/main.js", ...hook])],
  ["node dist/bin/metahooks.js sync cronjob (bundled)", measure(["dist/bin/metahooks.js", ...hook])],
  ["node bin/metahooks.js sync cronjob", measure(["bin/metahooks.js", ...hook])],
  ["node --import tsx src/main.ts sync cronjob (sources)", measure(["--import", "tsx", "src/main.ts", ...hook])],
];
console.log(`Node ${process.version}, ${os.cpus()[0]?.model ?? "?"} ×${os.availableParallelism()}, load ${os.loadavg().map((l) => l.toFixed(1)).join(" / ")}, ${RUNS} runs each`);
console.log("| command | median ms | p90 ms |\n| --- | ---: | ---: |");
for (const [name, r] of rows) console.log(`| \`${name}\` | ${r.median.toFixed(0)} | ${r.p90.toFixed(0)} |`);
