import { expect, test } from 'vitest';
import {
  isValidTimeZone,
  isZoneOpen,
  nextOpening,
  parseTimeOfDay,
  timetableErrors,
  type TimetableEntry,
} from './timetable.js';

const BERLIN = 'Europe/Berlin';

function entry(day: number, open: string, close: string, extra: Partial<TimetableEntry> = {}): TimetableEntry {
  return { day, open_at: `2000-01-01T${open}:00Z`, close_at: `2000-01-01T${close}:00Z`, is_working: true, ...extra };
}

/** The example world's schedule: every day 11:00–23:00. */
const EVERY_DAY = [1, 2, 3, 4, 5, 6, 7].map((day) => entry(day, '11:00', '23:00'));

const at = (iso: string) => new Date(iso);

test('the example order time (Friday 18:30 in Berlin) is within 11:00–23:00', () => {
  expect(isZoneOpen(EVERY_DAY, BERLIN, at('2026-11-20T18:30:00+01:00'))).toBe(true);
});

test('opening is inclusive and closing exclusive, in local time', () => {
  expect(isZoneOpen(EVERY_DAY, BERLIN, at('2026-11-20T11:00:00+01:00'))).toBe(true);
  expect(isZoneOpen(EVERY_DAY, BERLIN, at('2026-11-20T10:59:59+01:00'))).toBe(false);
  expect(isZoneOpen(EVERY_DAY, BERLIN, at('2026-11-20T22:59:59+01:00'))).toBe(true);
  expect(isZoneOpen(EVERY_DAY, BERLIN, at('2026-11-20T23:00:00+01:00'))).toBe(false);
});

test('the "Z" of open_at is ignored: 11:00 means 11:00 Berlin time, summer and winter', () => {
  expect(isZoneOpen(EVERY_DAY, BERLIN, at('2026-07-01T09:00:00Z'))).toBe(true); // 11:00 CEST
  expect(isZoneOpen(EVERY_DAY, BERLIN, at('2026-07-01T08:59:00Z'))).toBe(false);
  expect(isZoneOpen(EVERY_DAY, BERLIN, at('2026-01-15T10:00:00Z'))).toBe(true); // 11:00 CET
  expect(isZoneOpen(EVERY_DAY, BERLIN, at('2026-01-15T09:30:00Z'))).toBe(false);
});

test('an explicit offset on open_at is ignored as well', () => {
  const shifted = [{ day: 5, open_at: '2000-01-01T11:00:00+05:00', close_at: '23:00', is_working: true }];
  expect(isZoneOpen(shifted, BERLIN, at('2026-11-20T11:00:00+01:00'))).toBe(true);
});

test('the same schedule follows the zone time zone', () => {
  expect(isZoneOpen(EVERY_DAY, 'Asia/Tokyo', at('2026-11-20T02:00:00Z'))).toBe(true); // 11:00 JST
  expect(isZoneOpen(EVERY_DAY, BERLIN, at('2026-11-20T02:00:00Z'))).toBe(false); // 03:00 CET
});

test('close_at before open_at closes after midnight, on the next day', () => {
  const fridayNight = [entry(5, '18:00', '02:00')];
  expect(isZoneOpen(fridayNight, BERLIN, at('2026-11-20T23:30:00+01:00'))).toBe(true);
  expect(isZoneOpen(fridayNight, BERLIN, at('2026-11-21T01:59:00+01:00'))).toBe(true); // Saturday
  expect(isZoneOpen(fridayNight, BERLIN, at('2026-11-21T02:00:00+01:00'))).toBe(false);
  expect(isZoneOpen(fridayNight, BERLIN, at('2026-11-21T19:00:00+01:00'))).toBe(false); // no Saturday entry
  expect(isZoneOpen(fridayNight, BERLIN, at('2026-11-20T01:00:00+01:00'))).toBe(false); // no Thursday entry
});

