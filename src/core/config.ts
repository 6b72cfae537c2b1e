import type { z } from "zod";
import { getLogger } from "./log.ts";

export type ConfigResult<T> = { config: T; ok: boolean; error?: string };

/** Human-readable "key.path: reason" list for a zod error. */
export function describeZodError(error: z.ZodError, rootLabel: string): string {
  return error.issues
    .map((issue) => {
      const path = [rootLabel, ...issue.path.map(String)].filter(Boolean).join(".");
      return `${path}: ${issue.message}`;
    })
    .join("; ");
}

/**
 * Validate a raw config object. Invalid config logs ONE error naming the key path and the reason,
 * then falls back to the schema defaults, so a typo never takes a turn down.
 */
export function parseConfigOrDefaults<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  rootLabel: string,
  logName = "openclaw-context",
): ConfigResult<z.output<S>> {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return { config: parsed.data, ok: true };
  const error = describeZodError(parsed.error, rootLabel);
  getLogger(logName).error({ configKey: rootLabel, error }, `invalid config, using defaults: ${error}`);
  return { config: schema.parse({}), ok: false, error };
}
