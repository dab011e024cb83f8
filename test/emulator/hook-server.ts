/**
 * Our real hook service (the express app of `createApp`), listening on 127.0.0.1 on an ephemeral
 * port, with its clock wired to the simulated one. It can be stopped and restarted mid-run.
 *
 * @packageDocumentation
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import type { Express } from "express";
import { createApp } from "../../src/http/app.ts";
import { configureControllers, type ConfiguredController } from "../../src/controllers/registry.ts";
import { silentLogger } from "../helpers/silent-logger.ts";

/** A startable/stoppable HTTP server for an express app. */
export class HookServer {
  #server: Server | undefined;
  #url: string | undefined;
  readonly #app: Express;
  /** Times the server was (re)started. */
  starts = 0;

  constructor(app: Express) {
    this.#app = app;
  }

  /** The app of our service with every registered controller, on the given clock. */
  static forControllers(clock: () => Date, controllers: ConfiguredController[] = configureControllers({})): HookServer {
    return new HookServer(createApp({ controllers, logger: silentLogger, clock }));
  }

  /** `http://127.0.0.1:<port>` while listening, else undefined (calls then fail like a refused dial). */
  baseUrl = (): string | undefined => this.#url;

  async start(): Promise<void> {
    if (this.#server) return;
    const server = this.#app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve, reject) => {
      server.once("listening", resolve);
      server.once("error", reject);
    });
    server.keepAliveTimeout = 60_000;
    this.#server = server;
    this.#url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.starts++;
  }

  /** Stops listening and drops every connection (a crashed or restarting pod). */
  async stop(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    this.#url = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
