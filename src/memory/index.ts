// Public surface of the embedded retriever (used by the hook and by bench/ scripts).
export { MemoryIndex, buildMemoryIndex, sharedMemoryIndex,  } from "./memory-index.ts";
;
;
export { workspaceMemorySources,    } from "./sources.ts";
;
;
export { chunkMarkdown } from "./chunk.ts";
;
