// Types of the plugin's JavaScript entry (index.js), for the TypeScript tests.
export declare function servesHost(version: unknown): boolean;
export declare function resolveBundleRoot(pluginConfig: unknown, env?: NodeJS.ProcessEnv): string | undefined;
declare const entry: { id: string; name: string; description: string; register(api: unknown): void };
export default entry;
export declare function hostVersionOf(api: unknown, entryScript?: string): string | undefined;
export declare function hostPackageOf(entryScript?: string): { dir: string; version: string } | undefined;
