// The machine a run came from, recorded with every result file: the figures only mean
// something beside the hardware they were measured on.
import { cpus, totalmem } from 'node:os'
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'

export interface MachineInfo {
  nproc: number
  memoryGiB: number
  cpuModel: string
  node: string
  platform: string
}

export function machineInfo(): MachineInfo {
  let cpuModel = cpus()[0]?.model ?? 'unknown'
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'))
    if (line) cpuModel = line.split(':').slice(1).join(':').trim()
  } catch {
    // Not Linux: os.cpus() is as good as it gets.
  }
  return {
    nproc: availableParallelism(),
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    cpuModel,
    node: process.version,
    platform: `${process.platform} ${process.arch}`
  }
}
