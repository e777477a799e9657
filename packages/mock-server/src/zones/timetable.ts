import { DateTime, IANAZone } from 'luxon';

/** One timetable entry of a delivery zone, as the API carries it. */
export interface TimetableEntry {
  id?: number;
  /** ISO day of week: 1 = Monday … 7 = Sunday. Ignored for dated entries. */
  day: number;
  /** Date-time whose written time of day (HH:MM:SS, offset ignored) is the local opening time. */
  open_at: string;
  /** Same as `open_at`; at or before `open_at` means closing after midnight. */
  close_at: string;
  /** `YYYY-MM-DD`: the entry applies to that local date only and replaces the weekly entries. */
  date?: string | null;
  /** `false` entries open nothing; a dated one still replaces (closes) its date. */
  is_working: boolean;
}

/** A problem found by {@link timetableErrors}; `pointer` is relative to the timetable array. */
export interface TimetableProblem {
  pointer: string;
  detail: string;
}

const DAY_MS = 86_400_000;
/** How far ahead {@link nextOpening} looks at most, so a far-future dated entry cannot make it loop for long. */
const MAX_LOOKAHEAD_DAYS = 3660;

// HH:MM[:SS[.fff]] optionally after a date and followed by an offset: the shapes a time-of-day column is
// serialised in. Luxon alone is too lenient here ("1100" parses as the year 1100).
const TIME_SHAPE =
  /^(?:\d{4}-\d{2}-\d{2}T)?([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const DATE_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `name` is a time zone the runtime knows (IANA names such as `Europe/Berlin`, or `UTC`). */
export function isValidTimeZone(name: string): boolean {
  return typeof name === 'string' && name !== '' && IANAZone.isValidZone(name);
}

/**
 * Seconds since midnight of the time of day written in `value` (`2000-01-01T11:00:00Z` → 39600,
 * `23:30` → 84600); the date part and the offset are ignored on purpose. `undefined` when not a time.
 */
export function parseTimeOfDay(value: string): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TIME_SHAPE.exec(value);
  if (!match) return undefined;
  // The regex checks the time; luxon checks the calendar date (2000-02-30 is refused).
  if (value.length > 10 && value[10]?.toUpperCase() === 'T' && !DateTime.fromISO(value, { setZone: true }).isValid) {
    return undefined;
  }
  return Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3] ?? 0);
}

/** Checks what a JSON schema cannot: times, day numbers and calendar dates. Empty when valid. */
export function timetableErrors(entries: readonly TimetableEntry[]): TimetableProblem[] {
  const problems: TimetableProblem[] = [];
  entries.forEach((entry, index) => {
    const at = (field: string) => `/${index}/${field}`;
    if (!Number.isInteger(entry.day) || entry.day < 1 || entry.day > 7) {
      problems.push({ pointer: at('day'), detail: 'day must be an integer from 1 (Monday) to 7 (Sunday)' });
    }
    for (const field of ['open_at', 'close_at'] as const) {
      if (parseTimeOfDay(entry[field]) === undefined) {
        problems.push({
          pointer: at(field),
          detail: `${field} must be a time of day such as "2000-01-01T11:00:00Z" or "11:00:00"`,
        });
      }
    }
    if (entry.date !== undefined && entry.date !== null && !isCalendarDate(entry.date)) {
      problems.push({ pointer: at('date'), detail: 'date must be null or a calendar date written YYYY-MM-DD' });
    }
    if (typeof entry.is_working !== 'boolean') {
      problems.push({ pointer: at('is_working'), detail: 'is_working must be true or false' });
    }
  });
  return problems;
}

/**
 * Whether a zone with these timetable entries takes orders at instant `at`, judged by the wall clock
 * in `timezone`. An empty list means the zone has no schedule and is always open; a non-empty list is
 * the schedule, so a day without working entries is closed. An entry of day D covers D open..D close,
 * or D open..D+1 close when `close_at` ≤ `open_at` (equal means 24 hours). A date with dated entries
 * uses only those; the previous day's after-midnight hours still count on it. Across DST changes the
 * wall clock decides: an hour skipped in spring is never open, a repeated hour in autumn is judged twice.
 * Throws a `RangeError` for an unknown time zone or an entry {@link timetableErrors} would report.
 */
export function isZoneOpen(timetables: readonly TimetableEntry[], timezone: string, at: Date): boolean {
  const zone = zoneOf(timezone);
  checkInstant(at);
  if (timetables.length === 0) return true;
  const schedule = compile(timetables);
  const now = wallClock(at.getTime(), zone);
  const today = startOfDay(now);
  for (const day of [today - DAY_MS, today]) {
    if (intervalsOn(schedule, day).some(([start, end]) => start <= now && now < end)) return true;
  }
  return false;
}

/**
 * The first instant at or after `from` when the zone is open: `from` itself when open already, or
 * `null` when the schedule never opens again (looking up to ten years ahead). Opening times inside a
 * skipped DST hour open at the end of the gap. Same rules and errors as {@link isZoneOpen}.
 */
