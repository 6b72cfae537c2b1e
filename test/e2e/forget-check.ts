// Issue 24's e2e check for "forget", written to run on a gateway a suite has already started (no
// gateway boot of its own): after the owner's "Forget that …" in the main session the fact leaves
// memory/<today>.md, and the next turn's request to the model does not carry it.
//
// What the gateway needs: OpenClaw 2026.9.6 with the plugin package serving (its message:received
// triage on, the default), the fact captured into memory/<today>.md before (the suite's
// "Remember that …" turn), and ethosContext.dedupeAcrossTurns false with memory.minRefreshIntervalMs
// 0, as package-turns sets them. Both turns run in new threads of the owner's main session
// (MAIN_SESSION, like agent:main:main): the main session's own transcript, which OpenClaw replays
// to the model, still holds the words the owner typed, and that is not the bundle's to forget.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import type { Gateway, TurnResult } from "./gateway.ts";
import { waitForFile } from "./wait-file.ts";

export type ForgetCheck = {
  /** A finished turn: chat.send, the model request, the end of the run (the suite's own helper). */
  turn: (sessionKey: string, text: string) => Promise<TurnResult>;
  /** The fact as captured ("my locker code is 4312") and the value that must not come back ("4312"). */
  fact: string;
  value: string;
  /** The owner's words ("Forget that my locker code is 4312") and the later question ("Tell me my locker code"). */
  forget: string;
  question: string;
};

/** A new thread of the owner's main session: a request without the main session's history. */
const ownerThread = () => `agent:main:main:thread:${crypto.randomUUID()}`;

export async function checkForgetReachesNextTurn(gw: Gateway, check: ForgetCheck): Promise<void> {
  const dayFile = path.join(gw.workspaceDir, "memory", `${new Date().toISOString().slice(0, 10)}.md`);
  expect(fs.readFileSync(dayFile, "utf8"), "the fact is captured before it is forgotten").toContain(check.fact);

  // The forget's own turn gets no memory search (it would bring the fact back in that very turn).
  const forgetTurn = await check.turn(ownerThread(), check.forget);
  expect(gw.model.userTextOf(forgetTurn.request).replace(check.forget, "")).not.toContain(check.value);

  // message:received runs in the background: wait for the day file to lose the fact, then for the audit log.
  const day = await waitForFile(dayFile, (text) => text !== undefined && !text.includes(check.value), 600_000);
  expect(day).not.toContain(check.value);
  const auditLog = path.join(gw.workspaceDir, "memory", ".forgotten.jsonl");
  const record = JSON.parse((await waitForFile(auditLog, (text) => Boolean(text?.includes('"type":"forget"')), 600_000)).trim().split("\n").pop()!) as { origin: string; facts: { preview: string }[] };
  expect(record).toMatchObject({ origin: "chat", facts: [{ preview: check.fact }] });
  for (const rel of [path.join("memory", ".triage", path.basename(dayFile, ".md") + ".jsonl"), "ETHOS_CONTEXT.md"]) {
    const file = path.join(gw.workspaceDir, rel);
    if (fs.existsSync(file)) expect(fs.readFileSync(file, "utf8"), rel).not.toContain(check.value);
  }

  const asked = await check.turn(ownerThread(), `${check.question} (${crypto.randomBytes(4).toString("hex").replace(/\d/g, "x")})`);
  const body = JSON.stringify(asked.request.body).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<id>");
  expect(body, "the next turn's request").not.toContain(check.fact);
  expect(body, "the next turn's request").not.toContain(check.value);
}
