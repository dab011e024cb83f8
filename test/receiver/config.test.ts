import { test } from "node:test";
import assert from "node:assert/strict";
import request from "supertest";
import { loadReceiverConfig, startReceiverServer } from "../../src/receiver/server.ts";
import { silentLogger } from "../helpers/silent-logger.ts";

test("the receiver is off unless RECEIVER_PORT is set; bad values name the variable", () => {
  assert.equal(loadReceiverConfig({}), undefined);
  assert.equal(loadReceiverConfig({ RECEIVER_PORT: "" }), undefined);
  assert.deepEqual(loadReceiverConfig({ RECEIVER_PORT: "8090" }), { port: 8090, bodyLimitBytes: 1048576, maxInFlight: 16 });
  assert.throws(() => loadReceiverConfig({ RECEIVER_PORT: "http" }), /RECEIVER_PORT/);
  assert.throws(() => loadReceiverConfig({ RECEIVER_PORT: "8090", RECEIVER_BODY_LIMIT_BYTES: "1" }), /RECEIVER_BODY_LIMIT_BYTES/);
});

test("the receiver listener serves /healthz and closes", async () => {
  const kube = { listCIBuilds: async () => [], readSecretKey: async () => undefined, annotateCIBuild: async () => {} };
  const server = await startReceiverServer({ port: 0, host: "127.0.0.1", bodyLimitBytes: 1024, maxInFlight: 1 }, { kube, logger: silentLogger });
  try {
    const res = await request(server.url).get("/healthz");
    assert.equal(res.status, 200);
    const none = await request(server.url).get("/sync/cibuild");
    assert.equal(none.status, 404, "no hook routes on the receiver port");
  } finally {
    await server.close();
  }
});