test('close_at equal to open_at means 24 hours', () => {
  const mondayAllDay = [entry(1, '00:00', '00:00')];
  expect(isZoneOpen(mondayAllDay, BERLIN, at('2026-11-23T00:00:00+01:00'))).toBe(true);
  expect(isZoneOpen(mondayAllDay, BERLIN, at('2026-11-23T23:59:59+01:00'))).toBe(true);
  expect(isZoneOpen(mondayAllDay, BERLIN, at('2026-11-24T00:00:00+01:00'))).toBe(false);
});

test('several entries on one day make several opening windows (lunch break)', () => {
  const split = [entry(5, '11:00', '14:00'), entry(5, '17:00', '22:00')];
  expect(isZoneOpen(split, BERLIN, at('2026-11-20T13:00:00+01:00'))).toBe(true);
  expect(isZoneOpen(split, BERLIN, at('2026-11-20T15:00:00+01:00'))).toBe(false);
  expect(isZoneOpen(split, BERLIN, at('2026-11-20T18:00:00+01:00'))).toBe(true);
});

test('an empty timetable means always open, but entries that are all off mean always closed', () => {
  expect(isZoneOpen([], BERLIN, at('2026-11-20T04:00:00+01:00'))).toBe(true);
  const allOff = EVERY_DAY.map((e) => ({ ...e, is_working: false }));
  expect(isZoneOpen(allOff, BERLIN, at('2026-11-20T18:30:00+01:00'))).toBe(false);
});

test('entries with is_working false are ignored', () => {
  const fridayOff = [entry(5, '11:00', '23:00', { is_working: false }), entry(6, '11:00', '23:00')];
  expect(isZoneOpen(fridayOff, BERLIN, at('2026-11-20T12:00:00+01:00'))).toBe(false);
  expect(isZoneOpen(fridayOff, BERLIN, at('2026-11-21T12:00:00+01:00'))).toBe(true);
});

test('a dated entry replaces the weekly entries of that date only', () => {
  const christmasEve = [...EVERY_DAY, entry(4, '11:00', '15:00', { date: '2026-12-24' })];
  expect(isZoneOpen(christmasEve, BERLIN, at('2026-12-24T12:00:00+01:00'))).toBe(true);
  expect(isZoneOpen(christmasEve, BERLIN, at('2026-12-24T16:00:00+01:00'))).toBe(false);
  expect(isZoneOpen(christmasEve, BERLIN, at('2026-12-17T16:00:00+01:00'))).toBe(true); // the Thursday before
});

test('a dated entry that is not working closes the whole date', () => {
  const christmas = [...EVERY_DAY, entry(5, '11:00', '23:00', { date: '2026-12-25', is_working: false })];
  expect(isZoneOpen(christmas, BERLIN, at('2026-12-25T12:00:00+01:00'))).toBe(false);
  expect(isZoneOpen(christmas, BERLIN, at('2026-12-26T12:00:00+01:00'))).toBe(true);
});

test('the day of a dated entry is ignored: the date alone decides', () => {
  const wrongDay = [entry(1, '08:00', '09:00', { date: '2026-12-24' })];
  expect(isZoneOpen(wrongDay, BERLIN, at('2026-12-24T08:30:00+01:00'))).toBe(true);
});

test("the previous day's after-midnight hours still count on a closed date", () => {
  const newYear = [entry(4, '18:00', '02:00'), entry(5, '00:00', '00:00', { date: '2027-01-01', is_working: false })];
  expect(isZoneOpen(newYear, BERLIN, at('2027-01-01T01:00:00+01:00'))).toBe(true);
  expect(isZoneOpen(newYear, BERLIN, at('2027-01-01T19:00:00+01:00'))).toBe(false);
});

test('spring forward in Berlin: closing at 02:30 on the night the clocks skip 02:00–03:00', () => {
  const saturdayNight = [entry(6, '20:00', '02:30')];
  expect(isZoneOpen(saturdayNight, BERLIN, at('2026-03-29T00:59:59Z'))).toBe(true); // 01:59:59 CET
  // The next second the wall clock reads 03:00 CEST, past 02:30: closed, not open for an extra hour.
  expect(isZoneOpen(saturdayNight, BERLIN, at('2026-03-29T01:00:00Z'))).toBe(false);
});

