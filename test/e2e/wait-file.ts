// ETHOS_CONTEXT.md is written in the background after the model call (writes never hold up a
// turn), so a test that reads it right after the turn can race the write. Wait for the file's
// change events instead: resolves as soon as the file holds `text` (or, for a forget, no longer
// does), with a generous bound so a busy machine never fails it.
import fs from "node:fs";
import path from "node:path";

function textOf(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** Resolves when `ready(text of file)` holds (undefined: no file), or after the bound; returns the text then. */
export async function waitForFile(file: string, ready: (text: string | undefined) => boolean, timeoutMs = 60_000): Promise<string> {
  if (!ready(textOf(file))) {
    await new Promise<void>((resolve) => {
      // The atomic write renames a temp file into place: watch the folder, not the file.
      const watcher = fs.watch(path.dirname(file), () => {
        if (ready(textOf(file))) done();
      });
      const bound = setTimeout(done, timeoutMs);
      function done() {
        clearTimeout(bound);
        watcher.close();
        resolve();
      }
      // The write may have landed between the first check and the watch.
      if (ready(textOf(file))) done();
    });
  }
  return textOf(file) ?? "";
}

export function waitForFileContaining(file: string, text: string, timeoutMs = 60_000): Promise<string> {
  return waitForFile(file, (current) => current?.includes(text) ?? false, timeoutMs);
}
