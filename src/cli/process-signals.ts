import type { Logger } from '../observability/logger.ts';

const PARENT_CHECK_MS = 500;

/**
 * Calls `stop` on SIGTERM and SIGINT and, in a process started through npm (`npm start`, `npx lcf
 * worker`), when the process that started it exits: npm passes a signal to the shell it ran the
 * command in, and a shell that dies of it leaves this process running, reparented. `stop` may be
 * called more than once (a signal, then the parent's exit) and must ignore the repeats.
 */
export function onStopRequest(stop: (reason: string) => void, env: NodeJS.ProcessEnv = process.env): void {
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  if (!env.npm_lifecycle_event && !env.npm_command) return;
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    stop('parent exited');
  }, PARENT_CHECK_MS);
  watch.unref();
}

/**
 * Node's process warnings (deprecations, a library's notice such as the AWS SDK's on Node versions)
 * as log lines, so that what the process writes stays JSON; Node would print them as text on stderr.
 */
export function logProcessWarnings(log: Logger): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error & { code?: string }) => log.warn({ warning: warning.name, code: warning.code }, warning.message));
}