test('spring forward in Berlin: Sunday 11:00 is 09:00 UTC', () => {
  expect(isZoneOpen(EVERY_DAY, BERLIN, at('2026-03-29T09:00:00Z'))).toBe(true);
  expect(isZoneOpen(EVERY_DAY, BERLIN, at('2026-03-29T08:59:00Z'))).toBe(false);
  expect(isZoneOpen(EVERY_DAY, BERLIN, at('2026-03-28T09:59:00Z'))).toBe(false); // Saturday, still CET
});

test('fall back in Berlin: the repeated hour is judged by the wall clock each time', () => {
  const saturdayNight = [entry(6, '20:00', '02:30')];
  expect(isZoneOpen(saturdayNight, BERLIN, at('2026-10-25T00:15:00Z'))).toBe(true); // 02:15 CEST
  expect(isZoneOpen(saturdayNight, BERLIN, at('2026-10-25T00:45:00Z'))).toBe(false); // 02:45 CEST
  expect(isZoneOpen(saturdayNight, BERLIN, at('2026-10-25T01:15:00Z'))).toBe(true); // 02:15 CET, again
  expect(isZoneOpen(saturdayNight, BERLIN, at('2026-10-25T01:30:00Z'))).toBe(false); // 02:30 CET
});

test('nextOpening returns the given instant when already open', () => {
  const now = at('2026-11-20T18:30:00+01:00');
  expect(nextOpening(EVERY_DAY, BERLIN, now)).toEqual(now);
  expect(nextOpening([], BERLIN, now)).toEqual(now);
});

test('nextOpening finds the opening later today or tomorrow', () => {
  expect(nextOpening(EVERY_DAY, BERLIN, at('2026-11-20T08:00:00+01:00'))).toEqual(at('2026-11-20T10:00:00Z'));
  expect(nextOpening(EVERY_DAY, BERLIN, at('2026-11-20T23:00:00+01:00'))).toEqual(at('2026-11-21T10:00:00Z'));
});

test('nextOpening skips closed dates and weekdays without entries', () => {
  const weekdays = [1, 2, 3, 4, 5].map((day) => entry(day, '11:00', '23:00'));
  // Friday evening → Monday morning.
  expect(nextOpening(weekdays, BERLIN, at('2026-11-20T23:30:00+01:00'))).toEqual(at('2026-11-23T10:00:00Z'));
  const holidays = [...weekdays, entry(1, '00:00', '00:00', { date: '2026-11-23', is_working: false })];
  expect(nextOpening(holidays, BERLIN, at('2026-11-20T23:30:00+01:00'))).toEqual(at('2026-11-24T10:00:00Z'));
});

test('nextOpening reaches a dated entry far ahead and returns null when nothing opens', () => {
  const oneDay = [entry(2, '12:00', '13:00', { date: '2027-06-01' })];
  expect(nextOpening(oneDay, BERLIN, at('2026-11-20T12:00:00+01:00'))).toEqual(at('2027-06-01T10:00:00Z'));
  expect(nextOpening(oneDay, BERLIN, at('2027-06-01T13:00:00+02:00'))).toBeNull();
  const allOff = EVERY_DAY.map((e) => ({ ...e, is_working: false }));
  expect(nextOpening(allOff, BERLIN, at('2026-11-20T12:00:00+01:00'))).toBeNull();
});

test('nextOpening: an opening time inside the skipped spring hour opens when the gap ends', () => {
  const sunday = [entry(7, '02:30', '05:00', { date: '2026-03-29' })];
  const opening = nextOpening(sunday, BERLIN, at('2026-03-28T23:00:00+01:00'));
  expect(opening).toEqual(at('2026-03-29T01:00:00Z')); // 03:00 CEST
  expect(isZoneOpen(sunday, BERLIN, opening as Date)).toBe(true);
  expect(isZoneOpen(sunday, BERLIN, new Date((opening as Date).getTime() - 1))).toBe(false);
});

