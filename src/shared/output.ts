import * as path from 'node:path';
import { redact } from '../http/errors';

/** Everything the package prints goes through here, so secrets are redacted in one place. */
export interface Printer {
  info(line: string): void;
  error(line: string): void;
  debug(line: string): void;
}

const PREFIX = '[tms-reporter]';

/**
 * Writes to stderr: stdout may carry another reporter's machine-readable output (e.g. `--reporter=json`).
 * `write` is injectable for tests.
 */
export function createPrinter(
  secrets: readonly string[],
  debug: boolean,
  write: (text: string) => void = (t) => process.stderr.write(t),
  /** Which of several reporter instances of one run prints (absent: the only one). */
  instance?: number,
): Printer {
  const prefix = instance === undefined ? PREFIX : `${PREFIX.slice(0, -1)} ${instance}]`;
  const out = (line: string) => write(`${prefix} ${redact(line, secrets)}\n`);
  // A preflight error is printed as soon as it is known; the end summary must not print it again.
  const printed = new Set<string>();
  return {
    info: out,
    error: (line) => {
      if (printed.has(line)) return;
      printed.add(line);
      out(line);
    },
    debug: (line) => {
      if (debug) out(`debug: ${line}`);
    },
  };
}

/**
 * `<label>: <text>`, where a text that already names the service first (a transport error says
 * `Zephyr: GET … failed`) is not named twice: `Zephyr Squad: GET … failed`.
 */
export function labelled(label: string, text: string): string {
  const named = /^([A-Za-z][\w ]*): /.exec(text);
  return named && label.startsWith(named[1]) ? `${label}: ${text.slice(named[0].length)}` : `${label}: ${text}`;
}

/**
 * The command that sends what a run kept in `outboxDir`, for the lines that advise it: it names the folder
 * unless it is the default one where the command is run (a config in a subfolder keeps its outbox there).
 */
export function replayCommand(outboxDir: string | undefined, cwd = process.cwd()): string {
  const relative = outboxDir === undefined ? 'tms-outbox' : path.relative(cwd, outboxDir) || '.';
  if (relative === 'tms-outbox') return '`npx playwright-tms-reporter replay`';
  // Quoted for a POSIX shell when it needs it (single quotes: nothing inside is expanded).
  const arg = /^[\w./-]+$/.test(relative) ? relative : `'${relative.replace(/'/g, `'\\''`)}'`;
  return `\`npx playwright-tms-reporter replay ${arg}\``;
}
