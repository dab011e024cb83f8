import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import request from "supertest";
import { createApp } from "../src/http/app.ts";
import { configureControllers } from "../src/controllers/registry.ts";
import { silentLogger } from "./helpers/silent-logger.ts";
import { MINIMAL_CRONJOB_SYNC } from "./helpers/requests.ts";

const NOW = "2026-01-05T12:00:30Z";
const body = MINIMAL_CRONJOB_SYNC;

function cli(args: string[], input: string) {
  return spawnSync(process.execPath, ["bin/metahooks.js", ...args], { input, encoding: "utf8" });
}

test("`metahooks sync cronjob --now` prints exactly what the HTTP route answers", async () => {
  const out = cli(["sync", "cronjob", "--now", NOW], JSON.stringify(body));
  assert.equal(out.status, 0, out.stderr);
  const app = createApp({ controllers: configureControllers({}), logger: silentLogger, clock: () => new Date(NOW) });
  const res = await request(app).post("/sync/cronjob").send(body).expect(200);
  assert.equal(out.stdout, res.text + "\n");
});

test("the CLI exits 1 with the route's JSON error on stderr", () => {
  const bad = cli(["sync", "cronjob", "--now", NOW], "{oops");
  assert.equal(bad.status, 1);
  assert.equal(bad.stdout, "");
  assert.equal(JSON.parse(bad.stderr).error, "malformed_json");
  const wrong = cli(["sync", "cronjob", "--now", NOW], JSON.stringify({ foo: 1 }));
  assert.equal(wrong.status, 1);
  assert.equal(JSON.parse(wrong.stderr).error, "invalid_request");
});

test("--now must be RFC 3339", () => {
  const out = cli(["sync", "cronjob", "--now", "yesterday"], JSON.stringify(body));
  assert.equal(out.status, 1);
  assert.match(out.stderr, /RFC 3339/);
});

test("--help documents the commands", () => {
  const out = cli(["--help"], "");
  assert.equal(out.status, 0);
  for (const word of ["serve", "sync", "finalize", "--now", "cronjob"]) assert.ok(out.stdout.includes(word), word);
});
