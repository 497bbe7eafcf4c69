/** The longest delay a Node timer keeps: a longer one fires at once, with a warning. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * `ms` as a timer delay: a timeout beyond a timer's reach (about 24.8 days, e.g. `timeoutSecs:
 * 1e7`) waits that long instead of firing at once; a negative one fires now.
 */
export function timerDelay(ms: number): number {
  return Number.isNaN(ms) ? 0 : Math.min(Math.max(0, ms), MAX_TIMER_MS);
}
