// The full run (CI, SVC_TEST_FULL=1): vitest.config.ts decides and hands its decision to the workers as
// SVC_TEST_FULL=1. A file listed in FULL_SIZE of vitest.config.ts generates its inputs at full size only then.
export const FULL_RUN = process.env.SVC_TEST_FULL === '1';

/** `full` in the full run, `everyday` in the others. */
export const fullOr = <T>(full: T, everyday: T): T => (FULL_RUN ? full : everyday);
