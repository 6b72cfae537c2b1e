// The part of OpenClaw's plugin API the plugin uses, in one declaration. Names follow the host's
// own types (2026.9.6 `dist/hook-runner-global-*.d.ts`: PluginHookBeforePromptBuildResult;
// `dist/plugin-entry-*.d.ts`: OpenClawPluginApi). The
// plugin has no `openclaw` dependency to import them from, and the host may omit any field, so every
// field is optional and read through type guards.
import type { OpenClawConfig } from "./events.ts";

/** `api.logger` (lines reach OpenClaw's own log, prefixed by the host). */
export type HostLogger = {
  debug?: (message: string) => void;
  info: (message: string) => void;
  warn: (message: string) => void;
  error: (message: string) => void;
};

/** PluginHookBeforePromptBuildResult (the fields we return). */
export type PromptBuildResult = { prependContext?: string; appendSystemContext?: string };

/** What a context-engine factory gets (2026.9.6). */
type ContextEngineFactoryContext = { workspaceDir?: string } | undefined;

/** commander's Command, as far as `openclaw <name> …` registration needs it. */
export type CommandLike = {
  command(name: string): CommandLike;
  description(text: string): CommandLike;
  argument(spec: string, description?: string): CommandLike;
  helpOption(flags: false): CommandLike;
  allowUnknownOption(): CommandLike;
  allowExcessArguments(): CommandLike;
  action(handler: (args: string[]) => Promise<void> | void): CommandLike;
};

/** `api.registerService`: OpenClaw starts a service in the gateway process only, awaiting `start`, and calls `stop` at shutdown. */
export type PluginService = { id: string; start(ctx: unknown): void | Promise<void>; stop?(ctx: unknown): void | Promise<void> };

type CliDescriptor = { name: string; description: string; hasSubcommands: boolean };

/** OpenClawPluginApi, the part we use. */
export type PluginApi = {
  id?: string;
  config?: OpenClawConfig;
  pluginConfig?: unknown;
  logger?: HostLogger;
  /** Throws while OpenClaw only collects CLI commands ("cli-metadata"). */
  runtime?: { version?: string };
  /** "full" then "discovery" in the gateway; "cli-metadata" then "discovery" for an `openclaw context …` run (2026.9.6). */
  registrationMode?: string;
  registerHook?(events: string[], handler: (event: unknown) => Promise<void>, opts: { name: string; description?: string }): void;
  registerCli?(registrar: (ctx: { program: unknown }) => void, opts: { descriptors: CliDescriptor[] }): void;
  registerContextEngine?(id: string, factory: (ctx: ContextEngineFactoryContext) => Promise<unknown>): void;
  on?(hook: string, handler: (event: unknown, ctx: unknown) => Promise<unknown>): void;
  registerService?(service: PluginService): void;
};
