import { test } from "node:test";
import assert from "node:assert/strict";
import { parseNow } from "../src/cli/hook-command.ts";
import { spawnSync } from "node:child_process";
import { runCli } from "../src/cli/main.ts";
import request from "supertest";
import { createApp } from "../src/http/app.ts";
import { configureControllers } from "../src/controllers/registry.ts";
import { silentLogger } from "./helpers/silent-logger.ts";
import { MINIMAL_CRONJOB_SYNC } from "./helpers/requests.ts";

const NOW = "2026-01-05T12:00:30Z";
const body = MINIMAL_CRONJOB_SYNC;

/**
 * The real binary in its own process: kept once per behaviour class (exit code 0 with stdout,
 * exit code 1 with stderr, stdin read against BODY_LIMIT_BYTES) so the wiring stays tested.
 */
function spawnCli(args: string[], input: string, env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(process.execPath, ["bin/metahooks.js", ...args], { input, encoding: "utf8", env });
}

/** The same command in process (`runCli` over strings): no Node start-up per case. */
async function cli(args: string[], input: string, env: NodeJS.ProcessEnv = process.env) {
  let stdout = "";
  let stderr = "";
  const status = await runCli(args, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    // All of it: the test inputs are smaller than one of readBounded's 64 KiB reads.
    readStdin: () => Buffer.from(input, "utf8"),
    env,
    clock: () => new Date(),
  });
  return { status, stdout, stderr };
}

test("`metahooks sync cronjob --now` prints exactly what the HTTP route answers", async () => {
  const out = spawnCli(["sync", "cronjob", "--now", NOW], JSON.stringify(body));
  assert.equal(out.status, 0, out.stderr);
  const app = createApp({ controllers: configureControllers({}), logger: silentLogger, clock: () => new Date(NOW) });
  const res = await request(app).post("/sync/cronjob").send(body).expect(200);
  assert.equal(out.stdout, res.text + "\n");
  // In process, the same bytes.
  assert.deepEqual(await cli(["sync", "cronjob", "--now", NOW], JSON.stringify(body)), { status: 0, stdout: res.text + "\n", stderr: "" });
});

test("the CLI exits 1 with the route's JSON error on stderr", async () => {
  const bad = spawnCli(["sync", "cronjob", "--now", NOW], "{oops");
  assert.equal(bad.status, 1);
  assert.equal(bad.stdout, "");
  assert.equal(JSON.parse(bad.stderr).error, "malformed_json");
  assert.deepEqual(await cli(["sync", "cronjob", "--now", NOW], "{oops"), { status: 1, stdout: "", stderr: bad.stderr });
  const wrong = await cli(["sync", "cronjob", "--now", NOW], JSON.stringify({ foo: 1 }));
  assert.equal(wrong.status, 1);
  assert.equal(JSON.parse(wrong.stderr).error, "invalid_request");
});

test("--now must be RFC 3339 (a malformed argument: a usage error, exit 2)", async () => {
  const out = await cli(["sync", "cronjob", "--now", "yesterday"], JSON.stringify(body));
  assert.equal(out.status, 2);
  assert.match(out.stderr, /RFC 3339/);
});

test("--help documents the commands", async () => {
  const out = await cli(["--help"], "");
  assert.equal(out.status, 0);
  for (const word of ["serve", "sync", "finalize", "--now", "cronjob"]) assert.ok(out.stdout.includes(word), word);
});

