// The curl lines of README "The hooks over HTTP", replayed against the hook app: every route in the
// section's table has one, each names an example file that exists, and each answers 200 with JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import request from "supertest";
import { createApp } from "../../src/http/app.ts";
import { configureControllers } from "../../src/controllers/registry.ts";
import { silentLogger } from "../helpers/silent-logger.ts";

const readme = readFileSync("README.md", "utf8");
const start = readme.indexOf("## The hooks over HTTP");
const section = readme.slice(start, readme.indexOf("\n## ", start + 3));

interface CurlLine {
  line: string;
  method: "GET" | "POST";
  path: string;
  file?: string;
}

function curlLines(): CurlLine[] {
  return [...section.matchAll(/^curl .*$/gm)].map(([line]) => {
    const url = line.match(/ localhost:8080(\/\S*)$/);
    assert.ok(url, `${line}: ends with localhost:8080/<path>`);
    const data = line.match(/--data-binary @(\S+)/);
    if (data) assert.match(line, /-H content-type:application\/json /, line);
    return { line, method: data ? "POST" : "GET", path: url[1]!, file: data?.[1] };
  });
}

test("README's curl examples cover every route of the table", () => {
  const covered = new Set(curlLines().map((c) => `${c.method} ${c.path}`));
  const table = [...section.matchAll(/^\| (`[^|]+)\|/gm)].flatMap(([, cell]) => [...cell!.matchAll(/`(GET|POST) (\/[^`]+)`/g)].map((m) => `${m[1]} ${m[2]}`));
  assert.ok(table.length >= 8, `routes in the table: ${table.length}`);
  for (const route of table) {
    const pattern = new RegExp(`^${route.replace("<kind>", "[a-z]+")}$`);
    assert.ok([...covered].some((c) => pattern.test(c)), `no curl example for ${route}`);
  }
});

test("every README curl example answers 200 with JSON from the hook app", async () => {
  const app = createApp({ controllers: configureControllers({}), logger: silentLogger });
  const lines = curlLines();
  assert.ok(lines.length >= 9);
  for (const { line, method, path, file } of lines) {
    let res;
    if (method === "POST") {
      assert.ok(existsSync(file!), `${line}: ${file} exists`);
      res = await request(app).post(path).set("content-type", "application/json").send(readFileSync(file!, "utf8"));
    } else {
      res = await request(app).get(path);
    }
    assert.equal(res.status, 200, `${line}: ${res.status} ${res.text.slice(0, 300)}`);
    assert.match(res.headers["content-type"] ?? "", /json/, line);
    if (method === "POST") assert.ok(res.body && typeof res.body === "object" && !("error" in res.body), line);
  }
});
