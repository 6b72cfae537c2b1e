import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The e2e suite boots real gateways; give it room, but every wait inside is bounded.
    testTimeout: 30_000,
    hookTimeout: 600_000,
    pool: "forks",
  },
});
