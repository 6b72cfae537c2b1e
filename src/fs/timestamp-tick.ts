/**
 * Longer than any file system's timestamp tick (whole seconds on some, 1–2 s on the coarsest): a
 * change made within this long of a look (a stat, a listing, a read) can leave a file's or a
 * folder's times as that look saw them, so what was seen is trusted to be current only when the
 * last change was at least this much older than the look.
 */
export const TIMESTAMP_TICK_MS = 2_000;