export function nextOpening(timetables: readonly TimetableEntry[], timezone: string, from: Date): Date | null {
  const zone = zoneOf(timezone);
  if (isZoneOpen(timetables, timezone, from)) return new Date(from.getTime());
  const schedule = compile(timetables);
  const notBefore = from.getTime();
  const now = wallClock(notBefore, zone);
  const today = startOfDay(now);
  // Weekly entries repeat within 8 days unless dated entries override them, so look one day further
  // per dated entry, and always up to the last dated entry.
  const lastDated = Math.max(today, ...schedule.datedDays);
  const lastDay = Math.min(
    Math.max(today + (8 + schedule.datedDays.length) * DAY_MS, lastDated + DAY_MS),
    today + MAX_LOOKAHEAD_DAYS * DAY_MS,
  );
  // Each day's intervals start within that day, so the first day with an opening ahead holds the answer.
  for (let day = today; day <= lastDay; day += DAY_MS) {
    const starts = intervalsOn(schedule, day)
      .filter(([start]) => start >= now)
      .sort((a, b) => a[0] - b[0]);
    for (const [start, end] of starts) {
      const instant = firstInstantAtWall(start, zone, notBefore);
      if (wallClock(instant, zone) < end) return new Date(instant);
    }
  }
  return null;
}

interface CompiledEntry {
  day: number;
  date: number | undefined;
  open: number;
  close: number;
  working: boolean;
}

interface Schedule {
  entries: CompiledEntry[];
  datedDays: number[];
}

// "Wall-clock milliseconds": local date and time of day encoded as if they were UTC, so that day
// arithmetic and comparisons are plain numbers and never see an offset change.
function wallClock(instant: number, zone: IANAZone): number {
  return instant + zone.offset(instant) * 60_000;
}

function startOfDay(wall: number): number {
  return Math.floor(wall / DAY_MS) * DAY_MS;
}

function isoWeekday(wallDay: number): number {
  const weekday = new Date(wallDay).getUTCDay();
  return weekday === 0 ? 7 : weekday;
}

function checkInstant(at: Date): void {
  if (!(at instanceof Date) || Number.isNaN(at.getTime())) throw new RangeError('invalid date');
}

function zoneOf(timezone: string): IANAZone {
  if (!isValidTimeZone(timezone)) throw new RangeError(`unknown time zone "${timezone}"`);
  return IANAZone.create(timezone);
}

function isCalendarDate(value: unknown): value is string {
  return typeof value === 'string' && DATE_SHAPE.test(value) && DateTime.fromISO(value, { zone: 'utc' }).isValid;
}

function compile(timetables: readonly TimetableEntry[]): Schedule {
  const problem = timetableErrors(timetables)[0];
  if (problem) throw new RangeError(`invalid timetable entry at ${problem.pointer}: ${problem.detail}`);
  const entries = timetables.map((entry) => ({
    day: entry.day,
    date: entry.date ? DateTime.fromISO(entry.date, { zone: 'utc' }).toMillis() : undefined,
    open: (parseTimeOfDay(entry.open_at) as number) * 1000,
    close: (parseTimeOfDay(entry.close_at) as number) * 1000,
    working: entry.is_working,
  }));
  const datedDays = [...new Set(entries.flatMap((entry) => (entry.date === undefined ? [] : [entry.date])))];
  return { entries, datedDays };
}

/** Opening intervals (wall-clock ms, end exclusive) contributed by the entries of local day `day`. */
function intervalsOn(schedule: Schedule, day: number): [number, number][] {
  const dated = schedule.entries.filter((entry) => entry.date === day);
  const weekday = isoWeekday(day);
  const applicable =
    dated.length > 0 ? dated : schedule.entries.filter((e) => e.date === undefined && e.day === weekday);
  return applicable
    .filter((entry) => entry.working)
    .map((entry) => [day + entry.open, day + entry.close + (entry.close <= entry.open ? DAY_MS : 0)]);
}

/**
 * Earliest instant ≥ `notBefore` whose wall clock reads at least `wall`. Usually that wall time exists
 * once (or twice in the autumn repeated hour, the earlier wins); in a spring gap it does not exist and
 * the answer is the transition itself, found by bisection since luxon would shift it by the gap length.
 */
function firstInstantAtWall(wall: number, zone: IANAZone, notBefore: number): number {
  const offsets = new Set([zone.offset(wall - DAY_MS), zone.offset(wall), zone.offset(wall + DAY_MS)]);
  const candidates = [...offsets].map((offset) => wall - offset * 60_000).sort((a, b) => a - b);
  const exact = candidates.find((instant) => instant >= notBefore && wallClock(instant, zone) === wall);
  if (exact !== undefined) return exact;
  let low = Math.max(candidates[0] as number, notBefore);
  let high = Math.max(candidates[candidates.length - 1] as number, low);
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (wallClock(middle, zone) >= wall) high = middle;
    else low = middle + 1;
  }
  return low;
}
