// Measures the pure CIBuild sync hook (parse → decide → validate response) on three requests:
// the go sample fresh, Ready with its Job/Pod/Deployment observed, and one with 50 old build Jobs
// and their Pods observed (retention). Usage: npx tsx bench/cibuild-sync.ts
import { readFileSync } from "node:fs";
import { runHook } from "../src/metacontroller/run-hook.ts";
import { ciBuildController } from "../src/controllers/cibuild/index.ts";
import { DEFAULT_CIBUILD_OPTIONS } from "../src/controllers/cibuild/options.ts";

function load(name: string): { body: unknown; now: Date } {
  const dir = `test/fixtures/cibuild/${name}`;
  return { body: JSON.parse(readFileSync(`${dir}/request.json`, "utf8")), now: new Date(readFileSync(`${dir}/now.txt`, "utf8").trim()) };
}

function withManyJobs(): { body: unknown; now: Date } {
  const base = load("retention") as { body: any; now: Date };
  const jobs = base.body.children["Job.batch/v1"];
  const template = Object.values<any>(jobs).find((j) => j.status?.conditions)!;
  for (let i = 0; i < 50; i++) {
    const job = structuredClone(template);
    job.metadata.name = `build-go-${String(i).padStart(10, "0")}`;
    job.metadata.labels["cicd.cicd.com/build-hash"] = String(i).padStart(10, "0");
    job.status.completionTime = `2026-02-01T00:${String(i % 60).padStart(2, "0")}:00Z`;
    jobs[job.metadata.name] = job;
  }
  return base;
}

function measure(label: string, input: { body: unknown; now: Date }, iterations: number): void {
  for (let i = 0; i < 50; i++) runHook(ciBuildController, "sync", input.body, input.now, DEFAULT_CIBUILD_OPTIONS);
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) runHook(ciBuildController, "sync", input.body, input.now, DEFAULT_CIBUILD_OPTIONS);
  const micros = Number(process.hrtime.bigint() - start) / 1000 / iterations;
  const bytes = JSON.stringify(input.body).length;
  console.log(`${label.padEnd(28)} ${(micros / 1000).toFixed(3)} ms/call  (request ${(bytes / 1024).toFixed(1)} KiB)`);
}

measure("fresh (go sample)", load("fresh"), 2000);
measure("ready (Job+Pod+Deployment)", load("ready"), 2000);
measure("retention, 56 Jobs", withManyJobs(), 300);