test("the CLI has the HTTP route's body limit and errors", async () => {
  const limit = 4096;
  const big = JSON.stringify({ ...body, pad: "x".repeat(limit) });
  // The real process: stdin is read through readBounded, with the limit from its environment.
  const out = spawnCli(["sync", "cronjob", "--now", NOW], big, { ...process.env, BODY_LIMIT_BYTES: String(limit) });
  assert.equal(out.status, 1);
  const cliError = JSON.parse(out.stderr);
  const app = createApp({ controllers: configureControllers({}), logger: silentLogger, clock: () => new Date(NOW), bodyLimitBytes: limit });
  const res = await request(app).post("/sync/cronjob").set("Content-Type", "application/json").send(big).expect(413);
  assert.equal(cliError.error, res.body.error);
  assert.match(cliError.message, /exceeds the limit of 4096 bytes \(BODY_LIMIT_BYTES\)/);
  assert.deepEqual(await cli(["sync", "cronjob", "--now", NOW], big, { ...process.env, BODY_LIMIT_BYTES: String(limit) }), { status: 1, stdout: "", stderr: out.stderr });
  // Malformed JSON: the same code and the same excerpt-free message as the route.
  const secret = "Bearer hunter2-token";
  const bad = await cli(["sync", "cronjob", "--now", NOW], secret);
  const httpBad = await request(app).post("/sync/cronjob").set("Content-Type", "application/json").send(secret).expect(400);
  assert.equal(JSON.parse(bad.stderr).message, httpBad.body.message);
  assert.ok(!bad.stderr.includes("hunter2"), bad.stderr);
  // A bad BODY_LIMIT_BYTES is refused, as serve refuses it.
  const badLimit = await cli(["sync", "cronjob"], JSON.stringify(body), { ...process.env, BODY_LIMIT_BYTES: "lots" });
  assert.equal(badLimit.status, 1);
  assert.match(badLimit.stderr, /BODY_LIMIT_BYTES/);
});

test("--now refuses dates that do not exist instead of shifting them", async () => {
  // The rule itself, in process (parseNow is what the CLI calls)…
  for (const impossible of ["2026-02-30T00:00:00Z", "2026-02-29T00:00:00Z", "2026-01-05T24:00:00Z", "2026-13-01T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-05T12:60:00Z", "2026-01-05T12:00:60Z", "2026-01-05T12:00:00+24:00"]) {
    assert.throws(() => parseNow(impossible, () => new Date()), /RFC 3339/, impossible);
  }
  assert.equal(parseNow("2028-02-29T12:00:30+01:00", () => new Date()).toISOString(), "2028-02-29T11:00:30.000Z");
  // …and the command end to end, once each way.
  const out = await cli(["sync", "cronjob", "--now", "2026-02-30T00:00:00Z"], JSON.stringify(body));
  assert.equal(out.status, 2);
  assert.match(out.stderr, /RFC 3339/);
  const leap = await cli(["sync", "cronjob", "--now", "2028-02-29T12:00:30+01:00"], JSON.stringify(body));
  assert.equal(leap.status, 0, leap.stderr);
});

test("wrong arguments are a usage error: exit 2, the message and the usage on stderr, nothing read or served", async () => {
  const cases: Array<[string[], RegExp]> = [
    [["sync", "cronjob", "extra"], /unexpected argument "extra"/],
    [["finalize", "cronjob", "a", "b"], /unexpected argument "a"/],
    [["customize", "cibuild", "x"], /unexpected argument "x"/],
    [["serve", "now"], /unexpected argument "now"/],
    [["sync", "cronjob", "--bogus"], /Unknown option '--bogus'/],
    [["sync"], /missing <kind>/],
    [["frobnicate"], /unknown command "frobnicate"/],
    [[], /missing command/],
    // Options that would do nothing for the command are refused rather than ignored.
    [["serve", "--now", "2026-01-01T00:00:00Z"], /--now applies to the hook commands/],
    [["sync", "cronjob", "--port", "9"], /--port applies to serve only/],
    [["explain", "cronjob"], /expected <kind> <name>/],
    [["explain", "cronjob", "a", "-o", "yaml"], /-o supports only "json"/],
    [["explain", "cronjob", "a", "--now", "2026-02-30T00:00:00Z"], /--now/],
    [["sync", "cronjob", "--now", "notatime"], /--now/],
  ];
  for (const [args, message] of cases) {
    const out = await cli(args, JSON.stringify(body));
    assert.equal(out.status, 2, args.join(" "));
    assert.equal(out.stdout, "");
    assert.match(out.stderr, message, args.join(" "));
    assert.match(out.stderr, /Usage:/, args.join(" "));
  }
  // A hook's own refusal stays exit 1 with the route's JSON error.
  const refused = await cli(["sync", "cronjob"], "{");
  assert.equal(refused.status, 1);
  assert.equal(JSON.parse(refused.stderr).error, "malformed_json");
});
