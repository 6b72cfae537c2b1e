// memory: list, show and forget the facts in the workspace's memory files; undo a forget.
import path from "node:path";
import { parseArgs } from "node:util";
import { RotatingFile, hookLogFile, setLogDestination } from "../../core/log.ts";
import { forgetFacts, selectFacts, unforget } from "../../capture/forget.ts";
import type { ForgetSelection } from "../../capture/forget.ts";
import { loadOpenClawConfigFile, resolveOpenClawConfigPath } from "../../host/config-file.ts";
import { loadHygieneConfig } from "../../memory/config-md.ts";
import { redactSecrets } from "../../memory/secrets.ts";
import { CheckFailedError, UsageError, parseIntegerOption, printHelp } from "../cli.ts";
import {
  forgetHistoryNewestFirst,
  formatFact,
  formatFactList,
  formatForgetHistory,
  formatForgetOutcome,
  formatUnforget,
  indexCacheDirs,
  listFacts,
} from "../memory.ts";
import { resolveWorkspace } from "../paths.ts";
import { usage } from "./command.ts";
import type { Invocation, OperatorCommand } from "./command.ts";

const SUBCOMMANDS = ["list", "show", "forget", "unforget"] as const;
const FACT_ID = /^f-[0-9a-f]{4,10}$/;
const FORGET_ID = /^fg-\d{8}-[0-9a-f]{6}$/;

export const memoryCommand: OperatorCommand = {
  name: "memory",
  messageName: "memory",
  summary: "list, show and forget remembered facts (and undo a forget)",
  help: (invocation) => `${usage(invocation, "memory", "list [<words>] [--all] [--forgotten] [--limit <n>] [--workspace <dir>] [--json]")}
       ${invocation.prefix("memory")} show <fact id> [--workspace <dir>] [--json]
       ${invocation.prefix("memory")} forget <fact id>… | <words> [--yes] [--no-undo] [--workspace <dir>] [--config <openclaw.json>] [--json]
       ${invocation.prefix("memory")} unforget <forget id> [--workspace <dir>]   (also: forget --undo <forget id>)

The facts are the entries of MEMORY.md and memory/*.md: lines the bundle captured from "remember
that …" (they carry its metadata comment) and entries a person wrote.

  list      captured facts, newest first, with their ids; --all adds the hand-written entries;
            words filter ("list locker code"); --forgotten lists what was forgotten instead
  show      one fact: every file and line it is in, and the triage queue, CORRECTIONS.md and
            ETHOS_CONTEXT.md lines that mention it
  forget    removes the facts from every place the bundle wrote them (memory files, triage
            queue, CORRECTIONS.md excerpts, ETHOS_CONTEXT.md, the saved memory index) and records
            a tombstone in memory/.forgotten.jsonl, so the capture does not write them again.
            By id, or by words naming a fact ("forget my locker code"). An entry written by hand
            is deleted only with --yes: without it the command shows it and changes nothing.
  unforget  puts back what a forget removed (byte for byte when the files did not change since)
            and lifts its tombstones

Values of passwords, PINs, keys, card and account numbers are shown withheld. Every write takes
the file's lock; the forget is logged (${"`"}status${"`"} lists recent forgets).

Options:
  --all              list: also hand-written entries
  --forgotten        list: the forgets in memory/.forgotten.jsonl, newest first
  --limit <n>        list: at most n lines (default 50)
  --yes              forget: also delete matching entries written by hand
  --no-undo          forget: keep no undo data (the removed text is gone for good)
  --undo <id>        forget: the same as unforget <id>
  --workspace <dir>  agent workspace (default: agents.defaults.workspace in openclaw.json, else ~/.openclaw/workspace)
  --config <file>    openclaw.json, for the saved index's folder (default $OPENCLAW_CONFIG_PATH or <state dir>/openclaw.json)
  --json             print JSON
  -h, --help         show this help

Exit codes: 0 done, 1 nothing matched, confirmation (--yes) needed or a write failed, 2 bad usage.`,
  async main(argv, invocation) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        all: { type: "boolean", default: false },
        forgotten: { type: "boolean", default: false },
        limit: { type: "string" },
        yes: { type: "boolean", default: false },
        "no-undo": { type: "boolean", default: false },
        undo: { type: "string" },
        workspace: { type: "string" },
        config: { type: "string" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    });
    if (values.help) return printHelp(memoryCommand.help(invocation));
    const [sub, ...args] = positionals;
    if (!sub) throw new UsageError(`a subcommand is needed: ${SUBCOMMANDS.join(", ")}`);
    if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw new UsageError(`unknown subcommand "${sub}" (expected one of ${SUBCOMMANDS.join(", ")})`);
    const configPath = path.resolve(values.config ?? resolveOpenClawConfigPath());
    const workspace = resolveWorkspace(values.workspace, process.env, configPath);
    const print = (json: unknown, text: () => string | Promise<string>) => (values.json ? Promise.resolve(JSON.stringify(json, null, 2)) : Promise.resolve(text())).then((out) => console.log(out));

    if (sub === "list") {
      if (values.forgotten) {
        const history = await forgetHistoryNewestFirst(workspace);
        await print(history, () => [`Forgotten in ${workspace} (memory/.forgotten.jsonl), newest first`, ...formatForgetHistory(history, parseIntegerOption("limit", values.limit, 50, 1))].join("\n"));
        return 0;
      }
      const options = { all: values.all, words: args.join(" ") || undefined, limit: parseIntegerOption("limit", values.limit, 50, 1) };
      const list = await listFacts(workspace, options);
      await print(list.shown, () => formatFactList(workspace, list, options, invocation));
      return 0;
    }
    if (sub === "show") {
      if (args.length !== 1) throw new UsageError("show takes one fact id (see: memory list)");
      const [fact] = await selectFacts(workspace, { ids: args });
      if (!fact) throw new CheckFailedError(`no fact ${args[0]} in ${workspace} (${invocation.line("memory", "list --all")} lists them)`);
      await print(fact, () => formatFact(workspace, fact, invocation));
      return 0;
    }
    const undoId = sub === "unforget" ? args[0] : values.undo;
    if (undoId !== undefined || sub === "unforget") {
      if (!undoId || !FORGET_ID.test(undoId) || (sub === "unforget" && args.length !== 1)) throw new UsageError("unforget takes one forget id, fg-YYYYMMDD-xxxxxx (see: memory list --forgotten)");
      return withOperatorLog(async () => {
        const outcome = await unforget({ workspaceDir: workspace, id: undoId, origin: "command", config: (await loadHygieneConfig(workspace)).config }).catch((error: Error) => {
          throw new CheckFailedError(error.message);
        });
        await print(outcome, () => formatUnforget(outcome));
        return outcome.errors.length > 0 ? 1 : 0;
      });
    }
    return forget(workspace, configPath, args, values, invocation, print);
  },
};

