/**
 * Cost of the emulated CronJob week (simulated time, real HTTP): `npx tsx bench/emulator-week.ts [days] [policy]`.
 * Prints sync passes and wall time per pass.
 */
import { runWeek } from "../test/emulator/cronjob-harness.ts";
import { seededRandom } from "../src/emulator/random.ts";

const days = Number(process.argv[2] ?? 1);
const policy = (process.argv[3] ?? "Allow") as "Allow" | "Forbid" | "Replace";
const t0 = performance.now();
const r = await runWeek(policy, 11, seededRandom(11), days);
const ms = performance.now() - t0;
console.log(
  `${policy}, ${days} day(s): ${r.run.passes.length} sync passes, ${r.run.created.length} Jobs, max ${r.maxPassesPerSlot} passes per 5-min slot, ` +
    `${ms.toFixed(0)} ms (${(ms / r.run.passes.length).toFixed(2)} ms/pass), violations ${r.run.violations.length}`,
);
await r.run.close();
