// Public surface of the embedded retriever (used by the hook and by bench/ scripts).
export { MemoryIndex, buildMemoryIndex, sharedMemoryIndex, resetSharedMemoryIndexes } from "./memory-index.ts";
export type { IndexCandidate, MemoryIndexOptions, RefreshStats } from "./memory-index.ts";
export { createEmbeddedRetriever } from "./retriever.ts";
export { workspaceMemorySources, folderMemorySources, defaultIndexCacheDir, WORKSPACE_MEMORY_PATTERNS } from "./sources.ts";
export type { MemorySourceSpec } from "./sources.ts";
export { calibratedScore, applyMemoryConfidence } from "./calibrate.ts";
export { chunkMarkdown } from "./chunk.ts";
export type { MemoryChunk } from "./chunk.ts";
