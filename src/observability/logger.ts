import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs on stdout, one line per event, written as they are logged. (Written
 * asynchronously, a shutdown's last lines came out of order: pino's flush at exit overtook a write under way.)
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'lcf' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', 'headers.authorization'], censor: '[redacted]' },
  });
}
