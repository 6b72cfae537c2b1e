// Small helpers for reading a turn's model request and writing turn texts, shared by the suites
// that check memory on real gateways.
import crypto from "node:crypto";
import type { RecordedRequest } from "./mock-model.ts";

/** Everything the model was sent for that turn (system prompt, every message). */
export const bodyOf = (request: RecordedRequest) => JSON.stringify(request.body);
/** The body without the gateway's UUIDs (session ids, run ids), which can contain any four digits. */
export const withoutIds = (body: string) => body.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<id>");
/** How often `needle` occurs in `haystack`. */
export const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;
/**
 * A short letters-only tag that makes a turn's text unique: it cannot contain digits, and one
 * unknown word (not a UUID's five) keeps a question on its topic for the confidence gate.
 */
export const letters = (n: number) => Array.from(crypto.randomBytes(n), (byte) => String.fromCharCode(97 + (byte % 26))).join("");
/** A fresh main-session thread: MAIN_SESSION to our classifier, with none of agent:main:main's turns in its history. */
export const newMainThread = () => `agent:main:main:thread:${crypto.randomUUID()}`;
