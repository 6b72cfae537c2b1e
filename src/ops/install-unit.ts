// The contract of one installable part of the bundle (the hook pack, the companion plugin):
// src/ops/install.ts runs the units in order and hands each its record back at uninstall.

export type InstallMode = "pack" | "link" | "copy";

export type InstallParams = {
  bundleRoot: string;
  workspace: string;
  configPath: string;
  mode: InstallMode;
  cli?: string;
  log: (line: string) => void;
  env?: NodeJS.ProcessEnv;
};

/** What one unit left behind, as JSON in the install record; uninstall gets it back. */
export type UnitRecord = { [key: string]: unknown };

export type UnitRemoval = {
  /** What was done, one line each. */
  steps: string[];
  /** What could not be removed: printed as "remove by hand" lines, and uninstall exits 1. */
  leftovers: string[];
};

/** One installable part of the bundle. Add a unit to INSTALL_UNITS to install it with the rest. */
export type InstallUnit = {
  id: string;
  install(params: InstallParams, previous: UnitRecord | undefined): Promise<UnitRecord>;
  /** Problems found after install (empty: verified). */
  verify?(params: InstallParams, record: UnitRecord): Promise<{ lines: string[]; problems: string[] }>;
  uninstall(params: InstallParams, record: UnitRecord | undefined): Promise<UnitRemoval>;
  /**
   * Undo this unit's edits in a parsed openclaw.json. Used only when the file changed after
   * install (by the operator or the gateway), so the snapshot cannot simply be written back.
   */
  revertConfig?(config: Record<string, unknown>, record: UnitRecord | undefined): boolean;
};
