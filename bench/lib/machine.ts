// The machine line printed with every result table.
import os from "node:os";

export type MachineInfo = { cpus: number; cpuModel: string; node: string; platform: string; totalMemGB: number; date: string };

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model?.trim() ?? "unknown",
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    totalMemGB: Math.round(os.totalmem() / 1024 ** 3),
    date: new Date().toISOString(),
  };
}

export function machineLine(info: MachineInfo): string {
  return `${info.cpus} CPU (${info.cpuModel}), ${info.totalMemGB} GB RAM, Node ${info.node}, ${info.platform}, ${info.date}`;
}
