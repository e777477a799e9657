/**
 * The last line of defence against answers a test did not expect: when a test throws a JavaScript error (it read
 * a field the answer lacks, iterated over a value that is not a list), the failure says which answer the test
 * was reading, what the document expected of it, and the line of the test that read it, instead of a stack.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Exchange } from './http.js';

/** The first frame of a stack in the suite's own tests or runner, as `file:line` and the line's code. */
function testLine(stack: string | undefined): string | undefined {
  for (const frame of (stack ?? '').split('\n').slice(1)) {
    const match = /\(?((?:file:\/\/)?[^()\s]+?):(\d+):\d+\)?\s*$/.exec(frame);
    if (!match || match[1]!.includes('node_modules') || match[1]!.startsWith('node:')) continue;
    const file = match[1]!.startsWith('file://') ? fileURLToPath(match[1]!) : match[1]!;
    const where = `${file.replace(/^.*?(src|dist)\//, '$1/')}:${match[2]}`;
    try {
      const code = readFileSync(file, 'utf8').split('\n')[Number(match[2]) - 1]?.trim();
      return code ? `${where}: ${code.slice(0, 160)}` : where;
    } catch {
      return where;
    }
  }
  return undefined;
}

/** Whether a test's error is a JavaScript error raised by reading an answer, not a check of the suite. */
export function isReadingError(error: unknown): error is Error {
  return error instanceof TypeError || error instanceof RangeError;
}

/**
 * The failure of a test that threw `error` while reading answers: the document's objections to the answers, if
 * any (they name what was expected), else the last answer and the line of the test that could not read it.
 */
export function readingFailure(error: Error, problems: readonly string[], exchanges: readonly Exchange[]): string {
  const line = testLine(error.stack);
  const reading = `(the test stopped reading it: ${error.message}${line ? ` at ${line}` : ''})`;
  if (problems.length) return `an answer did not have what the document requires, and the test needed it ${reading}`;
  const last = exchanges.at(-1);
  const answer = last
    ? `${last.method} ${new URL(last.url).pathname}${new URL(last.url).search} → ${last.status} ${last.answer.slice(0, 300) || '(empty body)'}`
    : 'no answer';
  return `an answer lacked what the test expected ${reading}; the last answer: ${answer}`;
}