async function forget(
  workspace: string,
  configPath: string,
  args: string[],
  values: { yes: boolean; "no-undo": boolean; json: boolean },
  invocation: Invocation,
  print: (json: unknown, text: () => string) => Promise<void>,
): Promise<number> {
  if (args.length === 0) throw new UsageError("forget takes fact ids (see: memory list) or words naming a fact");
  const byId = args.every((arg) => FACT_ID.test(arg));
  const select: ForgetSelection = byId ? { ids: args } : { request: args.join(" ") };
  const facts = await selectFacts(workspace, select);
  if (facts.length === 0) throw new CheckFailedError(`nothing in memory matches ${byId ? args.join(", ") : `"${args.join(" ")}"`} (${invocation.line("memory", "list --all")} lists the facts)`);
  const handWritten = facts.flatMap((fact) => fact.places.filter((place) => !place.captured).map((place) => ({ fact, place })));
  if (handWritten.length > 0 && !values.yes) {
    // Never silently: show what a person wrote and change nothing.
    const lines = [`${facts.length} fact(s) match; ${handWritten.length} entr${handWritten.length === 1 ? "y was" : "ies were"} written by hand:`];
    for (const { fact, place } of handWritten) lines.push(`  ${fact.id}  ${place.rel}:${place.line}  ${formatHandWritten(place.text)}`);
    lines.push(`Nothing changed. Add --yes to delete ${handWritten.length === 1 ? "it" : "them"} with the rest: ${invocation.line("memory", `forget ${args.join(" ")} --yes`)}`);
    console.log(lines.join("\n"));
    return 1;
  }
  return withOperatorLog(async () => {
    const outcome = await forgetFacts({
      workspaceDir: workspace,
      select: { ids: facts.map((fact) => fact.id) },
      handWritten: values.yes ? "delete" : "keep",
      origin: "command",
      config: (await loadHygieneConfig(workspace)).config,
      keepUndo: !values["no-undo"],
      indexCacheDirs: indexCacheDirs(loadOpenClawConfigFile(configPath)),
    });
    await print(outcome, () => formatForgetOutcome(outcome, invocation));
    return outcome.errors.length > 0 || !outcome.id ? 1 : 0;
  });
}

function formatHandWritten(text: string): string {
  const flat = redactSecrets(text).replace(/\s+/g, " ").trim();
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
}

/** The forget's log lines go to the hooks' log file (where `status` reads), not onto the operator's terminal. */
async function withOperatorLog(work: () => Promise<number>): Promise<number> {
  const file = hookLogFile();
  setLogDestination(file ? new RotatingFile(file) : { write: () => true } as never);
  try {
    return await work();
  } finally {
    setLogDestination(undefined);
  }
}
