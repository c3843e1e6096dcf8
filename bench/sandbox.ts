// The name bench/run.ts loads for the sandbox benchmark; the benchmark itself lives in
// sandbox-history.ts (merchantHistory over 1,000,000 orders).
export { sandboxBench } from './sandbox-history'
