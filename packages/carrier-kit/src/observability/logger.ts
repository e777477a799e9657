/** Structured fields attached to a log line. */
export type LogFields = Record<string, unknown>;

/** The logger the kit writes to; plug in pino, winston or console with a thin wrapper. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const noop = (): void => undefined;

/** A logger that drops everything: the default, so a library never prints on its own. */
export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };

/** Log levels, least to most severe. */
export type LogLevel = keyof Logger;

const LEVELS: LogLevel[] = ['debug', 'info', 'warn', 'error'];

/**
 * A logger writing one line per message to the console, from `level` up.
 * @example
 * createCarrierAgent({ baseUrl, logger: consoleLogger('debug') });
 */
export function consoleLogger(level: LogLevel = 'info', prefix = '[carrier-kit]'): Logger {
  const from = LEVELS.indexOf(level);
  const write = (at: LogLevel) => (message: string, fields?: LogFields) => {
    if (LEVELS.indexOf(at) < from) return;
    const tail = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
    console[at === 'debug' ? 'log' : at](`${prefix} ${at} ${message}${tail}`);
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
