// How much of a cold build is V8 compiling the build code: builds the same synthetic vault three
// times in one process (no cache, no folder watch) and prints each build's time and MB/s. The
// first build is what a fresh gateway pays; the later ones run already-compiled code.
//   npx tsx bench/scale/repeat-build.ts [chunks=10000]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { MemoryIndex, workspaceMemorySources } from "../../src/memory/index.ts";
import { bundleChunkCounter } from "../lib/bundle.ts";
import { markdownTable } from "../lib/table.ts";
import { generateVault } from "./vault.ts";

async function main(): Promise<void> {
  const chunks = Number(process.argv[2] ?? 10_000);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "occ-repeat-build-"));
  try {
    const vault = generateVault(path.join(root, "workspace"), chunks, 42, bundleChunkCounter);
    const vaultMB = vault.bytes / 1024 / 1024;
    const rows: (string | number)[][] = [];
    for (let build = 1; build <= 3; build++) {
      const index = new MemoryIndex(workspaceMemorySources(vault.dir), { cacheDir: false, watchForChanges: false });
      const start = performance.now();
      await index.refresh();
      const ms = performance.now() - start;
      rows.push([build, index.chunkCount, ms.toFixed(0), (vaultMB / (ms / 1000)).toFixed(1)]);
    }
    process.stdout.write(`${vaultMB.toFixed(2)} MB vault, Node ${process.version}\n\n${markdownTable(["build", "chunks", "ms", "MB/s"], rows)}\n`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`repeat-build failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
