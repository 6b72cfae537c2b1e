// A bounded wait that says what happened: the value, a timeout, or the error. A rejection and a
// timeout used to look the same (`undefined`), so failures went unlogged.

export type Waited<T> = { status: "ok"; value: T } | { status: "timeout" } | { status: "error"; error: unknown };

export function waitAtMost<T>(promise: Promise<T>, ms: number): Promise<Waited<T>> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ status: "timeout" }), Math.max(0, ms));
    timer.unref?.();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve({ status: "ok", value });
      },
      (error: unknown) => {
        clearTimeout(timer);
        resolve({ status: "error", error });
      },
    );
  });
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
