// ETHOS_CONTEXT.md is written in the background after the model call (writes never hold up a
// turn), so a test that reads it right after the turn can race the write. Wait for the file's
// change events instead: resolves as soon as the file holds `text`, with a generous bound so a
// busy machine never fails it.
import fs from "node:fs";
import path from "node:path";

function holds(file: string, text: string): boolean {
  try {
    return fs.readFileSync(file, "utf8").includes(text);
  } catch {
    return false;
  }
}

export async function waitForFileContaining(file: string, text: string, timeoutMs = 60_000): Promise<string> {
  if (!holds(file, text)) {
    await new Promise<void>((resolve) => {
      // The atomic write renames a temp file into place: watch the folder, not the file.
      const watcher = fs.watch(path.dirname(file), () => {
        if (holds(file, text)) done();
      });
      const bound = setTimeout(done, timeoutMs);
      function done() {
        clearTimeout(bound);
        watcher.close();
        resolve();
      }
      // The write may have landed between the first check and the watch.
      if (holds(file, text)) done();
    });
  }
  return fs.readFileSync(file, "utf8");
}
