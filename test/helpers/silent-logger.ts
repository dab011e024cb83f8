import { pino } from "pino";

/** A logger that writes nothing, for tests that do not look at logs. */
export const silentLogger = pino({ level: "silent" });
