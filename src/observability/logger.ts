import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs on stdout, one line per event. Written asynchronously: lines logged while a write
 * is under way go out together in the next one, so an access-log line per request under load costs no
 * write of its own; pino flushes what is left when the process exits (a SIGKILL loses the lines not yet written).
 */
export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      base: { service: 'lcf' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: ['req.headers.authorization', 'headers.authorization'], censor: '[redacted]' },
    },
    pino.destination({ dest: 1, sync: false }),
  );
}
