/**
 * `metahooks serve`: the HTTP server around {@link createApp}.
 *
 * @packageDocumentation
 */
import type { Server } from "node:http";
import { createApp } from "./http/app.ts";
import { createLogger } from "./http/logger.ts";
import { loadServiceConfig, type Env } from "./config.ts";
import { configureControllers } from "./controllers/registry.ts";

/**
 * Starts listening and resolves once the port is bound.
 * @param env - the process environment (PORT, HOST, LOG_LEVEL, BODY_LIMIT_BYTES, kind options)
 */
export async function serve(env: Env): Promise<Server> {
  const config = loadServiceConfig(env);
  const logger = createLogger(config.logLevel);
  const app = createApp({ controllers: configureControllers(env), logger, bodyLimitBytes: config.bodyLimitBytes });
  const server = app.listen(config.port, config.host);
  // Metacontroller's Go client keeps idle connections for 90 s; closing ours earlier races its
  // reuse and shows up as sporadic EOF hook errors.
  server.keepAliveTimeout = 95_000;
  server.headersTimeout = 96_000;
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address();
  logger.info({ address }, "metahooks listening");
  return server;
}
