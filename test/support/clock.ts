/** A clock the test moves by hand. */
export function manualClock(start = new Date('2026-11-01T12:00:00.000Z')) {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance: (ms: number) => {
      now += ms;
    },
    set: (date: Date) => {
      now = date.getTime();
    },
  };
}