test('nextOpening: a window lying wholly in the skipped hour never opens', () => {
  const lost = [entry(7, '02:10', '02:50', { date: '2026-03-29' })];
  expect(nextOpening(lost, BERLIN, at('2026-03-28T23:00:00+01:00'))).toBeNull();
});

test('nextOpening: an opening time in the repeated autumn hour takes its first occurrence', () => {
  const sunday = [entry(7, '02:30', '05:00', { date: '2026-10-25' })];
  expect(nextOpening(sunday, BERLIN, at('2026-10-25T00:00:00Z'))).toEqual(at('2026-10-25T00:30:00Z')); // 02:30 CEST
});

test('an unknown time zone, an invalid instant or a broken entry throws a RangeError', () => {
  expect(() => isZoneOpen(EVERY_DAY, 'Europe/Atlantis', new Date())).toThrow('unknown time zone "Europe/Atlantis"');
  expect(() => isZoneOpen([], 'Mars/Base', new Date())).toThrow(RangeError);
  expect(() => isZoneOpen(EVERY_DAY, BERLIN, new Date(Number.NaN))).toThrow('invalid date');
  expect(() => isZoneOpen([entry(8, '11:00', '23:00')], BERLIN, new Date())).toThrow(
    'invalid timetable entry at /0/day: day must be an integer from 1 (Monday) to 7 (Sunday)',
  );
});

test('timetableErrors reports each bad field with a pointer into the list', () => {
  expect(timetableErrors(EVERY_DAY)).toEqual([]);
  expect(
    timetableErrors([
      entry(1, '11:00', '23:00'),
      { day: 0, open_at: 'eleven', close_at: '2000-02-30T23:00:00Z', date: '2026-02-30', is_working: true },
    ]),
  ).toEqual([
    { pointer: '/1/day', detail: 'day must be an integer from 1 (Monday) to 7 (Sunday)' },
    { pointer: '/1/open_at', detail: 'open_at must be a time of day such as "2000-01-01T11:00:00Z" or "11:00:00"' },
    { pointer: '/1/close_at', detail: 'close_at must be a time of day such as "2000-01-01T11:00:00Z" or "11:00:00"' },
    { pointer: '/1/date', detail: 'date must be null or a calendar date written YYYY-MM-DD' },
  ]);
  expect(timetableErrors([entry(1, '11:00', '23:00', { date: null })])).toEqual([]);
});

test('parseTimeOfDay reads the written time of day, ignoring date and offset', () => {
  expect(parseTimeOfDay('2000-01-01T11:00:00Z')).toBe(11 * 3600);
  expect(parseTimeOfDay('2000-01-01T23:59:59.999+05:30')).toBe(86399);
  expect(parseTimeOfDay('1970-01-01T00:00:00-08:00')).toBe(0);
  expect(parseTimeOfDay('11:30')).toBe(11 * 3600 + 30 * 60);
  expect(parseTimeOfDay('2000-01-01t07:05:03z')).toBe(7 * 3600 + 5 * 60 + 3);
  for (const bad of [
    '',
    '1100',
    '11',
    '24:00',
    '2000-01-01T24:00:00Z',
    '2000-01-01',
    '2000-02-30T11:00:00Z',
    '11:60',
  ]) {
    expect(parseTimeOfDay(bad), bad).toBeUndefined();
  }
});

test('isValidTimeZone accepts IANA names and refuses the rest', () => {
  expect(isValidTimeZone('Europe/Berlin')).toBe(true);
  expect(isValidTimeZone('UTC')).toBe(true);
  expect(isValidTimeZone('Europe/Atlantis')).toBe(false);
  expect(isValidTimeZone('+01:00')).toBe(false);
  expect(isValidTimeZone('')).toBe(false);
});
