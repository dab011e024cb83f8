#!/usr/bin/env node
// Entry point for `npx metahooks` and `npm start`.
// A built tree (dist/, as in the container image) runs as plain JavaScript; a fresh clone runs the
// TypeScript sources through tsx, so no build step is needed after `npm ci`.
import { existsSync } from "node:fs";

const built = new URL("../dist/main.js", import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(new URL("../src/main.ts", import.meta.url).href);
}
