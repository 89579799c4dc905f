/** A structured logger: one JSON object per line. Never given patient data, only ids and codes. */
export interface Logger {
  info(event: Record<string, unknown>): void;
  error(event: Record<string, unknown>): void;
}

/** Writes JSON lines to stdout (info) and stderr (error), each stamped with the time. */
export function jsonLineLogger(): Logger {
  const write = (stream: NodeJS.WriteStream, event: Record<string, unknown>) =>
    stream.write(`${JSON.stringify({ time: new Date().toISOString(), ...event })}\n`);
  return {
    info: (event) => write(process.stdout, event),
    error: (event) => write(process.stderr, event),
  };
}

/** A logger that drops everything, for tests that assert on responses only. */
export const silentLogger: Logger = { info() {}, error() {} };
